#!/bin/bash
# run 96: where the barrier and the refill sit in step 10 (.dev/s9/10b.cu = 10_double_buffer/gemm.cu at fd5c949
# with BAR_STEP, BAR_SPLIT (mma rows before the barrier), ISSUE_STEP; defaults compile to the shipped PTX)
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10b\" -DBM=256 -DBN=128 -DBK=64 -DWM=64 -DWN=64 -DMIN_BLOCKS=1 -DSTAGES=3 "$@" .dev/s9/10b.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
b q1 -DBAR_SPLIT=3 &
b q2 -DBAR_SPLIT=1 &
b q3 -DBAR_STEP=3 &
b q4 -DBAR_STEP=3 -DBAR_SPLIT=3 &
b q5 -DISSUE_STEP=1 &
wait
V="q1 q2 q3 q4 q5"
for v in $V; do echo -n "$v: "; timeout 30 ./build/var/$v --shapes 2048x2056x1032,300x264x1000,129x127x1000,1x1x1,17x9x40 --check --beta 0.5 --dtype bf16 2>&1 | grep -ciE "pass"; done 2>&1 | tee $OUT/run96.txt
for r in 1 2; do for v in 10_double_buffer/gemm $(for x in $V; do echo build/var/$x; done); do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done 2>&1 | tee -a $OUT/run96.txt
