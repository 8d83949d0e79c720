#!/bin/bash
# run 56: step 10 after copy8's index went back to int: GPU tests of 10, bench rows
export PYTHONUNBUFFERED=1
C=$1
make -j16 all build/selftest 2>&1 | grep -E "error|10_double"
GEMM_COMMIT="$C" timeout 80 python3 scripts/bench.py --steps 10 --check-up-to 4096 4096 4095x4097x4095 2>&1 | tail -5
STEPS=10_double_buffer timeout 200 python3 scripts/test.py > $OUT/test10.log 2>&1; echo "test rc=$?"
grep -E "^(FAIL|SKIP)|passed" $OUT/test10.log | cut -c1-250
cp results/NVIDIA_H200.csv $OUT/
