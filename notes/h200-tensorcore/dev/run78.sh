#!/bin/bash
# run 78: step 09 (bd0399b) with its register staging replaced by cp.async (.dev/s8/10a.cu): every
# warp copies and multiplies, a ring of STAGES, one __syncthreads per slice halfway through the math
# (BAR_AT: the k offset after whose mma it sits), wait_group STAGES - 3 before it; against step 10
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10_double_buffer\" "$@" .dev/s8/10a.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores|registers" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
W="-DWM=64 -DWN=64 -DMIN_BLOCKS=1"
b a1 -DBM=256 -DBN=128 -DBK=64 $W -DSTAGES=3 &
b a2 -DBM=256 -DBN=128 -DBK=32 $W -DSTAGES=4 &
b a3 -DBM=256 -DBN=128 -DBK=32 $W -DSTAGES=3 &
b a4 -DBM=128 -DBN=256 -DBK=32 $W -DSTAGES=4 &
b a5 -DBM=128 -DBN=128 -DBK=32 -DWM=64 -DWN=32 -DMIN_BLOCKS=2 -DSTAGES=4 &
b a6 -DBM=128 -DBN=128 -DBK=32 -DWM=64 -DWN=32 -DMIN_BLOCKS=2 -DSTAGES=3 &
b a7 -DBM=256 -DBN=128 -DBK=64 $W -DSTAGES=4 &
b a8 -DBM=256 -DBN=128 -DBK=32 $W -DSTAGES=4 -DBAR_AT=32 &
b a9 -DBM=128 -DBN=128 -DBK=64 -DWM=64 -DWN=64 -DMIN_BLOCKS=2 -DSTAGES=3 &
wait
V="a1 a2 a3 a4 a5 a6 a7 a8 a9"
SH=1x1x1,33x7x129,129x127x1000,257x256x260,2048x2056x1032,300x264x1000,130x136x72
for v in $V; do for d in fp16 bf16; do echo -n "$v $d: "; timeout 60 ./build/var/$v --shapes $SH --check --beta 0.5 --dtype $d 2>&1 | grep -ciE "pass" | tr '\n' ' '; timeout 60 ./build/var/$v --shapes $SH --check --beta 0.5 --dtype $d 2>&1 | grep -iE "fail|error|mismatch" | head -2; echo; done; done
for r in 1 2; do for v in 10_double_buffer/gemm $(for x in $V; do echo build/var/$x; done); do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 99 ./build/var/a2 --shapes 129x127x1000,300x264x1000 --reps 0 --dtype bf16 2>&1 | tail -2
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader
