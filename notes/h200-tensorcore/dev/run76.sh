#!/bin/bash
# run 76: step 09 with the 3-stage ring, the barrier halfway through the slice and the staged
# epilogue (working tree after run 75): make autotune N=9, then the winner with the barrier after
# other k16 steps (BARKK: a copy of gemm.cu with the barrier's condition replaced)
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
timeout 400 make autotune N=9 > $OUT/run76_autotune09.log 2>&1; echo "autotune rc=$?"
grep -B2 -A14 "^ *rank" $OUT/run76_autotune09.log | head -24; tail -3 $OUT/run76_autotune09.log
cp 09_tensorcore/tuned/NVIDIA_H200.flags 09_tensorcore/tuned/NVIDIA_H200.ranking.csv $OUT/
F=$(grep -v '^#' 09_tensorcore/tuned/NVIDIA_H200.flags)
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
make -j16 09_tensorcore/gemm $OBJS 2>&1 | grep -E "error|built"
mkdir -p build/var
sed 's/if (kk + MMA_K == BK \/ 2) __syncthreads();/if (kk == BARKK * MMA_K) __syncthreads();/' 09_tensorcore/gemm.cu > build/var/09b.cu
grep -c BARKK build/var/09b.cu
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"09_tensorcore\" "$@" build/var/09b.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
KS="0 1 2 3"; echo "$F" | grep -q "BK=32" && KS="0 1"
for k in $KS; do b b$k $F -DBARKK=$k & done; wait
SH=1x1x1,33x7x129,129x127x1000,257x256x260,2048x2056x1032,300x264x1000,130x136x72
for v in $(for k in $KS; do echo b$k; done); do echo -n "$v: "; timeout 60 ./build/var/$v --shapes $SH --check --beta 0.5 --dtype bf16 2>&1 | grep -ciE "pass"; done
for r in 1 2; do for v in 09_tensorcore/gemm build/var/b0 build/var/b1 build/var/b2 build/var/b3; do for d in fp16 bf16; do
  [ -x ./$v ] || continue; echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader
