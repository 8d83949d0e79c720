#!/bin/bash
# run 86: run 84's 8 fastest cuBLASLt configurations per type, timed as the harness times, each right after
# the default cublasGemmEx (2 rounds); step 10 as shipped through the harness before and after
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
CUDA=$(dirname $(dirname $(which nvcc)))
nvcc -O2 -std=c++17 -arch=sm_90a notes/h200-tensorcore/dev/cublaslt_algos.cu -L$CUDA/lib64 -lcublasLt -lcublas -o /tmp/algos || exit 1
make -j16 10_double_buffer/gemm 2>&1 | grep -E "error|built"
s10() { for d in fp16 bf16; do echo -n "10_double_buffer "; ./10_double_buffer/gemm 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; }
{ s10; for d in fp16 bf16; do timeout 200 /tmp/algos $d retime 4096 .dev/r84/retime_$d.txt; done; s10; } 2>&1 | tee $OUT/run86.txt
