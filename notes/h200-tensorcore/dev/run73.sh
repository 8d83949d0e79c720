#!/bin/bash
# run 73: step 09 variants (.dev/s8/09v.cu = 09_tensorcore/gemm.cu at 09e58f8 + switches):
# STAGES=3 (register-staged 3-stage ring: one barrier per slice, placed before the deposit, so
# that no barrier separates a slice's deposit from the next slice's reads), BAR_KK (the k16 step
# after which it meets), GROUP (strips of tile rows), EPI (C staged through shared memory as in 10)
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader
make -j16 09_tensorcore/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
T="-DBM=128 -DBN=128 -DBK=32 -DWM=64 -DWN=32 -DMIN_BLOCKS=2"
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"09_tensorcore\" "$@" .dev/s8/09v.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
b v0 $T &
b s3 $T -DSTAGES=3 &
b s3b0 $T -DSTAGES=3 -DBAR_KK=0 &
b g8 $T -DGROUP=8 &
b e1 $T -DEPI=1 &
b e2 $T -DEPI=2 &
b s3g8e1 $T -DSTAGES=3 -DGROUP=8 -DEPI=1 &
b s3b0g8e1 $T -DSTAGES=3 -DBAR_KK=0 -DGROUP=8 -DEPI=1 &
b w64s3 -DBM=128 -DBN=256 -DBK=32 -DWM=64 -DWN=64 -DMIN_BLOCKS=1 -DSTAGES=3 -DBAR_KK=0 &
b w3264s3 -DBM=128 -DBN=128 -DBK=32 -DWM=32 -DWN=64 -DMIN_BLOCKS=2 -DSTAGES=3 &
wait
V="v0 s3 s3b0 g8 e1 e2 s3g8e1 s3b0g8e1 w64s3 w3264s3"
SH=1x1x1,33x7x129,129x127x1000,257x256x260,2048x2056x1032,300x264x1000,130x136x72
for v in $V; do for d in fp16 bf16; do echo -n "$v $d: "; timeout 60 ./build/var/$v --shapes $SH --check --beta 0.5 --dtype $d 2>&1 | grep -ciE "pass" | tr '\n' ' '; timeout 60 ./build/var/$v --shapes $SH --check --beta 0.5 --dtype $d 2>&1 | grep -iE "fail|error|mismatch" | head -2; echo; done; done
for r in 1 2; do for v in 09_tensorcore/gemm $(for x in $V; do echo build/var/$x; done); do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader
