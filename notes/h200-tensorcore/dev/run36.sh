#!/bin/bash
# run 36: step 10 as a warp-specialized cp.async pipeline (producer warps signal full[] via
# cp.async.mbarrier.arrive.noinc, consumer warps arrive on empty[]; no __syncthreads in the loop)
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
make -j16 build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 10_double_buffer/gemm > /dev/null 2>&1
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1 src=$2; shift 2
  nvcc -O3 -std=c++17 -lineinfo -Icommon -arch=sm_90 -DSTEP_NAME=\"10_double_buffer\" -DBK=32 -DWM=64 -DWN=64 "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
S=.dev/var/10_ws.cu
b a3 $S -DBM=128 -DBN=128 -DSTAGES=3 -DMIN_BLOCKS=2 -DPRODUCER_WARPS=2 &
b a4 $S -DBM=128 -DBN=128 -DSTAGES=4 -DMIN_BLOCKS=2 -DPRODUCER_WARPS=2 &
b a4cg $S -DBM=128 -DBN=128 -DSTAGES=4 -DMIN_BLOCKS=2 -DPRODUCER_WARPS=2 -DCACHE=\"cg\" &
b a5cg $S -DBM=128 -DBN=128 -DSTAGES=5 -DMIN_BLOCKS=2 -DPRODUCER_WARPS=2 -DCACHE=\"cg\" &
b a4g $S -DBM=128 -DBN=128 -DSTAGES=4 -DMIN_BLOCKS=2 -DPRODUCER_WARPS=2 -DGROUP=8 &
b w4 $S -DBM=128 -DBN=256 -DSTAGES=4 -DMIN_BLOCKS=1 -DPRODUCER_WARPS=4 &
b w6cg $S -DBM=128 -DBN=256 -DSTAGES=6 -DMIN_BLOCKS=1 -DPRODUCER_WARPS=4 -DCACHE=\"cg\" &
b w4g $S -DBM=128 -DBN=256 -DSTAGES=4 -DMIN_BLOCKS=1 -DPRODUCER_WARPS=4 -DGROUP=8 &
b t4 $S -DBM=256 -DBN=128 -DSTAGES=4 -DMIN_BLOCKS=1 -DPRODUCER_WARPS=4 &
b t5cg $S -DBM=256 -DBN=128 -DSTAGES=5 -DMIN_BLOCKS=1 -DPRODUCER_WARPS=4 -DCACHE=\"cg\" &
wait
V="10_double_buffer/gemm build/var/a3 build/var/a4 build/var/a4cg build/var/a5cg build/var/a4g build/var/w4 build/var/w6cg build/var/w4g build/var/t4 build/var/t5cg"
for v in $V; do for s in "2048 2056 1032" "129 127 255" "1 300 17"; do
  echo -n "$v $s: "; timeout 20 ./$v $s --check --dtype bf16 --beta 0.5 | grep -iE "pass|fail|error" | head -2 | tr '\n' ' '; echo; done; done
for r in 1 2; do for v in $V; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done; done; done
