#!/bin/bash
# run 69: why the shipped kernel is 8.5% slower than db32f79 at 4096x8192x8192 in fp16 only (run 68):
# SM clock and power while each runs; the fp16 and bf16 kernels' SASS of both
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10_double_buffer\" $(grep -v '^#' 10_double_buffer/tuned/NVIDIA_H200.flags) .dev/s7/10old.cu $OBJS -o build/var/old -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm
for v in build/var/old 10_double_buffer/gemm; do for d in fp16 bf16; do
  nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader -lms 100 > /tmp/smi.txt & P=$!
  echo -n "$v $d: "; timeout 30 ./$v 4096 8192 8192 --no-check --csv --dtype $d --reps 400 | tail -1 | cut -d, -f10,11 | tr '\n' ' '
  kill $P; sort /tmp/smi.txt | awk -F', ' '{c[NR]=$1; p[NR]=$2} END{print "clock samples (MHz, W):", c[int(NR*0.1)+1], c[int(NR/2)], c[NR], p[int(NR/2)], p[NR]}'
done; done
for v in old gemm; do f=build/var/old; [ $v = gemm ] && f=10_double_buffer/gemm; cuobjdump -sass $f > $OUT/$v.sass; done
for v in old gemm; do for k in __half __nv_bfloat16; do echo -n "$v $k: "; awk "/Function : .*gemm_kernelI${k//_/_}/{p=0} /Function :/{p=0} /Function : _Z11gemm_kernelI.*${k}.*Lb1/{p=1} p" $OUT/$v.sass | grep -cE "^\s+/\*[0-9a-f]{4}\*/"; done; done
