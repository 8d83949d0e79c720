#!/bin/bash
# run 50: why setmaxnreg made step 10 slower: isolate producer (P56, consumers stay 168) and dump SASS
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o > /dev/null 2>&1
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1 src=$2; shift 2
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10_double_buffer\" -DWM=64 -DWN=64 -DMIN_BLOCKS=1 -DPRODUCER_WARPS=4 "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"
  cuobjdump -sass -fun '_Z11gemm_kernelI6__halfLb1EEviiifPKT_S3_fPf' build/var/$out > $OUT/$out.sass
  echo "$out max reg: $(grep -oE '\bR[0-9]+\b' $OUT/$out.sass | tr -d R | sort -n | tail -1)"; }
S=.dev/s6/10rs.cu
b lean $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=2 -DLEAN=99 &
b lean3 $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=3 -DLEAN=99 &
b rs56 $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=2 -DREGSPLIT -DPRODUCER_REGS=56 -DCONSUMER_REGS=224 -DLEAN=99 &
b p56c168 $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=2 -DREGSPLIT -DPRODUCER_REGS=56 -DCONSUMER_REGS=168 -DLEAN=99 &
b p56c192 $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=2 -DREGSPLIT -DPRODUCER_REGS=56 -DCONSUMER_REGS=192 -DLEAN=99 &
b p88c208 $S -DBM=256 -DBN=128 -DBK=64 -DSTAGES=2 -DREGSPLIT -DPRODUCER_REGS=88 -DCONSUMER_REGS=208 -DLEAN=99 &
wait
V="build/var/lean build/var/lean3 build/var/rs56 build/var/p56c168 build/var/p56c192 build/var/p88c208"
for v in $V; do echo -n "$v 300 264 1000: "; timeout 20 ./$v 300 264 1000 --check --dtype bf16 --beta 0.5 | grep -iE "pass|fail|error" | head -2 | cut -c1-60 | tr '\n' ' '; echo; done
for r in 1 2; do for v in $V; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done; done; done
