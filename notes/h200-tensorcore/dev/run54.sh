#!/bin/bash
# run 54: step 10 with the whole-slice copy path and setmaxnreg (sm_90a): make autotune N=10, GPU tests of 10, bench rows, sass
export PYTHONUNBUFFERED=1
C=$1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -j16 all build/selftest 2>&1 | grep -E "error|10_double" | head
timeout 330 make autotune N=10 > $OUT/autotune10.log 2>&1; echo "autotune rc=$?"
grep -B2 -A14 "^ *rank" $OUT/autotune10.log | head -24; tail -3 $OUT/autotune10.log
cp 10_double_buffer/tuned/NVIDIA_H200.flags 10_double_buffer/tuned/NVIDIA_H200.ranking.csv $OUT/
make -j16 10_double_buffer/gemm 2>&1 | grep -E "error|built"
cp 10_double_buffer/ptxas.txt $OUT/ptxas10.txt
for d in fp16 bf16; do ./10_double_buffer/gemm 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done
STEPS=10_double_buffer timeout 200 python3 scripts/test.py > $OUT/test10.log 2>&1; echo "test rc=$?"
grep -E "^(FAIL|SKIP)|passed" $OUT/test10.log | cut -c1-250
GEMM_COMMIT="$C+H200.flags" timeout 60 python3 scripts/bench.py --steps 10 --check-up-to 4096 4096 4095x4097x4095 2>&1 | tail -4
GEMM_COMMIT="$C+H200.flags" timeout 90 python3 scripts/bench.py --steps 10 --check-up-to 0 8192 2>&1 | tail -3
make sass N=10 > $OUT/sass10.log 2>&1; tail -6 $OUT/sass10.log
cp results/NVIDIA_H200.csv $OUT/
