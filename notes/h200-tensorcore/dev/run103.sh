#!/bin/bash
# run 103: the SM clock while step 10 and cuBLAS run: ncu's sm__cycles_elapsed.avg.per_second for each kernel of one
# harness run (step 10, then cuBLAS), and nvidia-smi sampled every 20 ms through a long run of both at 8192^3.
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc))); NCU=$(which ncu || echo $CUDA/bin/ncu)
for d in fp16 bf16; do
$NCU --clock-control none -c 8 --metrics sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active ./10_double_buffer/gemm 4096 --cublas --reps 2 --warmup 0 --no-check --dtype $d 2>&1 | grep -E "^  [a-zA-Z_].*\(|sm__cycles|gpu__time|sm__pipe" | cut -c1-150
done 2>&1 | tee $OUT/run103.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 20 > $OUT/run103_smi.csv &
P=$!
sleep 0.5; date +%T.%N; ./10_double_buffer/gemm 8192 --cublas --reps 300 --warmup 2 --no-check --dtype bf16 --csv; date +%T.%N
sleep 0.3; kill $P
