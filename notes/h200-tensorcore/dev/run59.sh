#!/bin/bash
# run 59: step 10's sweep and shape rows again (they were from a253ed8, before its roles)
export PYTHONUNBUFFERED=1
C=$1
make -j16 all 2>&1 | grep -E "error"
GEMM_COMMIT="$C" timeout 200 python3 scripts/bench.py --run sweep --steps 10 --check-up-to 2048 128 256 384 512 768 1024 1536 2048 3072 4096 6144 8192 2>&1 | tail -26
GEMM_COMMIT="$C" timeout 120 python3 scripts/bench.py --run shapes --steps 10 --check-up-to 4096 1x8192x8192 16x8192x8192 64x8192x8192 256x8192x8192 4096x8192x8192 8192x1x8192 8192x16x8192 8192x64x8192 8192x256x8192 2>&1 | tail -20
cp results/NVIDIA_H200.csv $OUT/
