#!/bin/bash
# run 58: step 10 (db2b981) against the consumers carrying the next slice's first fragments across the
# handoff (PREFETCH, possible with 232 registers), and the copy-free ceiling at the shipped tiles (NOCOPY)
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10_double_buffer\" -DBM=256 -DBN=128 -DBK=64 -DWM=64 -DWN=64 -DSTAGES=2 -DPRODUCER_WARPS=4 -DMIN_BLOCKS=1 -DLEAN=4 -DFAST -DREGSPLIT -DPRODUCER_REGS=40 -DCONSUMER_REGS=232 "$@" .dev/s6/10rs.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
b pf -DPREFETCH &
b nc -DNOCOPY &
b ncpf -DNOCOPY -DPREFETCH &
wait
for s in "2048 2056 1032" "300 264 1000" "129 127 255"; do echo -n "pf $s: "; timeout 20 ./build/var/pf $s --check --dtype bf16 --beta 0.5 | grep -iE "pass|fail|error" | head -2 | cut -c1-60 | tr '\n' ' '; echo; done
for v in 10_double_buffer/gemm build/var/pf build/var/nc build/var/ncpf 10_double_buffer/gemm build/var/pf; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done; done
echo -n "pf racecheck: "; timeout 60 compute-sanitizer --tool racecheck ./build/var/pf 300 264 200 --check --reps 1 --warmup 0 2>&1 | grep -E "SUMMARY|pass|fail" | head -3 | tr '\n' ' '; echo
