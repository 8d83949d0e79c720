#!/bin/bash
# run 41: warp-specialized step 10: the producer signals with wait_group + arrive (WAITGROUP=2: signal before waiting for a free stage) against cp.async.mbarrier.arrive.noinc; stages; strips
export PYTHONUNBUFFERED=1
make -j16 build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o > /dev/null 2>&1
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1 src=$2; shift 2
  nvcc -O3 -std=c++17 -lineinfo -Icommon -arch=sm_90 -DSTEP_NAME=\"10_double_buffer\" -DWM=64 -DWN=64 "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
S=.dev/var/10_ws.cu
W="-DBM=128 -DBN=256 -DMIN_BLOCKS=1 -DEARLY_ARRIVE=1 -DBK=32 -DSTAGES=4"
b e $S $W -DPRODUCER_WARPS=4 &
b v3 $S $W -DPRODUCER_WARPS=4 -DWAITGROUP=2 -DSTAGES=3 &
b v4 $S $W -DPRODUCER_WARPS=4 -DWAITGROUP=2 &
b v5 $S $W -DPRODUCER_WARPS=4 -DWAITGROUP=2 -DSTAGES=5 &
b v4g $S $W -DPRODUCER_WARPS=4 -DWAITGROUP=2 -DGROUP=16 &
b vt4 $S -DBM=256 -DBN=128 -DMIN_BLOCKS=1 -DEARLY_ARRIVE=1 -DBK=32 -DSTAGES=4 -DPRODUCER_WARPS=4 -DWAITGROUP=2 &
b va3 $S -DBM=128 -DBN=128 -DMIN_BLOCKS=2 -DEARLY_ARRIVE=1 -DBK=32 -DSTAGES=3 -DPRODUCER_WARPS=2 -DWAITGROUP=2 &
wait
V="build/var/e build/var/v3 build/var/v4 build/var/v5 build/var/v4g build/var/vt4 build/var/va3"
for v in build/var/v3 build/var/v4 build/var/v5 build/var/va3; do for s in "2048 2056 1032" "129 127 255" "1 1 1" "64 72 8"; do
  echo -n "$v $s: "; timeout 20 ./$v $s --check --dtype fp16 --beta 0.5 | grep -iE "pass|fail|error" | head -2 | cut -c1-60 | tr '\n' ' '; echo; done; done
for r in 1 2; do for v in $V; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done; done; done
for t in memcheck racecheck synccheck; do echo -n "w4 $t: "; timeout 120 compute-sanitizer --tool $t ./build/var/v4 136 264 72 --check --reps 1 --warmup 0 2>&1 | grep -E "SUMMARY|Hazard|pass|fail" | head -3 | tr '\n' ' '; echo; done
echo -n "w4 scalar racecheck: "; timeout 120 compute-sanitizer --tool racecheck ./build/var/v4 130 65 17 --check --reps 1 --warmup 0 2>&1 | grep -E "SUMMARY|Hazard|pass|fail" | head -3 | tr '\n' ' '; echo
