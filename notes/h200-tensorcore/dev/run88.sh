#!/bin/bash
# run 88: ncu (full set + source-level SASS with stall samples) of cuBLASLt's best mma.sync kernels,
# CUTLASS sm80 128x256_32x6 (fp16) and 256x128_32x6 (bf16), and of step 10 as shipped (fp16), all at 4096^3
export PYTHONUNBUFFERED=1
CUDA=$(dirname $(dirname $(which nvcc)))
nvcc -O2 -std=c++17 -arch=sm_90a notes/h200-tensorcore/dev/cublaslt_algos.cu -L$CUDA/lib64 -lcublasLt -lcublas -o /tmp/algos || exit 1
make -j16 10_double_buffer/gemm 2>&1 | grep -E "error|built"
mkdir -p build/var
N="ncu --clock-control none --set full --import-source no -c 1 -f"
timeout 150 $N --kernel-name-base demangled -k regex:cutlass_80 -o build/var/c16 /tmp/algos fp16 names 4096 .dev/r88/fp16.txt > /dev/null 2>&1; echo "c16 $?"
timeout 150 $N --kernel-name-base demangled -k regex:cutlass_80 -o build/var/c24 /tmp/algos bf16 names 4096 .dev/r88/bf16.txt > /dev/null 2>&1; echo "c24 $?"
echo skip s10
for r in c16 c24; do
  ncu --import build/var/$r.ncu-rep --page details --csv > $OUT/run88_details_$r.csv 2>&1
  ncu --import build/var/$r.ncu-rep --page source --csv --print-source sass > /tmp/src_$r.csv 2>&1
  echo "== $r"; python3 notes/h200-tensorcore/dev/stalls.py /tmp/src_$r.csv
done
gzip -c /tmp/src_c16.csv > $OUT/run88_src_c16.csv.gz

ls -la $OUT
