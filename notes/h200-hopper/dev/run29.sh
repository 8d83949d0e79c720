#!/bin/bash
# run 29: step 12 with clusters of 2 CTAs along M, B multicast by TMA (each CTA loads half of the B boxes
# for both): correctness, memcheck/racecheck, speed against the shipped 12 in the same run
export PYTHONUNBUFFERED=1
make -j16 build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 12_warp_specialize/gemm > /dev/null 2>&1
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
for v in "" _b _c; do nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"12_warp_specialize\" .dev/var/12_cluster$v.cu $OBJS -o build/var/12c$v -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm 2>&1 | grep -E "error"; done
nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"12_warp_specialize\" -DCLUSTER=1 .dev/var/12_cluster_c.cu $OBJS -o build/var/12c1 -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm 2>&1 | grep -E "error"
for d in fp16 bf16; do timeout 60 build/var/12c_c --shapes 64x256x64,136x264x72,8x8x8,1000x1000x1000,2056x2056x136,17000x8x8,4096x4096x512,384x512x128 --reps 0 --dtype $d --alpha -1.5 --beta 0.5 2>&1 | grep -E "check|rror|clusters" | cut -c1-90; done
for r in 1 2; do for v in 12_warp_specialize/gemm build/var/12c build/var/12c_b build/var/12c_c build/var/12c1; do for n in 4096; do for d in fp16 bf16; do
  echo -n "$v "; timeout 30 ./$v $n --cublas --no-check --csv --dtype $d 2>/dev/null | tail -1 | cut -d, -f2,3,11,15,16; done; done; done; done
