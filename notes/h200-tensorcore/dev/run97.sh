#!/bin/bash
# run 97: step 10 as shipped, time against K at 4096 x 4096 (fixed cost and per-K slope), and the same
# with the epilogue skipped (.dev/s10/10n.cu -DNO_EPI = 10_double_buffer/gemm.cu + an early return).
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10n\" $(grep -v '^#' 10_double_buffer/tuned/NVIDIA_H200.flags) "$@" .dev/s10/10n.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|registers" | sort | uniq -c | sed "s/^/$out: /"; }
b same & b noepi -DNO_EPI & wait
for v in same noepi; do echo -n "$v: "; timeout 30 ./build/var/$v --shapes 2048x2056x1032,300x264x1000,129x127x1000,1x1x1,17x9x40 --check --beta 0.5 --dtype bf16 2>&1 | grep -ciE "pass"; done 2>&1 | tee $OUT/run97.txt
S=4096x4096x1024,4096x4096x2048,4096x4096x4096,4096x4096x8192
for r in 1 2; do for v in 10_double_buffer/gemm build/var/same build/var/noepi; do for d in fp16 bf16; do
  ./$v --shapes $S --cublas --no-check --csv --dtype $d | grep -v '^step' | cut -d, -f2,5,10,11,14,15,16 | sed "s|^|$v,|"; done; done; done 2>&1 | tee -a $OUT/run97.txt
