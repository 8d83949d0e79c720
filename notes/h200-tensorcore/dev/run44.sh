#!/bin/bash
# run 44: the shipped step 10 (ce6bc13 + tuned flags): make sass, make profile, ncu source view (stalls), the
# unaligned shape's bench row, and the consumer loop without copies at the shipped tiles (ceiling)
export PYTHONUNBUFFERED=1
C=$1
make -j16 all build/selftest > /dev/null 2>&1
make sass N=10 > $OUT/sass10.log 2>&1; cat $OUT/sass10.log | tail -12
timeout 120 make profile N=10 > $OUT/profile10.log 2>&1; tail -25 $OUT/profile10.log
GEMM_COMMIT="$C" timeout 60 python3 scripts/bench.py --steps 10 --check-up-to 4096 4095x4097x4095 2>&1 | tail -3
cp results/NVIDIA_H200.csv $OUT/
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
F=$(grep -v "^#" 10_double_buffer/tuned/NVIDIA_H200.flags)
nvcc -O3 -std=c++17 -lineinfo -Icommon -arch=sm_90 -DSTEP_NAME=\"10_double_buffer\" $F -DEARLY_ARRIVE=1 -DWAITGROUP=2 -DNOCOPY=1 .dev/var/10_ws.cu $OBJS -o build/var/nc -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm
nvcc -O3 -std=c++17 -lineinfo -Icommon -arch=sm_90 -DSTEP_NAME=\"10_double_buffer\" $F -DEARLY_ARRIVE=1 .dev/var/10_ws.cu $OBJS -o build/var/noinc -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm
for r in 1 2; do for v in 10_double_buffer/gemm build/var/nc build/var/noinc; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done; done; done
M=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed
timeout 90 ncu --clock-control none -k regex:gemm_kernel -c 1 --section SourceCounters --section WarpStateStats --metrics $M -f -o build/var/p10 10_double_buffer/gemm 4096 --reps 1 --warmup 0 --no-check > /dev/null 2>&1
ncu --import build/var/p10.ncu-rep --page details --csv 2>&1 | grep -E "lts__|l1tex__|hmma" | awk -F'","' '{print $(NF-2), $NF}'
ncu --import build/var/p10.ncu-rep --page source --csv --print-source sass > build/var/src10.csv 2>&1
python3 .dev/stalls.py build/var/src10.csv
