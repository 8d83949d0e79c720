#!/bin/bash
# run 35: step 12's GPU tests after the host-side clean-up (SM count from the properties read at the first launch)
export PYTHONUNBUFFERED=1
make -j16 12_warp_specialize/gemm build/selftest 2>&1 | grep -E "error"
STEPS=12_warp_specialize timeout 150 python3 scripts/test.py > $OUT/test12.log 2>&1; echo "test rc=$?"
grep -E "^(FAIL|SKIP)|passed" $OUT/test12.log | cut -c1-250
for d in fp16 bf16; do timeout 20 ./12_warp_specialize/gemm 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done
