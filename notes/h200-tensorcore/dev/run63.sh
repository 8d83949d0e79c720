#!/bin/bash
# run 63: step 10 with the staged epilogue: bench rows, GPU tests of 10, sweep and shape rows
export PYTHONUNBUFFERED=1
C=$1
make -j16 all build/selftest 2>&1 | grep -E "error|10_double"
GEMM_COMMIT="$C" timeout 90 python3 scripts/bench.py --steps 10 --check-up-to 4096 4096 4095x4097x4095 8192 2>&1 | tail -7
STEPS=10_double_buffer timeout 240 python3 scripts/test.py > $OUT/test10.log 2>&1; echo "test rc=$?"
grep -E "^(FAIL|SKIP)|passed" $OUT/test10.log | cut -c1-250
GEMM_COMMIT="$C" timeout 200 python3 scripts/bench.py --run sweep --steps 10 --check-up-to 2048 128 256 384 512 768 1024 1536 2048 3072 4096 6144 8192 2>&1 | tail -14
GEMM_COMMIT="$C" timeout 120 python3 scripts/bench.py --run shapes --steps 10 --check-up-to 4096 1x8192x8192 16x8192x8192 64x8192x8192 256x8192x8192 4096x8192x8192 8192x1x8192 8192x16x8192 8192x64x8192 8192x256x8192 2>&1 | tail -11
cp results/NVIDIA_H200.csv $OUT/
make sass N=10 > $OUT/sass10.log 2>&1
