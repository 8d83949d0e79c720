#!/bin/bash
# run 92: step 10 rewritten (CUTLASS's schedule, no roles): make autotune N=10, then bench rows, GPU tests of 10,
# sweep and shapes rows for 10, make sass N=10, make profile N=10
export PYTHONUNBUFFERED=1
C=$1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
make -j16 build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o > /dev/null 2>&1
timeout 330 make autotune N=10 > $OUT/run92_autotune10.log 2>&1; echo "autotune rc=$?"
tail -4 $OUT/run92_autotune10.log; head -6 10_double_buffer/tuned/NVIDIA_H200.ranking.csv
cp 10_double_buffer/tuned/NVIDIA_H200.flags 10_double_buffer/tuned/NVIDIA_H200.ranking.csv $OUT/
make -j16 all build/selftest 2>&1 | grep -E "error|10_double"
GEMM_COMMIT="$C+H200.flags" timeout 90 python3 scripts/bench.py --steps 10 --check-up-to 4096 4096 4095x4097x4095 8192 2>&1 | tail -7
STEPS=10_double_buffer timeout 200 python3 scripts/test.py > $OUT/run92_test10.log 2>&1; echo "test rc=$?"
grep -E "^(FAIL|SKIP)|passed" $OUT/run92_test10.log | cut -c1-250
GEMM_COMMIT="$C+H200.flags" timeout 60 python3 scripts/bench.py --run sweep --steps 10 --check-up-to 2048 128 256 384 512 768 1024 1536 2048 3072 4096 6144 8192 2>&1 | tail -13
cp results/NVIDIA_H200.csv $OUT/
make sass N=10 > $OUT/run92_sass10.log 2>&1; grep -E "HMMA|LDSM|BAR|STG|LDGSTS|LDGDEPBAR|DEPBAR" $OUT/run92_sass10.log | head -20
timeout 60 make profile N=10 > $OUT/run92_profile10.log 2>&1; tail -25 $OUT/run92_profile10.log
