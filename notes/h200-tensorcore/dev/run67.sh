#!/bin/bash
# run 67: where each role computes its tile origin: before the split (H, 14ec9a4), both after setmaxnreg
# (V1, c1acc50: thin shapes -10% in run 66), producer before / consumer after (VC)
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1; local src=$2; shift; shift
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10_double_buffer\" $(grep -v '^#' 10_double_buffer/tuned/NVIDIA_H200.flags) "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
b h .dev/s7/10h.cu & b vc .dev/s7/10vx.cu -DVC & wait
for s in "2048 2056 1032" "300 264 1000" "129 127 255" "17000 8 8"; do echo -n "vc $s: "; timeout 30 ./build/var/vc $s --check --dtype bf16 --beta 0.5 2>&1 | grep -iE "pass|fail|error" | head -1 | cut -c1-60; done
for r in 1 2 3; do for v in build/var/h 10_double_buffer/gemm build/var/vc; do
  for d in fp16 bf16; do echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2-5,11,16; done
  for s in "8192 16 8192" "64 8192 8192" "4095 4097 4095"; do echo -n "$v "; timeout 20 ./$v $s --no-check --csv --dtype fp16 | tail -1 | cut -d, -f2-5,11; done
done; done
