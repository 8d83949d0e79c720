#!/bin/bash
# run 42: the warp-specialized step 10: make autotune N=10 (new space with PRODUCER_WARPS), GPU tests of 10, bench rows
export PYTHONUNBUFFERED=1
C=$1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -j16 all build/selftest > /dev/null 2>&1
timeout 330 make autotune N=10 > $OUT/autotune10.log 2>&1; echo "autotune rc=$?"
grep -A12 "^rank\|ranked\|winner" $OUT/autotune10.log | head -24; tail -3 $OUT/autotune10.log
cp 10_double_buffer/tuned/NVIDIA_H200.flags 10_double_buffer/tuned/NVIDIA_H200.ranking.csv $OUT/
make -j16 10_double_buffer/gemm 2>&1 | grep -E "error|built"
STEPS=10_double_buffer timeout 150 python3 scripts/test.py > $OUT/test10.log 2>&1; echo "test rc=$?"
grep -E "^(FAIL|SKIP)|passed" $OUT/test10.log | cut -c1-250
GEMM_COMMIT="$C+H200.flags" timeout 60 python3 scripts/bench.py --steps 10 --check-up-to 4096 4096 2>&1 | tail -3
GEMM_COMMIT="$C+H200.flags" timeout 60 python3 scripts/bench.py --steps 10 --check-up-to 0 8192 2>&1 | tail -2
cp results/NVIDIA_H200.csv $OUT/
