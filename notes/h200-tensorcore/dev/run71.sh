#!/bin/bash
# run 71: .cg against .ca for step 10's copies again, now with more stages (.cg may need more bytes in
# flight to hide a longer latency) and per operand (A .cg / B .ca and the reverse)
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
T="-DBM=256 -DBN=128 -DWM=64 -DWN=64 -DPRODUCER_WARPS=4 -DMIN_BLOCKS=1"
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10_double_buffer\" $T "$@" .dev/s7/10cg.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
b ca2 -DBK=64 -DSTAGES=2 &
b cg2 -DBK=64 -DSTAGES=2 -DCP_A=\"cg\" -DCP_B=\"cg\" &
b cg3 -DBK=64 -DSTAGES=3 -DCP_A=\"cg\" -DCP_B=\"cg\" &
b ca3 -DBK=64 -DSTAGES=3 &
b cg4k32 -DBK=32 -DSTAGES=4 -DCP_A=\"cg\" -DCP_B=\"cg\" &
b acg2 -DBK=64 -DSTAGES=2 -DCP_A=\"cg\" &
b bcg2 -DBK=64 -DSTAGES=2 -DCP_B=\"cg\" &
b bcg3 -DBK=64 -DSTAGES=3 -DCP_B=\"cg\" &
wait
for v in cg3 bcg2; do echo -n "$v: "; timeout 30 ./build/var/$v --shapes 1x1x1,33x7x129,129x127x1000,257x256x260,2048x2056x1032 --check --beta 0.5 --dtype bf16 2>&1 | grep -ciE "pass"; done
for r in 1 2; do for v in ca2 cg2 cg3 ca3 cg4k32 acg2 bcg2 bcg3; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./build/var/$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done
