#!/bin/bash
# run 34: clusters of 2 with B multicast (12_cluster_c) against step 12 at 8192^3, three rounds
export PYTHONUNBUFFERED=1
make -j16 build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 12_warp_specialize/gemm > /dev/null 2>&1
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"12_warp_specialize\" .dev/var/12_cluster_c.cu $OBJS -o build/var/12c_c -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm 2>&1 | grep -E "error"
for r in 1 2 3; do for v in 12_warp_specialize/gemm build/var/12c_c; do for d in fp16 bf16; do
  echo -n "$v "; timeout 30 ./$v 8192 --cublas --no-check --csv --dtype $d 2>/dev/null | tail -1 | cut -d, -f2,3,11,15,16; done; done; done
