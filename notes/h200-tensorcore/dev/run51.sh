#!/bin/bash
# run 51: step 10 with two blocks per SM of 128 x 128 (4 consumer warps + 1 or 2 producer warps, 168 registers),
# which the autotuner never measured because the scalar fallback spilled; L2 prefetch hints on the copies
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o > /dev/null 2>&1
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1 src=$2; shift 2
  nvcc -O3 -std=c++17 -lineinfo -Icommon -arch=sm_90 -DSTEP_NAME=\"10_double_buffer\" -DWM=64 -DWN=64 -DLEAN=99 "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
S=.dev/s6/10rs.cu
T2="-DBM=128 -DBN=128 -DMIN_BLOCKS=2"
b w1s3 $S $T2 -DBK=64 -DSTAGES=3 -DPRODUCER_WARPS=1 &
b w1s2 $S $T2 -DBK=64 -DSTAGES=2 -DPRODUCER_WARPS=1 &
b w1k32s4 $S $T2 -DBK=32 -DSTAGES=4 -DPRODUCER_WARPS=1 &
b w2s3 $S $T2 -DBK=64 -DSTAGES=3 -DPRODUCER_WARPS=2 &
b w2s2 $S $T2 -DBK=64 -DSTAGES=2 -DPRODUCER_WARPS=2 &
b w1s3h $S $T2 -DBK=64 -DSTAGES=3 -DPRODUCER_WARPS=1 '-DCP_HINT=".L2::128B"' &
b l2h $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=2 -DPRODUCER_WARPS=4 -DMIN_BLOCKS=1 '-DCP_HINT=".L2::128B"' &
b l2h256 $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=2 -DPRODUCER_WARPS=4 -DMIN_BLOCKS=1 '-DCP_HINT=".L2::256B"' &
b p2 $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=2 -DPRODUCER_WARPS=2 -DMIN_BLOCKS=1 &
b p2s3 $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=3 -DPRODUCER_WARPS=2 -DMIN_BLOCKS=1 &
wait
V="10_double_buffer/gemm build/var/w1s3 build/var/w1s2 build/var/w1k32s4 build/var/w2s3 build/var/w2s2 build/var/w1s3h build/var/l2h build/var/l2h256 build/var/p2 build/var/p2s3"
for v in $V; do echo -n "$v 300 264 1000: "; timeout 20 ./$v 300 264 1000 --check --dtype bf16 --beta 0.5 | grep -iE "pass|fail|error" | head -2 | cut -c1-60 | tr '\n' ' '; echo; done
for r in 1 2; do for v in $V; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done; done; done
