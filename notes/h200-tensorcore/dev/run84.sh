#!/bin/bash
# run 84: every cuBLASLt configuration at 4096^3 fp16/bf16 (notes/h200-tensorcore/dev/cublaslt_algos.cu),
# then the kernel names of the fastest 60 and of each algorithm id's fastest (ncu)
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
CUDA=$(dirname $(dirname $(which nvcc)))
nvcc -O2 -std=c++17 -arch=sm_90a notes/h200-tensorcore/dev/cublaslt_algos.cu -L$CUDA/lib64 -lcublasLt -lcublas -o /tmp/algos || exit 1
for d in fp16 bf16; do
  timeout 240 /tmp/algos $d time 4096 > $OUT/run84_time_$d.txt 2>&1; echo "$d time rc $?"
  head -2 $OUT/run84_time_$d.txt; grep -c TFLOPS $OUT/run84_time_$d.txt
  python3 - $OUT/run84_time_$d.txt > /tmp/top_$d.txt <<'PY'
import sys, re
rows = []
for line in open(sys.argv[1]):
    m = re.search(r'id (\d+) tile (\d+) stages (\d+) swizzle (\d+): ([\d.]+) us ([\d.]+) TFLOPS', line)
    if m: rows.append((float(m.group(6)), int(m.group(1)), line.strip()))
rows.sort(reverse=True)
pick, seen = rows[:60], set()
for t, i, l in rows:
    if i not in seen: seen.add(i); pick.append((t, i, l))
done = set()
for t, i, l in pick:
    if l not in done: done.add(l); print(l)
PY
  wc -l /tmp/top_$d.txt
  timeout 200 ncu --clock-control none --metrics gpu__time_duration.sum /tmp/algos $d names 4096 /tmp/top_$d.txt > $OUT/run84_names_$d.txt 2>&1; echo "$d names rc $?"
  cp /tmp/top_$d.txt $OUT/run84_top_$d.txt
done
