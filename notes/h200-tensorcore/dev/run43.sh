#!/bin/bash
# run 43: step 10 with every consumer thread arriving on empty[]: GPU tests of 10 (racecheck), bench rows
export PYTHONUNBUFFERED=1
C=$1
make -j16 all build/selftest > /dev/null 2>&1
make -j16 10_double_buffer/gemm 2>&1 | grep -E "error|built"
for d in fp16 bf16; do ./10_double_buffer/gemm 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done
STEPS=10_double_buffer timeout 200 python3 scripts/test.py > $OUT/test10.log 2>&1; echo "test rc=$?"
grep -E "^(FAIL|SKIP)|passed" $OUT/test10.log | cut -c1-250
timeout 60 compute-sanitizer --tool racecheck ./10_double_buffer/gemm 300 264 1000 --check --reps 1 --warmup 0 2>&1 | grep -E "SUMMARY|pass|fail" | tr '\n' ' '; echo
GEMM_COMMIT="$C" timeout 60 python3 scripts/bench.py --steps 10 --check-up-to 4096 4096 2>&1 | tail -3
GEMM_COMMIT="$C" timeout 90 python3 scripts/bench.py --steps 10 --check-up-to 0 8192 2>&1 | tail -3
cp results/NVIDIA_H200.csv $OUT/
