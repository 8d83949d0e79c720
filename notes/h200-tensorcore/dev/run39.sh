#!/bin/bash
# run 39: warp-specialized step 10: ceiling without copies (NOCOPY), producer unroll, PEEK with full unroll, 2 producer warps; SASS of the producer
export PYTHONUNBUFFERED=1
make -j16 build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o > /dev/null 2>&1
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1 src=$2; shift 2
  nvcc -O3 -std=c++17 -lineinfo -Icommon -arch=sm_90 -DSTEP_NAME=\"10_double_buffer\" -DWM=64 -DWN=64 "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
S=.dev/var/10_ws.cu
W="-DBM=128 -DBN=256 -DMIN_BLOCKS=1 -DEARLY_ARRIVE=1 -DBK=32 -DSTAGES=4"
b e $S $W -DPRODUCER_WARPS=4 &
b eu4 $S $W -DPRODUCER_WARPS=4 -DPUNROLL=4 &
b ep $S $W -DPRODUCER_WARPS=4 -DPEEK=1 &
b e2 $S $W -DPRODUCER_WARPS=2 &
b e1 $S $W -DPRODUCER_WARPS=1 &
b nc $S $W -DPRODUCER_WARPS=4 -DNOCOPY=1 &
b ncp $S $W -DPRODUCER_WARPS=4 -DNOCOPY=1 -DPEEK=1 &
wait
V="build/var/e build/var/eu4 build/var/ep build/var/e2 build/var/e1 build/var/nc build/var/ncp"
for v in build/var/e2 build/var/e1; do for s in "2048 2056 1032" "129 127 255"; do
  echo -n "$v $s: "; timeout 20 ./$v $s --check --dtype fp16 --beta 0.5 | grep -iE "pass|fail|error" | head -2 | cut -c1-60 | tr '\n' ' '; echo; done; done
for r in 1 2; do for v in $V; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done; done; done
M=lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg,smsp__inst_executed.sum
for v in nc; do
timeout 90 ncu --clock-control none -k regex:gemm_kernel -c 1 --section SourceCounters --section WarpStateStats --metrics $M -f -o build/var/p$v build/var/$v 4096 --reps 1 --warmup 0 --no-check > /dev/null 2>&1
ncu --import build/var/p$v.ncu-rep --page details --csv 2>&1 | grep -E "lts__|l1tex__|hmma|cycles_elapsed|inst_executed\"" | awk -F'","' '{print $(NF-2), $NF}'
ncu --import build/var/p$v.ncu-rep --page source --csv --print-source sass > build/var/src_$v.csv 2>&1
python3 .dev/stalls.py build/var/src_$v.csv
done
cuobjdump -sass -fun '_Z11gemm_kernelI6__halfLb1EEviiifPKT_S3_fPf' build/var/e > $OUT/e_sass.txt
cuobjdump -sass build/var/e | grep -c . 
