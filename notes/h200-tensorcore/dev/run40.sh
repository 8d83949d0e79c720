#!/bin/bash
# run 40: warp-specialized step 10: the producer signals with wait_group + arrive (WAITGROUP) against cp.async.mbarrier.arrive.noinc; stages; strips
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
b w3 $S $W -DPRODUCER_WARPS=4 -DWAITGROUP=1 -DSTAGES=3 &
b w4 $S $W -DPRODUCER_WARPS=4 -DWAITGROUP=1 &
b w5 $S $W -DPRODUCER_WARPS=4 -DWAITGROUP=1 -DSTAGES=5 &
b w4g $S $W -DPRODUCER_WARPS=4 -DWAITGROUP=1 -DGROUP=16 &
b e4g $S $W -DPRODUCER_WARPS=4 -DGROUP=16 &
b wt4 $S -DBM=256 -DBN=128 -DMIN_BLOCKS=1 -DEARLY_ARRIVE=1 -DBK=32 -DSTAGES=4 -DPRODUCER_WARPS=4 -DWAITGROUP=1 &
wait
V="build/var/e build/var/w3 build/var/w4 build/var/w5 build/var/w4g build/var/e4g build/var/wt4"
for v in build/var/w3 build/var/w4 build/var/w5 build/var/w4g build/var/wt4; do for s in "2048 2056 1032" "129 127 255" "1 1 1" "64 72 8"; do
  echo -n "$v $s: "; timeout 20 ./$v $s --check --dtype fp16 --beta 0.5 | grep -iE "pass|fail|error" | head -2 | cut -c1-60 | tr '\n' ' '; echo; done; done
for r in 1 2; do for v in $V; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done; done; done
for t in memcheck racecheck synccheck; do echo -n "w4 $t: "; timeout 120 compute-sanitizer --tool $t ./build/var/w4 136 264 72 --check --reps 1 --warmup 0 2>&1 | grep -E "ERROR SUMMARY|Hazard|pass|fail" | head -3 | tr '\n' ' '; echo; done
echo -n "w4 scalar racecheck: "; timeout 120 compute-sanitizer --tool racecheck ./build/var/w4 130 65 17 --check --reps 1 --warmup 0 2>&1 | grep -E "ERROR SUMMARY|Hazard|pass|fail" | head -3 | tr '\n' ' '; echo
