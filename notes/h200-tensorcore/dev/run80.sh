#!/bin/bash
# run 80: step 10 (9ac0154) with 16 consumer warps of 64 x 32 or 32 x 64 (4 per scheduler instead of 2),
# outside the autotuner's limits (4 or 8 consumers): 640 threads, 96 registers at launch, setmaxnreg 40 / 104
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10_double_buffer\" "$@" 10_double_buffer/gemm.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
P="-DPRODUCER_WARPS=4 -DMIN_BLOCKS=1"
b c1 -DBM=256 -DBN=128 -DBK=32 -DWM=64 -DWN=32 -DSTAGES=4 $P &
b c2 -DBM=256 -DBN=128 -DBK=32 -DWM=64 -DWN=32 -DSTAGES=3 $P &
b c3 -DBM=256 -DBN=128 -DBK=64 -DWM=64 -DWN=32 -DSTAGES=2 $P &
b c4 -DBM=128 -DBN=256 -DBK=32 -DWM=32 -DWN=64 -DSTAGES=4 $P &
b c5 -DBM=256 -DBN=128 -DBK=32 -DWM=32 -DWN=64 -DSTAGES=4 $P &
wait
V="c1 c2 c3 c4 c5"
for v in $V; do echo -n "$v: "; timeout 60 ./build/var/$v --shapes 33x7x129,129x127x1000,2048x2056x1032,300x264x1000 --check --beta 0.5 --dtype bf16 2>&1 | grep -ciE "pass" | tr '\n' ' '; echo; done
for r in 1 2; do for v in 10_double_buffer/gemm $(for x in $V; do echo build/var/$x; done); do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader
