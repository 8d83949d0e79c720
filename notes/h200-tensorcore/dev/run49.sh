#!/bin/bash
# run 49: step 10 with setmaxnreg (sm_90a): producers keep PRODUCER_REGS, consumers get CONSUMER_REGS;
# the producer's copies written lean (one base pointer per tile, chunk i = i * STEP rows below) so it fits
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o > /dev/null 2>&1
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1 src=$2; shift 2
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10_double_buffer\" -DWM=64 -DWN=64 -DMIN_BLOCKS=1 -DPRODUCER_WARPS=4 "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"
  echo "$out max reg: $(cuobjdump -sass build/var/$out | grep -oE '\bR[0-9]+\b' | tr -d R | sort -n | tail -1)"; }
S=.dev/s6/10rs.cu
RS56="-DREGSPLIT -DPRODUCER_REGS=56 -DCONSUMER_REGS=224 -DLEAN=99"
RS40="-DREGSPLIT -DPRODUCER_REGS=40 -DCONSUMER_REGS=232 -DLEAN=99"
b lean $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=2 -DLEAN=99 &
b rs56 $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=2 $RS56 &
b rs40 $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=2 $RS40 &
b rs56s3 $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=3 $RS56 &
b rs56b $S -DBM=128 -DBN=256 -DBK=64 -DSTAGES=2 $RS56 &
b rs56c $S -DBM=128 -DBN=256 -DBK=32 -DSTAGES=4 $RS56 &
b rs56d $S -DBM=256 -DBN=128 -DBK=32 -DSTAGES=4 $RS56 &
wait
V="10_double_buffer/gemm build/var/lean build/var/rs56 build/var/rs40 build/var/rs56s3 build/var/rs56b build/var/rs56c build/var/rs56d"
for v in $V; do for s in "2048 2056 1032" "129 127 255" "300 264 1000" "1 1 1"; do
  echo -n "$v $s: "; timeout 20 ./$v $s --check --dtype bf16 --beta 0.5 | grep -iE "pass|fail|error" | head -2 | cut -c1-60 | tr '\n' ' '; echo; done; done
for r in 1 2; do for v in $V; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done; done; done
echo -n "rs56 racecheck: "; timeout 100 compute-sanitizer --tool racecheck ./build/var/rs56 300 264 200 --check --reps 1 --warmup 0 2>&1 | grep -E "SUMMARY|pass|fail" | head -3 | tr '\n' ' '; echo
