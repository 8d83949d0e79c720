#!/bin/bash
# run 55: the full make test at the final step-10 code (sm_90a on this GPU), then step 10's bench rows
export PYTHONUNBUFFERED=1
C=$1
make -j16 all build/selftest 2>&1 | grep -E "error|10_double"
timeout 380 make test > $OUT/make_test.log 2>&1; echo "make test rc=$?"
grep -E "^(FAIL|SKIP)|passed" $OUT/make_test.log | cut -c1-300
GEMM_COMMIT="$C" timeout 80 python3 scripts/bench.py --steps 10 --check-up-to 4096 4096 4095x4097x4095 2>&1 | tail -5
cp results/NVIDIA_H200.csv $OUT/
