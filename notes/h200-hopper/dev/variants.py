"""Writes the run-26 variants of steps 09, 10 and 12 into .dev/var/ (text edits of the shipped sources)."""
import os, re, subprocess
os.makedirs(".dev/var", exist_ok=True)

def edit(src, dst, *pairs):
    s = open(src).read()
    for a, b in pairs:
        assert s.count(a) == 1, (dst, a)
        s = s.replace(a, b)
    open(".dev/var/" + dst, "w").write(s)

grid12 = ("    dim3 grid(tiles < sms ? tiles : sms);\n", "    dim3 grid(tiles);\n")
edit("12_warp_specialize/gemm.cu", "12_nopersist.cu", grid12)
edit("12_warp_specialize/gemm.cu", "12_nopersist_noreg.cu", grid12,
     ('        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(PRODUCER_REGISTERS));\n', ""),
     ('    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(CONSUMER_REGISTERS));\n', ""))

group = '''    const int tiles_m = ceil_div(M, BM), tiles_n_ = ceil_div(N, BN);
    const int per_strip = GROUP * tiles_n_, first = blockIdx.x / per_strip * GROUP;
    const int rows_ = min(GROUP, tiles_m - first), in_strip = blockIdx.x % per_strip;
    const int row0 = (first + in_strip % rows_) * BM, col0 = in_strip / rows_ * BN;
'''
for step in ("09_tensorcore", "10_double_buffer"):
    edit(step + "/gemm.cu", step[:2] + "_group.cu",
         ("    const int tiles_m = ceil_div(M, BM);\n    const int row0 = blockIdx.x % tiles_m * BM, col0 = blockIdx.x / tiles_m * BN;\n",
          group))
subprocess.run("git show drafts/hopper:drafts/10_barrier_before_last_k16.cu > .dev/var/10_barrier_last.cu", shell=True, check=True)
