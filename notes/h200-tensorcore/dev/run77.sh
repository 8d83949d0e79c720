#!/bin/bash
# run 77: step 09 as shipped after run 76 (3-stage ring, barrier halfway, staged epilogue, tuned
# 256x128x64): bench rows, GPU tests of 09, sweep rows, ncu bank conflicts padded vs -DPAD=0, SASS counts
export PYTHONUNBUFFERED=1
C=$1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
make -j16 all build/selftest 2>&1 | grep -E "error|09_tensor"
GEMM_COMMIT="$C" timeout 90 python3 scripts/bench.py --steps 09 --check-up-to 4096 4096 4095x4097x4095 8192 2>&1 | tail -7
STEPS=09_tensorcore timeout 240 python3 scripts/test.py > $OUT/run77_test09.log 2>&1; echo "test rc=$?"
grep -E "^(FAIL|SKIP)|passed" $OUT/run77_test09.log | cut -c1-250
GEMM_COMMIT="$C" timeout 150 python3 scripts/bench.py --run sweep --steps 09 --check-up-to 2048 128 256 384 512 768 1024 1536 2048 3072 4096 6144 8192 2>&1 | tail -14
cp results/NVIDIA_H200.csv $OUT/
make sass N=9 > $OUT/run77_sass09.log 2>&1; grep -E "HMMA|LDSM|BAR|STG|STS|LDG" $OUT/run77_sass09.log | head -20
F=$(grep -v '^#' 09_tensorcore/tuned/NVIDIA_H200.flags)
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"09_tensorcore\" $F -DPAD=0 09_tensorcore/gemm.cu $OBJS -o build/var/pad0 -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm
M=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed
for v in 09_tensorcore/gemm build/var/pad0; do echo "== ncu $v"
  timeout 90 ncu --clock-control none -k regex:gemm_kernel -c 1 --metrics $M ./$v 4096 --reps 1 --warmup 0 --no-check 2>&1 | grep -E "l1tex__|gpu__time|sm__pipe" | awk '{print $1, $(NF-1), $NF}'; done
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader
