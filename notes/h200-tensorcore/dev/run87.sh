#!/bin/bash
# run 87: step 10 (harness) and the 3 best cuBLASLt mma.sync kernels of run 86 per type (cublaslt_algos retime,
# harness timing, each after the default), alternated 3 times
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
CUDA=$(dirname $(dirname $(which nvcc)))
nvcc -O2 -std=c++17 -arch=sm_90a notes/h200-tensorcore/dev/cublaslt_algos.cu -L$CUDA/lib64 -lcublasLt -lcublas -o /tmp/algos || exit 1
make -j16 10_double_buffer/gemm 2>&1 | grep -E "error|built"
for r in 1 2 3; do for d in fp16 bf16; do
  echo -n "10_double_buffer "; ./10_double_buffer/gemm 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16
  timeout 100 /tmp/algos $d retime 4096 .dev/r87/$d.txt | grep -v 'algorithm ids' | grep 'round 0' | sed "s/^round 0/$d/"
done; done 2>&1 | tee $OUT/run87.txt
