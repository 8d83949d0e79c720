#!/bin/bash
# run 48: GPU tests of step 10 after the clean-up commit (drain loop rewritten: PTX changed)
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/selftest 2>&1 | grep -E "error|built"
STEPS=10_double_buffer timeout 150 python3 scripts/test.py > $OUT/test10.log 2>&1; echo "test rc=$?"
grep -E "^(FAIL|SKIP)|passed" $OUT/test10.log | cut -c1-250
for d in fp16 bf16; do ./10_double_buffer/gemm 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done
