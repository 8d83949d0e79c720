#!/bin/bash
# run 98: make shapes as a learner runs it (it picks the fastest FP32 and tensor-core steps from the
# recorded 4096^3 rows: 08 and 12 now), rows into results/.
export PYTHONUNBUFFERED=1
set -o pipefail
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv
make -j16 all 2>&1 | grep -E "error|warning" ; echo "built: $?"
GEMM_COMMIT=$1 make shapes 2>&1 | tee $OUT/run98_shapes.log
cp results/NVIDIA_H200.csv $OUT/
cp README.md $OUT/README.md
