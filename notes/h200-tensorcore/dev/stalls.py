import csv, sys
from collections import defaultdict
rows=list(csv.reader(open(sys.argv[1])))
hdr=rows[1]; data=[]
for r in rows[2:]:
    if len(r)!=len(hdr): break
    data.append(dict(zip(hdr,r)))
tot=sum(int(d["Warp Stall Sampling (All Samples)"]) for d in data)
print(len(data), "instructions; total samples",tot)
stall_cols=[c for c in hdr if c.startswith("stall_") and "Not Issued" not in c]
agg={c:sum(int(d[c]) for d in data) for c in stall_cols}
print(", ".join(f"{c[6:]} {100*v/tot:.1f}%" for c,v in sorted(agg.items(),key=lambda x:-x[1])[:9]))
op=defaultdict(lambda: defaultdict(int))
for d in data:
    t=d["Source"].split()
    o=(t[1] if t[0].startswith("@") else t[0]).split('.')[0]
    op[o]['all']+=int(d["Warp Stall Sampling (All Samples)"])
    for c in stall_cols: op[o][c]+=int(d[c])
for o,v in sorted(op.items(),key=lambda x:-x[1]['all'])[:10]:
    top=sorted(((c,n) for c,n in v.items() if c!='all'),key=lambda x:-x[1])[:4]
    print(f"{o:10s} {100*v['all']/tot:5.1f}%", ", ".join(f"{c[6:]}={100*n/tot:.1f}%" for c,n in top))
# top individual instructions
print("top instructions:")
for d in sorted(data,key=lambda d:-int(d["Warp Stall Sampling (All Samples)"]))[:12]:
    v=int(d["Warp Stall Sampling (All Samples)"])
    top=sorted(((c,int(d[c])) for c in stall_cols),key=lambda x:-x[1])[:2]
    print(f"{d['Address'][-5:]} {100*v/tot:5.1f}% {d['Source'].strip()[:60]:60s}", ", ".join(f"{c[6:]}={n}" for c,n in top))
