#!/bin/bash
# run 28: fast path (whole tile and slice: unpredicated copies from pointers that advance a slice at a time)
# for 09 and 10, with the grouped tile order; 10 in 1-block (128x256, 256x128) and 2-block (128x128) shapes
export PYTHONUNBUFFERED=1
make -j16 build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o > /dev/null 2>&1
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1 src=$2 name=$3; shift 3
  nvcc -O3 -std=c++17 -lineinfo -Icommon -arch=sm_90 -DSTEP_NAME=\"$name\" "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | sed "s/^/$out: /"; }
F=.dev/var/10_fast.cu; W="-DWM=64 -DWN=64 -DGROUP=8"
T09=$(grep -v '^#' 09_tensorcore/tuned/NVIDIA_H200.flags)
b f_128x256x32s4 $F 10_double_buffer $W -DBM=128 -DBN=256 -DBK=32 -DSTAGES=4 &
b f_128x256x32s3 $F 10_double_buffer $W -DBM=128 -DBN=256 -DBK=32 -DSTAGES=3 &
b f_256x128x32s4 $F 10_double_buffer $W -DBM=256 -DBN=128 -DBK=32 -DSTAGES=4 &
b f_128x256x64s3 $F 10_double_buffer $W -DBM=128 -DBN=256 -DBK=64 -DSTAGES=3 &
b f_128x128x64s2 $F 10_double_buffer $W -DBM=128 -DBN=128 -DBK=64 -DSTAGES=2 &
b f_128x128x32s4 $F 10_double_buffer $W -DBM=128 -DBN=128 -DBK=32 -DSTAGES=4 &
b g16_128x256x32s4 $F 10_double_buffer -DWM=64 -DWN=64 -DGROUP=16 -DBM=128 -DBN=256 -DBK=32 -DSTAGES=4 &
b f09 .dev/var/09_fast_group.cu 09_tensorcore $T09 -DGROUP=8 &
b f09g16 .dev/var/09_fast_group.cu 09_tensorcore $T09 -DGROUP=16 &
wait
for v in f_128x256x32s4 f09; do for d in fp16 bf16; do timeout 30 build/var/$v --shapes 1000x1000x1000,129x257x72,2056x2056x136,4096x4096x520,256x256x256 --reps 0 --dtype $d --beta 0.5 2>&1 | grep -E "check|rror" | cut -c1-60; done; done
for r in 1 2; do
for v in f_128x256x32s4 f_128x256x32s3 f_256x128x32s4 f_128x256x64s3 f_128x128x64s2 f_128x128x32s4 g16_128x256x32s4 f09 f09g16; do
  for d in fp16 bf16; do echo -n "$v "; timeout 20 build/var/$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done; done; done
timeout 60 ncu --clock-control none -k regex:gemm_kernel -c 1 --section SourceCounters --section WarpStateStats --metrics lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed -f -o build/var/pf build/var/f_128x256x32s4 4096 --reps 1 --warmup 0 --no-check 2>&1 | grep -E "lts__|l1tex__|sm__pipe"
ncu --import build/var/pf.ncu-rep --page source --csv --print-source sass > $OUT/src_f.csv 2>&1
ncu --import build/var/pf.ncu-rep --page details 2>&1 | grep -E "lts__throughput|l1tex__throughput|hmma_cycles" ; ls -la $OUT
