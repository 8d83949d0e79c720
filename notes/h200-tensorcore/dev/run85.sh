#!/bin/bash
# run 85: (1) the 8 fastest cuBLASLt configurations of run 84 again, 3 rounds of 20 runs, each round
# after the default cublasGemmEx; (2) step 10 (shipped source) at CUTLASS's shapes: BK = 32 with 4-8 stages
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
CUDA=$(dirname $(dirname $(which nvcc)))
nvcc -O2 -std=c++17 -arch=sm_90a notes/h200-tensorcore/dev/cublaslt_algos.cu -L$CUDA/lib64 -lcublasLt -lcublas -o /tmp/algos || exit 1
for d in fp16 bf16; do timeout 120 /tmp/algos $d retime 4096 .dev/r84/retime_$d.txt; done 2>&1 | tee $OUT/run85_retime.txt
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10_double_buffer\" -DWM=64 -DWN=64 -DPRODUCER_WARPS=4 -DMIN_BLOCKS=1 "$@" 10_double_buffer/gemm.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
b a6 -DBM=128 -DBN=256 -DBK=32 -DSTAGES=6 &
b a8 -DBM=128 -DBN=256 -DBK=32 -DSTAGES=8 &
b a4 -DBM=128 -DBN=256 -DBK=32 -DSTAGES=4 &
b c6 -DBM=256 -DBN=128 -DBK=32 -DSTAGES=6 &
b c4 -DBM=256 -DBN=128 -DBK=32 -DSTAGES=4 &
b d3 -DBM=128 -DBN=256 -DBK=64 -DSTAGES=3 &
wait
V="a4 a6 a8 c4 c6 d3"
for v in $V; do echo -n "$v: "; timeout 60 ./build/var/$v --shapes 2048x2056x1032,300x264x1000,129x127x1000 --check --beta 0.5 --dtype bf16 2>&1 | grep -ciE "pass"; done
for r in 1 2; do for v in 10_double_buffer/gemm $(for x in $V; do echo build/var/$x; done); do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done 2>&1 | tee $OUT/run85_variants.txt
