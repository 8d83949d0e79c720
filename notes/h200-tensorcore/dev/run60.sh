#!/bin/bash
# run 60: step 09 built for sm_90a (the Makefile's target on Hopper since c9f0d6b): bench at 4096^3
export PYTHONUNBUFFERED=1
C=$1
make -j16 all 2>&1 | grep -E "error|09_tensor"
GEMM_COMMIT="$C" timeout 60 python3 scripts/bench.py --steps 09 --check-up-to 4096 4096 2>&1 | tail -3
cp results/NVIDIA_H200.csv $OUT/
