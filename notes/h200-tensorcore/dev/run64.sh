#!/bin/bash
# run 64: same-process A/B: step 10 at db32f79 (store2), HEAD (store4 through shared memory), run 62's variant (se)
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1; local src=$2; shift; shift
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10_double_buffer\" $(grep -v '^#' 10_double_buffer/tuned/NVIDIA_H200.flags) "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
b old .dev/s7/10old.cu &
b se .dev/s7/10p.cu -DSMEM_EPI &
b head 10_double_buffer/gemm.cu &
wait
grep -E "nvcc|NVCCFLAGS" Makefile | head -5
for r in 1 2 3; do for v in 10_double_buffer/gemm build/var/old build/var/se build/var/head; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done
