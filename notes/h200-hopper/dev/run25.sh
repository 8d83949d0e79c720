#!/bin/bash
# run 25: first run of step 12 (correctness, speed), then the full make test at this commit, sass of 11/12
export GEMM_COMMIT=$1 PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
make -j16 all build/selftest 2>&1 | grep -E "error|built 1[12]"
for d in fp16 bf16; do timeout 30 ./12_warp_specialize/gemm --shapes 64x256x64,128x256x64,256x512x1024,129x257x72,1000x1000x1000,33x7x129,4096x4096x512,136x264x72,8x8x8 --reps 0 --dtype $d --alpha -1.5 --beta 0.5 2>&1 | tail -10; echo "rc=$?"; done
for i in 1 2; do for d in fp16 bf16; do for n in 4096 8192; do timeout 30 ./12_warp_specialize/gemm $n --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f1,2,3,11,15,16,17; done; done; done
for d in fp16 bf16; do timeout 30 ./11_wgmma_tma/gemm 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f1,2,3,11,15,16,17; done
timeout 420 make test > $OUT/make_test.log 2>&1; echo "make test rc=$?"
grep -E "^(FAIL|SKIP)|passed" $OUT/make_test.log | cut -c1-300
(make sass N=11; make sass N=12) > $OUT/sass.log 2>&1; tail -12 $OUT/sass.log
