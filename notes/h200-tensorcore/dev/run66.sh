#!/bin/bash
# run 66: the full make test at c1acc50 (step 10: staged epilogue, tile origin per role), step 10's
# bench, sweep and shape rows, make sass N=10, and an A/B of streaming (.cs) stores for C
export PYTHONUNBUFFERED=1
C=$1
make -j16 all build/selftest 2>&1 | grep -E "error|10_double"
S=$(date +%s); timeout 420 make test > $OUT/make_test.log 2>&1; echo "make test rc=$? in $(( $(date +%s) - S )) s"
grep -E "^(FAIL|SKIP)|passed" $OUT/make_test.log | cut -c1-300
GEMM_COMMIT="$C" timeout 90 python3 scripts/bench.py --steps 10 --check-up-to 4096 4096 4095x4097x4095 8192 2>&1 | tail -7
GEMM_COMMIT="$C" timeout 200 python3 scripts/bench.py --run sweep --steps 10 --check-up-to 2048 128 256 384 512 768 1024 1536 2048 3072 4096 6144 8192 2>&1 | tail -2
GEMM_COMMIT="$C" timeout 120 python3 scripts/bench.py --run shapes --steps 10 --check-up-to 4096 1x8192x8192 16x8192x8192 64x8192x8192 256x8192x8192 4096x8192x8192 8192x1x8192 8192x16x8192 8192x64x8192 8192x256x8192 2>&1 | tail -2
cp results/NVIDIA_H200.csv $OUT/
make sass N=10 > $OUT/sass10.log 2>&1
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1; local src=$2; shift; shift
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10_double_buffer\" $(grep -v '^#' 10_double_buffer/tuned/NVIDIA_H200.flags) "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
b cs .dev/s7/10cs.cu & b old .dev/s7/10old.cu & wait
echo -n "cs check: "; timeout 30 ./build/var/cs 300 264 1000 --check --beta 0.5 --dtype bf16 | grep -iE "pass|fail" | cut -c1-60
for r in 1 2 3; do for v in build/var/old 10_double_buffer/gemm build/var/cs; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done
timeout 100 make profile N=10 > $OUT/profile10.log 2>&1; grep -A16 "SM throughput" $OUT/profile10.log | head -18
