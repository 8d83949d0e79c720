#!/bin/bash
# run 74: after run 73, combinations of the 3-stage ring (barrier after the first k16 step) with GROUP and EPI,
# the barrier between the ldmatrix and the mma of a step (BAR_LD), and 64 x 64 warps (one block of 8 warps per SM)
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
S="-DSTAGES=3 -DBAR_KK=0"
W="-DBM=128 -DBN=256 -DBK=32 -DWM=64 -DWN=64 -DMIN_BLOCKS=1"
b s3b0 $T $S &
b s3b0g8 $T $S -DGROUP=8 &
b s3b0e2 $T $S -DEPI=2 &
b s3b0g8e2 $T $S -DGROUP=8 -DEPI=2 &
b s3ld1 $T -DSTAGES=3 -DBAR_KK=1 -DBAR_LD=1 &
b s3ld0 $T -DSTAGES=3 -DBAR_KK=0 -DBAR_LD=1 &
b w64 $W $S &
b w64g8 $W $S -DGROUP=8 &
b w64e2 $W $S -DEPI=2 &
b w64e4 $W $S -DEPI=4 &
b w64ld1 $W -DSTAGES=3 -DBAR_KK=1 -DBAR_LD=1 &
b w64t -DBM=256 -DBN=128 -DBK=32 -DWM=64 -DWN=64 -DMIN_BLOCKS=1 $S &
b w64k64b1 -DBM=128 -DBN=256 -DBK=64 -DWM=64 -DWN=64 -DMIN_BLOCKS=1 -DSTAGES=3 -DBAR_KK=1 &
b w64k64b0 -DBM=128 -DBN=256 -DBK=64 -DWM=64 -DWN=64 -DMIN_BLOCKS=1 -DSTAGES=3 -DBAR_KK=0 &
wait
V="s3b0 s3b0g8 s3b0e2 s3b0g8e2 s3ld1 s3ld0 w64 w64g8 w64e2 w64e4 w64ld1 w64t w64k64b1 w64k64b0"
SH=1x1x1,33x7x129,129x127x1000,257x256x260,2048x2056x1032,300x264x1000,130x136x72
for v in $V; do for d in fp16 bf16; do echo -n "$v $d: "; timeout 60 ./build/var/$v --shapes $SH --check --beta 0.5 --dtype $d 2>&1 | grep -ciE "pass" | tr '\n' ' '; timeout 60 ./build/var/$v --shapes $SH --check --beta 0.5 --dtype $d 2>&1 | grep -iE "fail|error|mismatch" | head -2; echo; done; done
for r in 1 2; do for v in 09_tensorcore/gemm $(for x in $V; do echo build/var/$x; done); do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader
