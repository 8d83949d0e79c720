#!/bin/bash
# run 95: ablation of step 10's schedule (.dev/s9/10a.cu = 10_double_buffer/gemm.cu at e44c8fa with ABL switches;
# ABL=0 compiles to the shipped PTX): ABL=1 refills after the barrier (step 09's place, wait_group STAGES - 3),
# ABL=2 has one fragment set (each step loads its own; the barrier between the last step's ldmatrix and its mma)
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10a\" -DBM=256 -DBN=128 -DBK=64 -DWM=64 -DWN=64 -DMIN_BLOCKS=1 "$@" .dev/s9/10a.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
b a1 -DABL=1 -DSTAGES=3 &
b a4 -DABL=1 -DSTAGES=4 &
b a2 -DABL=2 -DSTAGES=3 &
wait
V="a1 a4 a2"
for v in $V; do echo -n "$v: "; timeout 30 ./build/var/$v --shapes 2048x2056x1032,300x264x1000,129x127x1000,1x1x1,17x9x40 --check --beta 0.5 --dtype bf16 2>&1 | grep -ciE "pass"; done 2>&1 | tee $OUT/run95.txt
for r in 1 2; do for v in 10_double_buffer/gemm $(for x in $V; do echo build/var/$x; done); do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done 2>&1 | tee -a $OUT/run95.txt
