#!/bin/bash
# run 38: warp-specialized step 10: early test of the next stage's mbarrier (PEEK), BK = 64
export PYTHONUNBUFFERED=1
make -j16 build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o > /dev/null 2>&1
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1 src=$2; shift 2
  nvcc -O3 -std=c++17 -lineinfo -Icommon -arch=sm_90 -DSTEP_NAME=\"10_double_buffer\" -DWM=64 -DWN=64 "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
S=.dev/var/10_ws.cu
W="-DBM=128 -DBN=256 -DMIN_BLOCKS=1 -DPRODUCER_WARPS=4 -DEARLY_ARRIVE=1"
b e $S $W -DBK=32 -DSTAGES=4 &
b ep $S $W -DBK=32 -DSTAGES=4 -DPEEK=1 &
b epg $S $W -DBK=32 -DSTAGES=4 -DPEEK=1 -DGROUP=16 &
b ep5 $S $W -DBK=32 -DSTAGES=5 -DPEEK=1 &
b k3 $S $W -DBK=64 -DSTAGES=3 &
b kp3 $S $W -DBK=64 -DSTAGES=3 -DPEEK=1 &
b kp4 $S $W -DBK=64 -DSTAGES=4 -DPEEK=1 &
b kp3cg $S $W -DBK=64 -DSTAGES=3 -DPEEK=1 -DCACHE=\"cg\" &
b tkp3 $S -DBM=256 -DBN=128 -DMIN_BLOCKS=1 -DPRODUCER_WARPS=4 -DEARLY_ARRIVE=1 -DBK=64 -DSTAGES=3 -DPEEK=1 &
wait
V="build/var/e build/var/ep build/var/epg build/var/ep5 build/var/k3 build/var/kp3 build/var/kp4 build/var/kp3cg build/var/tkp3"
for v in $V; do for s in "2048 2056 1032" "129 127 255"; do
  echo -n "$v $s: "; timeout 20 ./$v $s --check --dtype fp16 --beta 0.5 | grep -iE "pass|fail|error" | head -2 | cut -c1-60 | tr '\n' ' '; echo; done; done
for r in 1 2; do for v in $V; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done; done; done
