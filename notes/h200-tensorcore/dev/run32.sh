#!/bin/bash
# run 32: step 10 with cp.async.ca at its new tiles (128x128x32, 3 stages): where the time goes (ncu), and the
# barrier-before-last-k16 and grouped-order variants on top of .ca
export PYTHONUNBUFFERED=1
make -j16 build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 10_double_buffer/gemm > /dev/null 2>&1
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1 src=$2 name=$3; shift 3
  nvcc -O3 -std=c++17 -lineinfo -Icommon -arch=sm_90 -DSTEP_NAME=\"$name\" "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
W="-DBM=128 -DBN=128 -DBK=32 -DWM=64 -DWN=64 -DMIN_BLOCKS=1"
b s4 10_double_buffer/gemm.cu 10_double_buffer $W -DSTAGES=4 &
b g8 .dev/var/10_group_ca.cu 10_double_buffer $W -DSTAGES=3 -DGROUP=8 &
b l3 .dev/var/10_barrier_last_ca.cu 10_double_buffer $W -DSTAGES=3 &
b l4 .dev/var/10_barrier_last_ca.cu 10_double_buffer $W -DSTAGES=4 &
b lg3 .dev/var/10_blast_group_ca.cu 10_double_buffer $W -DSTAGES=3 -DGROUP=8 &
b lg4 .dev/var/10_blast_group_ca.cu 10_double_buffer $W -DSTAGES=4 -DGROUP=8 &
wait
for r in 1 2; do for v in 10_double_buffer/gemm build/var/s4 build/var/g8 build/var/l3 build/var/l4 build/var/lg3 build/var/lg4; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done; done; done
M=lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
timeout 60 ncu --clock-control none -k regex:gemm_kernel -c 1 --section SourceCounters --section WarpStateStats --metrics $M -f -o build/var/p10 10_double_buffer/gemm 4096 --reps 1 --warmup 0 --no-check 2>&1 | grep -E "lts__|l1tex__|sm__pipe" | awk '{print $1, $NF}'
ncu --import build/var/p10.ncu-rep --page source --csv --print-source sass > $OUT/src10ca.csv 2>&1
ncu --import build/var/p10.ncu-rep --page details --csv 2>&1 | grep -E "lts__|l1tex__|hmma" | cut -c1-200
