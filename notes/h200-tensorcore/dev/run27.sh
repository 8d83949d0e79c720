#!/bin/bash
# run 27: step 10 with 128 x 256 / 256 x 128 tiles (one block of 8 warps per SM): deeper rings, the barrier
# before the last k16 step, grouped order; ncu stall sources of the best
export PYTHONUNBUFFERED=1
make -j16 build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o > /dev/null 2>&1
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1 src=$2 name=$3; shift 3
  nvcc -O3 -std=c++17 -lineinfo -Icommon -arch=sm_90 -DSTEP_NAME=\"$name\" "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | sed "s/^/$out: /"; }
L=.dev/var/10_barrier_last.cu; P=10_double_buffer/gemm.cu; G=.dev/var/10_blast_group.cu
B256="-DBM=128 -DBN=256 -DWM=64 -DWN=64"; B256T="-DBM=256 -DBN=128 -DWM=64 -DWN=64"
b l_128x256x32s4 $L 10_double_buffer $B256 -DBK=32 -DSTAGES=4 &
b l_128x256x32s6 $L 10_double_buffer $B256 -DBK=32 -DSTAGES=6 &
b p_128x256x32s6 $P 10_double_buffer $B256 -DBK=32 -DSTAGES=6 &
b l_256x128x32s4 $L 10_double_buffer $B256T -DBK=32 -DSTAGES=4 &
b l_256x128x32s6 $L 10_double_buffer $B256T -DBK=32 -DSTAGES=6 &
b l_128x256x64s3 $L 10_double_buffer $B256 -DBK=64 -DSTAGES=3 &
b lg_128x256x32s4 $G 10_double_buffer $B256 -DBK=32 -DSTAGES=4 -DGROUP=8 &
b lg_128x256x32s5 $G 10_double_buffer $B256 -DBK=32 -DSTAGES=5 -DGROUP=8 &
wait
for v in l_128x256x32s4 l_128x256x32s6 p_128x256x32s6 l_256x128x32s4 l_256x128x32s6 l_128x256x64s3 lg_128x256x32s4 lg_128x256x32s5; do
  for d in fp16 bf16; do echo -n "$v "; timeout 20 build/var/$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done; done
M=lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,sm__cycles_elapsed.avg.per_second
for v in l_128x256x32s4 l_128x256x32s6; do echo "== ncu $v"; timeout 40 ncu --clock-control none --metrics $M -k regex:gemm_kernel -c 1 build/var/$v 4096 --reps 1 --warmup 0 --no-check 2>&1 | grep -E "lts|l1tex|sm__|gpu__"; done
timeout 60 ncu --clock-control none -k regex:gemm_kernel -c 1 --section SourceCounters --section WarpStateStats -f -o build/var/pl build/var/l_128x256x32s4 4096 --reps 1 --warmup 0 --no-check > /dev/null 2>&1
ncu --import build/var/pl.ncu-rep --page source --csv --print-source sass > $OUT/src_l128x256.csv 2>&1; ls -la $OUT
