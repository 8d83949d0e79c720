#!/bin/bash
# run 53: on top of the fast producer path (run 52): BK = 128, .cg copies, L2 prefetch hints, setmaxnreg (sm_90a)
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o > /dev/null 2>&1
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1 arch=$2 src=$3; shift 3
  nvcc -O3 -std=c++17 -lineinfo -Icommon $arch -DSTEP_NAME=\"10_double_buffer\" -DWM=64 -DWN=64 -DLEAN=99 -DFAST "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
S=.dev/s6/10rs.cu
A90="-arch=sm_90"; A90A="-gencode=arch=compute_90a,code=sm_90a"
T="-DBM=256 -DBN=128 -DPRODUCER_WARPS=4 -DMIN_BLOCKS=1"
b f $A90 $S $T -DBK=64 -DSTAGES=2 &
b fk128 $A90 $S $T -DBK=128 -DSTAGES=2 &
b fcg $A90 $S $T -DBK=64 -DSTAGES=2 '-DCP_KIND="cg"' &
b fcgh $A90 $S $T -DBK=64 -DSTAGES=2 '-DCP_KIND="cg"' '-DCP_HINT=".L2::128B"' &
b fcg3 $A90 $S $T -DBK=64 -DSTAGES=3 '-DCP_KIND="cg"' &
b fh $A90 $S $T -DBK=64 -DSTAGES=2 '-DCP_HINT=".L2::128B"' &
b rs232 "$A90A" $S $T -DBK=64 -DSTAGES=2 -DREGSPLIT -DPRODUCER_REGS=40 -DCONSUMER_REGS=232 &
b rs232s3 "$A90A" $S $T -DBK=64 -DSTAGES=3 -DREGSPLIT -DPRODUCER_REGS=40 -DCONSUMER_REGS=232 &
b rs224 "$A90A" $S $T -DBK=64 -DSTAGES=2 -DREGSPLIT -DPRODUCER_REGS=56 -DCONSUMER_REGS=224 &
wait
V="build/var/f build/var/fk128 build/var/fcg build/var/fcgh build/var/fcg3 build/var/fh build/var/rs232 build/var/rs232s3 build/var/rs224"
for v in $V; do for s in "2048 2056 1032" "300 264 1000"; do echo -n "$v $s: "; timeout 20 ./$v $s --check --dtype bf16 --beta 0.5 | grep -iE "pass|fail|error" | head -2 | cut -c1-60 | tr '\n' ' '; echo; done; done
for r in 1 2; do for v in $V; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done; done; done
