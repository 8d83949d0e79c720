#!/bin/bash
# run 82: step 10 (6098610) with the second consumer warpgroup started STAGGER cycles late
# (.dev/s8/10s.cu: a clock64 spin before its first wait), so that the two consumer warps of a
# scheduler reach the slice boundaries (wait, first LDSM burst) at different times; 2 and 3 stages
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
F=$(grep -v '^#' 10_double_buffer/tuned/NVIDIA_H200.flags)
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10_double_buffer\" "$@" .dev/s8/10s.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
b s300 $F -DSTAGGER=300 &
b s700 $F -DSTAGGER=700 &
b s1200 $F -DSTAGGER=1200 &
b s2000 $F -DSTAGGER=2000 &
b t0 $F -DSTAGES=3 &
b t1200 $F -DSTAGES=3 -DSTAGGER=1200 &
b t2400 $F -DSTAGES=3 -DSTAGGER=2400 &
wait
V="s300 s700 s1200 s2000 t0 t1200 t2400"
for v in s1200 t1200; do echo -n "$v: "; timeout 60 ./build/var/$v --shapes 33x7x129,129x127x1000,2048x2056x1032,300x264x1000 --check --beta 0.5 --dtype bf16 2>&1 | grep -ciE "pass"; done
for r in 1 2; do for v in 10_double_buffer/gemm $(for x in $V; do echo build/var/$x; done); do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done
