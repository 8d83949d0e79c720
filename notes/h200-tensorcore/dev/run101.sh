#!/bin/bash
# run 101: a fourth stage that fits: rows unpadded and XOR-swizzled (chunk c of row r at c ^ (r % 8)), so that
# 4 stages of 256 x 128 x 64 take 192 KiB and leave L1 60 KiB. .dev/s10/10s.cu = 10_double_buffer/gemm.cu + -DSWIZZLE.
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10s\" -DBK=64 -DWM=64 -DWN=64 -DMIN_BLOCKS=1 "$@" .dev/s10/10s.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|registers|spill" | sort | uniq -c | sed "s/^/$out: /"; }
SW="-DSWIZZLE=1 -DPAD=0"
b p3 -DBM=256 -DBN=128 -DSTAGES=3 & b w3 -DBM=256 -DBN=128 -DSTAGES=3 $SW & b w4 -DBM=256 -DBN=128 -DSTAGES=4 $SW &
b v4 -DBM=128 -DBN=256 -DSTAGES=4 $SW & b q3 -DBM=128 -DBN=128 -DSTAGES=3 $SW & b q2 -DBM=128 -DBN=128 -DSTAGES=2 $SW & wait
V="p3 w3 w4 v4 q3 q2"
for v in $V; do echo -n "$v: "; timeout 30 ./build/var/$v --shapes 2048x2056x1032,300x264x1000,129x127x1000,1x1x1,17x9x40 --check --beta 0.5 --dtype bf16 2>&1 | grep -ciE "pass"; done 2>&1 | tee $OUT/run101.txt
for r in 1 2; do for v in $V; do for d in fp16 bf16; do
  echo -n "$v "; ./build/var/$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done 2>&1 | tee -a $OUT/run101.txt
NCU=$(which ncu || echo $CUDA/bin/ncu)
for v in w3 w4 q3; do echo "== $v"; $NCU --clock-control none -k regex:gemm_kernel -c 1 --metrics launch__shared_mem_config_size,gpu__time_duration.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active ./build/var/$v 4096 --reps 1 --warmup 0 --no-check 2>&1 | grep -E "launch__|gpu__time|l1tex__|smsp__|sm__"; done 2>&1 | tee -a $OUT/run101.txt
