#!/bin/bash
# run 89: CUTLASS's schedule in our code (.dev/s9/10m.cu, from 10_double_buffer/gemm.cu): no roles, all 8 warps copy
# and multiply; one barrier per slice in the second-to-last k16 step, after the last fragments' ldmatrix;
# refill issued at step 0 into the stage read in the previous slice; fragments double-buffered across steps
# and slices; .ca or .cg.L2::128B (CP_CG); beside the shipped step 10
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10m\" -DWM=64 -DWN=64 -DMIN_BLOCKS=1 "$@" .dev/s9/10m.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores|registers" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
b m1 -DBM=128 -DBN=256 -DBK=32 -DSTAGES=6 -DCP_CG=0 &
b m2 -DBM=128 -DBN=256 -DBK=32 -DSTAGES=6 -DCP_CG=1 &
b m3 -DBM=256 -DBN=128 -DBK=32 -DSTAGES=6 -DCP_CG=0 &
b m4 -DBM=256 -DBN=128 -DBK=32 -DSTAGES=6 -DCP_CG=1 &
b m5 -DBM=128 -DBN=256 -DBK=32 -DSTAGES=4 -DCP_CG=1 &
b m6 -DBM=256 -DBN=128 -DBK=64 -DSTAGES=3 -DCP_CG=1 &
b m7 -DBM=128 -DBN=256 -DBK=64 -DSTAGES=3 -DCP_CG=0 &
b m8 -DBM=128 -DBN=256 -DBK=32 -DSTAGES=8 -DCP_CG=1 &
wait
V="m1 m2 m3 m4 m5 m6 m7 m8"
for v in $V; do echo -n "$v: "; timeout 60 ./build/var/$v --shapes 2048x2056x1032,300x264x1000,129x127x1000,1x1x1,17x9x40 --check --beta 0.5 --dtype bf16 2>&1 | grep -ciE "pass"; done
for r in 1 2; do for v in 10_double_buffer/gemm $(for x in $V; do echo build/var/$x; done); do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done 2>&1 | tee $OUT/run89.txt
