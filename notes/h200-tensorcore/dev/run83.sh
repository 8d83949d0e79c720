#!/bin/bash
# run 83: step 10 (9b7ff46) with session 6's PREFETCH ported (.dev/s8/10p.cu): the consumers load the
# next slice's first k16 fragments before the current slice's last mma (waiting on its full barrier
# earlier), now with 2 and 3 stages of BK = 64
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
F=$(grep -v '^#' 10_double_buffer/tuned/NVIDIA_H200.flags)
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10_double_buffer\" "$@" .dev/s8/10p.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
b p2 $F -DPREFETCH -DSTAGES=2 &
b p3 $F -DPREFETCH -DSTAGES=3 &
b b3 $F -DSTAGES=3 &
wait
V="p2 p3 b3"
for v in $V; do echo -n "$v: "; timeout 60 ./build/var/$v --shapes 2048x2056x1032,300x264x1000,129x127x1000 --check --beta 0.5 --dtype bf16 2>&1 | grep -ciE "pass"; done
for r in 1 2; do for v in 10_double_buffer/gemm $(for x in $V; do echo build/var/$x; done); do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done
