#!/bin/bash
# run 61: step 10 variants: persistent grid (PERSIST), cp.async.mbarrier.arrive.noinc (NOINC), both;
# and the shipped kernel's time against K at M = N = 4096 (the per-tile fixed cost).
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10_double_buffer\" $(grep -v '^#' 10_double_buffer/tuned/NVIDIA_H200.flags) "$@" .dev/s7/10p.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
b base &
b pe -DPERSIST &
b ni -DNOINC &
b pn -DPERSIST -DNOINC &
wait
for v in pe ni pn; do for s in "2048 2056 1032" "300 264 1000" "129 127 255" "17000 8 8" "1000 1000 8"; do for d in fp16 bf16; do echo -n "$v $s $d: "; timeout 30 ./build/var/$v $s --check --dtype $d --beta 0.5 2>&1 | grep -iE "pass|fail|error" | head -2 | cut -c1-70 | tr '\n' ' '; echo; done; done; done
for v in pe pn; do echo -n "$v 4096 check: "; timeout 60 ./build/var/$v 4096 --check --dtype bf16 2>&1 | grep -iE "pass|fail|error" | head -2 | cut -c1-70 | tr '\n' ' '; echo; done
./10_double_buffer/gemm 4096 --cublas --no-check --csv --dtype fp16 | head -1
for r in 1 2; do for v in 10_double_buffer/gemm build/var/base build/var/pe build/var/ni build/var/pn; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1; done; done; done
for v in build/var/pe build/var/pn; do for d in fp16 bf16; do echo -n "$v 8192 "; timeout 30 ./$v 8192 --cublas --no-check --csv --dtype $d | tail -1; done; done
for k in 512 1024 2048 4096 8192; do for v in 10_double_buffer/gemm build/var/pn; do echo -n "K $k $v "; timeout 20 ./$v 4096 4096 $k --no-check --csv --dtype fp16 | tail -1; done; done
for v in pn; do echo -n "$v memcheck: "; timeout 120 compute-sanitizer --tool memcheck ./build/var/$v 300 264 200 --check --reps 1 --warmup 0 2>&1 | grep -E "SUMMARY|pass|fail" | head -3 | tr '\n' ' '; echo
echo -n "$v racecheck: "; timeout 120 compute-sanitizer --tool racecheck ./build/var/$v 300 264 200 --check --reps 1 --warmup 0 2>&1 | grep -E "SUMMARY|pass|fail" | head -3 | tr '\n' ' '; echo; done
echo -n "pn 17000x8x8 racecheck: "; timeout 120 compute-sanitizer --tool racecheck ./build/var/pn 17000 8 8 --check --reps 1 --warmup 0 2>&1 | grep -E "SUMMARY|pass|fail" | head -3 | tr '\n' ' '; echo
