#!/bin/bash
# run 46: which unit of L1TEX bounds steps 09 and 10 (ncu breakdown of l1tex__throughput), shipped configurations
export PYTHONUNBUFFERED=1
make -j16 09_tensorcore/gemm 10_double_buffer/gemm > /dev/null 2>&1
for s in 09_tensorcore 10_double_buffer; do
  echo "== $s"
  timeout 120 ncu --clock-control none -k regex:gemm_kernel -c 1 --metrics breakdown:l1tex__throughput.avg.pct_of_peak_sustained_elapsed,breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed_op_ldsm.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum $s/gemm 4096 --reps 1 --warmup 0 --no-check 2>&1 | grep -E "^ +[a-z]" | sort -k3 -n -r | head -40
done
