#!/bin/bash
# run 52: step 10's producer with an unpredicated path for slices wholly inside A and B
# (pointer += stride per chunk, immediate shared offsets): does a cheaper producer raise the ceiling?
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o > /dev/null 2>&1
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1 src=$2; shift 2
  nvcc -O3 -std=c++17 -lineinfo -Icommon -arch=sm_90 -DSTEP_NAME=\"10_double_buffer\" -DWM=64 -DWN=64 -DLEAN=99 -DFAST "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
S=.dev/s6/10rs.cu
T2="-DBM=128 -DBN=128 -DMIN_BLOCKS=2"
b f $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=2 -DPRODUCER_WARPS=4 -DMIN_BLOCKS=1 &
b fs3 $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=3 -DPRODUCER_WARPS=4 -DMIN_BLOCKS=1 &
b fp2 $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=2 -DPRODUCER_WARPS=2 -DMIN_BLOCKS=1 &
b fp2s3 $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=3 -DPRODUCER_WARPS=2 -DMIN_BLOCKS=1 &
b fb $S -DBM=128 -DBN=256 -DBK=64 -DSTAGES=2 -DPRODUCER_WARPS=4 -DMIN_BLOCKS=1 &
b fbk32 $S -DBM=128 -DBN=256 -DBK=32 -DSTAGES=4 -DPRODUCER_WARPS=4 -DMIN_BLOCKS=1 &
b fw2s3 $S $T2 -DBK=64 -DSTAGES=3 -DPRODUCER_WARPS=2 &
b fw1s3 $S $T2 -DBK=64 -DSTAGES=3 -DPRODUCER_WARPS=1 &
b fak32 $S -DBM=256 -DBN=128 -DBK=32 -DSTAGES=4 -DPRODUCER_WARPS=4 -DMIN_BLOCKS=1 &
wait
cuobjdump -sass -fun '_Z11gemm_kernelI6__halfLb1EEviiifPKT_S3_fPf' build/var/f > $OUT/f.sass
V="10_double_buffer/gemm build/var/f build/var/fs3 build/var/fp2 build/var/fp2s3 build/var/fb build/var/fbk32 build/var/fw2s3 build/var/fw1s3 build/var/fak32"
for v in $V; do for s in "2048 2056 1032" "300 264 1000" "129 127 255" "1024 1024 4096"; do echo -n "$v $s: "; timeout 20 ./$v $s --check --dtype bf16 --beta 0.5 | grep -iE "pass|fail|error" | head -2 | cut -c1-60 | tr '\n' ' '; echo; done; done
for r in 1 2; do for v in $V; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done; done; done
