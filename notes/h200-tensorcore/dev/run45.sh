#!/bin/bash
# run 45: step 10 without producer warps: all 8 warps copy (cp.async.mbarrier.arrive.noinc on full[]) and multiply,
# meeting only at mbarriers; 255 registers allow carrying the next slice's first fragments (PREFETCH)
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o > /dev/null 2>&1
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1 src=$2; shift 2
  nvcc -O3 -std=c++17 -lineinfo -Icommon -arch=sm_90 -DSTEP_NAME=\"10_double_buffer\" -DWM=64 -DWN=64 -DMIN_BLOCKS=1 "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
S=.dev/var/10_allcopy.cu
b ac3 $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=3 &
b ac3p $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=3 -DPREFETCH=1 &
b ac4 $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=4 &
b bc4 $S -DBM=128 -DBN=256 -DBK=32 -DSTAGES=4 &
b bc4p $S -DBM=128 -DBN=256 -DBK=32 -DSTAGES=4 -DPREFETCH=1 &
b bc5p $S -DBM=128 -DBN=256 -DBK=32 -DSTAGES=5 -DPREFETCH=1 &
b bc3p $S -DBM=128 -DBN=256 -DBK=32 -DSTAGES=3 -DPREFETCH=1 &
wait
V="10_double_buffer/gemm build/var/ac3 build/var/ac3p build/var/ac4 build/var/bc4 build/var/bc4p build/var/bc5p build/var/bc3p"
for v in $V; do for s in "2048 2056 1032" "129 127 255" "300 264 1000" "1 1 1"; do
  echo -n "$v $s: "; timeout 20 ./$v $s --check --dtype bf16 --beta 0.5 | grep -iE "pass|fail|error" | head -2 | cut -c1-60 | tr '\n' ' '; echo; done; done
for r in 1 2; do for v in $V; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done; done; done
echo -n "bc4p racecheck: "; timeout 100 compute-sanitizer --tool racecheck ./build/var/bc4p 300 264 200 --check --reps 1 --warmup 0 2>&1 | grep -E "SUMMARY|pass|fail" | head -3 | tr '\n' ' '; echo
