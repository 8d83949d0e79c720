#!/bin/bash
# run 93: full make test at f5723ad (step 10's multistage kernel with its tuned flags); shapes rows for step 10
export PYTHONUNBUFFERED=1
C=$1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
timeout 330 make test > $OUT/run93_make_test.log 2>&1; echo "make test rc=$?"
grep -E "^(FAIL|SKIP)|passed" $OUT/run93_make_test.log | cut -c1-250
GEMM_COMMIT="$C" timeout 150 python3 scripts/bench.py --run shapes --steps 10 --check-up-to 4096 1x8192x8192 16x8192x8192 64x8192x8192 256x8192x8192 4096x8192x8192 8192x1x8192 8192x16x8192 8192x64x8192 8192x256x8192 2>&1 | tail -20
cp results/NVIDIA_H200.csv $OUT/
