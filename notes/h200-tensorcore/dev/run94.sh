#!/bin/bash
# run 94: step 10 (2810499) with the slice loop unrolled over the ring (-DUNROLL_RING: every stage's
# shared-memory offsets become constants), at BK = 64 and BK = 32, .ca or .cg (CP_CG); beside the shipped kernel
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10u\" -DWM=64 -DWN=64 -DMIN_BLOCKS=1 -DUNROLL_RING "$@" .dev/s9/10u.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
b u1 -DBM=256 -DBN=128 -DBK=64 -DSTAGES=3 &
b u2 -DBM=128 -DBN=256 -DBK=64 -DSTAGES=3 &
b u3 -DBM=128 -DBN=256 -DBK=32 -DSTAGES=6 -DCP_CG &
b u4 -DBM=128 -DBN=256 -DBK=32 -DSTAGES=6 &
b u5 -DBM=256 -DBN=128 -DBK=32 -DSTAGES=6 -DCP_CG &
b u6 -DBM=128 -DBN=256 -DBK=32 -DSTAGES=4 -DCP_CG &
b u7 -DBM=256 -DBN=128 -DBK=64 -DSTAGES=4 -DCP_CG &
wait
V="u1 u2 u3 u4 u5 u6 u7"
for v in $V; do echo -n "$v: "; timeout 30 ./build/var/$v --shapes 2048x2056x1032,300x264x1000,129x127x1000,1x1x1,17x9x40 --check --beta 0.5 --dtype bf16 2>&1 | grep -ciE "pass"; done 2>&1 | tee $OUT/run94.txt
for r in 1 2; do for v in 10_double_buffer/gemm $(for x in $V; do echo build/var/$x; done); do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done 2>&1 | tee -a $OUT/run94.txt
