#!/bin/bash
# run 62: where step 10's fixed ~25 us (4096 x 4096 x K: t = 25 us + 70 us per 1024 of K, run 61) goes:
# the epilogue skipped (NOSTORE, beta = 0 only), and C staged through the free ring and written as
# float4 rows (SMEM_EPI); step 09's time against K too.
export PYTHONUNBUFFERED=1
make -j16 09_tensorcore/gemm 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10_double_buffer\" $(grep -v '^#' 10_double_buffer/tuned/NVIDIA_H200.flags) "$@" .dev/s7/10p.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
b se -DSMEM_EPI &
b ns -DNOSTORE &
b sn -DSMEM_EPI -DNOINC &
wait
for v in se sn; do for s in "2048 2056 1032" "300 264 1000" "129 127 255" "17000 8 8" "1000 1000 8" "4100 4100 72"; do for d in fp16 bf16; do echo -n "$v $s $d: "; timeout 30 ./build/var/$v $s --check --dtype $d --beta 0.5 2>&1 | grep -iE "pass|fail|error" | head -2 | cut -c1-70 | tr '\n' ' '; echo; done; done; done
echo -n "se 4096 check: "; timeout 60 ./build/var/se 4096 --check --dtype fp16 2>&1 | grep -iE "pass|fail|error" | head -2 | cut -c1-70 | tr '\n' ' '; echo
for r in 1 2; do for v in 10_double_buffer/gemm build/var/se build/var/sn build/var/ns; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1; done; done; done
for v in 10_double_buffer/gemm build/var/se; do for d in fp16 bf16; do echo -n "$v 8192 "; timeout 30 ./$v 8192 --cublas --no-check --csv --dtype $d | tail -1; done; done
for k in 64 512 4096; do for v in 10_double_buffer/gemm build/var/se build/var/ns 09_tensorcore/gemm; do echo -n "K $k $v "; timeout 20 ./$v 4096 4096 $k --no-check --csv --dtype fp16 | tail -1; done; done
echo -n "se racecheck: "; timeout 120 compute-sanitizer --tool racecheck ./build/var/se 300 264 200 --check --reps 1 --warmup 0 --beta 0.5 2>&1 | grep -E "SUMMARY|pass|fail" | head -3 | tr '\n' ' '; echo
echo -n "se memcheck: "; timeout 120 compute-sanitizer --tool memcheck ./build/var/se 301 263 200 --check --reps 1 --warmup 0 --beta 0.5 2>&1 | grep -E "SUMMARY|pass|fail" | head -3 | tr '\n' ' '; echo
