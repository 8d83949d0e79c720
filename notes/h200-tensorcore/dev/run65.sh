#!/bin/bash
# run 65: same-process A/B: HEAD (14ec9a4) against V1 (the tile origin computed inside each role,
# after setmaxnreg) and run 62's variant (se), to find run 64's remaining 0.8%
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1; local src=$2; shift; shift
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10_double_buffer\" $(grep -v '^#' 10_double_buffer/tuned/NVIDIA_H200.flags) "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
b se .dev/s7/10p.cu -DSMEM_EPI &
b v1 .dev/s7/10v1.cu -DV1 &
wait
for r in 1 2 3; do for v in 10_double_buffer/gemm build/var/v1 build/var/se; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done
cuobjdump -sass 10_double_buffer/gemm > /tmp/head.sass; cuobjdump -sass build/var/v1 > /tmp/v1.sass; cuobjdump -sass build/var/se > /tmp/se.sass
for f in head v1 se; do echo -n "$f: "; grep -c "" /tmp/$f.sass | tr '\n' ' '; grep -cE "LDGSTS" /tmp/$f.sass | tr '\n' ' '; grep -cE "IMAD|IADD" /tmp/$f.sass; done
cp /tmp/head.sass /tmp/v1.sass /tmp/se.sass $OUT/
