#!/bin/bash
# run 81: ncu source-level stall sampling of step 10 as shipped (1f2724a), fp16 4096^3, summarised by
# dev/stalls.py, plus the consumer loop's SASS around its hottest instructions
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm 2>&1 | grep -E "error|built"
mkdir -p build/var
M=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__warps_issue_stalled_barrier_per_warp_active.pct
timeout 120 ncu --clock-control none -k regex:gemm_kernel -c 1 --section SourceCounters --section WarpStateStats --metrics $M -f -o build/var/p10 ./10_double_buffer/gemm 4096 --reps 1 --warmup 0 --no-check > /dev/null 2>&1
ncu --import build/var/p10.ncu-rep --page details --csv 2>&1 | grep -E "lts__|l1tex__|hmma|cycles_elapsed|inst_executed\"|stalled" | awk -F'","' '{print $(NF-2), $NF}'
ncu --import build/var/p10.ncu-rep --page source --csv --print-source sass > $OUT/run81_src10.csv 2>&1
python3 .dev/stalls.py $OUT/run81_src10.csv
cuobjdump -sass -fun '_Z11gemm_kernelI6__halfLb1EEviiifPKT_S3_fPf' 10_double_buffer/gemm > $OUT/run81_sass10.txt 2>&1 || cuobjdump -sass 10_double_buffer/gemm > $OUT/run81_sass10.txt
wc -l $OUT/run81_sass10.txt
