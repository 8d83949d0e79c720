#!/bin/bash
# run 113 (session 11): is step 10's main loop short of the ldmatrix + mma.sync ceiling per cycle, or only in clock?
# dev/hmma_clock.cu (run from .dev/s11/): hmma_bench's 64 x 64 warp tiles, 8 warps per SM, no global memory, the SM clock measured
# in the kernel (clock64 / %globaltimer), with hmma_bench's data and with random halves; then ncu's clock and
# tensor pipe for those kernels and for step 10 at 4096^3 (fp16, random inputs as the harness makes them).
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm 2>&1 | grep -E "error|built"
nvcc -O3 -arch=sm_90a -std=c++17 .dev/s11/hmma_clock.cu -o build/hmma_clock
./build/hmma_clock 2>&1 | tee $OUT/run113.txt
CUDA=$(dirname $(dirname $(which nvcc)))
NCU=$(which ncu || echo $CUDA/bin/ncu)
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed_pipe_tensor.sum
$NCU --clock-control none -k regex:kern --launch-skip 1 --launch-count 16 --metrics $M ./build/hmma_clock 2>&1 | grep -E "kern<|__" | sed 's/  */ /g' | tee -a $OUT/run113.txt
for d in fp16 bf16; do $NCU --clock-control none -k regex:gemm_kernel -c 1 --metrics $M ./10_double_buffer/gemm 4096 --reps 1 --warmup 0 --no-check --dtype $d 2>&1 | grep -E "gemm_kernel|__" | sed 's/  */ /g'; done | tee -a $OUT/run113.txt
