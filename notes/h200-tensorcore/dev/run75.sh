#!/bin/bash
# run 75: 256 x 128 tiles of 64 x 64 warps with the 3-stage ring: GROUP, EPI, BK = 64; ncu stalls of t
# run 74: after run 73, combinations of the 3-stage ring (barrier after the first k16 step) with GROUP and EPI,
# the barrier between the ldmatrix and the mma of a step (BAR_LD), and 64 x 64 warps (one block of 8 warps per SM)
# run 73: step 09 variants (.dev/s8/09v.cu = 09_tensorcore/gemm.cu at 09e58f8 + switches):
# STAGES=3 (register-staged 3-stage ring: one barrier per slice, placed before the deposit, so
# that no barrier separates a slice's deposit from the next slice's reads), BAR_KK (the k16 step
# after which it meets), GROUP (strips of tile rows), EPI (C staged through shared memory as in 10)
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader
make -j16 09_tensorcore/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
T="-DBM=128 -DBN=128 -DBK=32 -DWM=64 -DWN=32 -DMIN_BLOCKS=2"
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"09_tensorcore\" "$@" .dev/s8/09v.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
S="-DSTAGES=3 -DBAR_KK=0"
W="-DBM=256 -DBN=128 -DBK=32 -DWM=64 -DWN=64 -DMIN_BLOCKS=1"
K="-DBM=256 -DBN=128 -DBK=64 -DWM=64 -DWN=64 -DMIN_BLOCKS=1"
b t $W $S &
b te2 $W $S -DEPI=2 &
b tg8 $W $S -DGROUP=8 &
b te2g8 $W $S -DEPI=2 -DGROUP=8 &
b te4g8 $W $S -DEPI=4 -DGROUP=8 &
b tk $K $S &
b tke2 $K $S -DEPI=2 &
b tke2g8 $K $S -DEPI=2 -DGROUP=8 &
b tkb2e2g8 $K -DSTAGES=3 -DBAR_KK=2 -DEPI=2 -DGROUP=8 &
b ue2g8 -DBM=128 -DBN=256 -DBK=32 -DWM=64 -DWN=64 -DMIN_BLOCKS=1 $S -DEPI=2 -DGROUP=8 &
b s3b0g8 -DBM=128 -DBN=128 -DBK=32 -DWM=64 -DWN=32 -DMIN_BLOCKS=2 $S -DGROUP=8 &
wait
V="t te2 tg8 te2g8 te4g8 tk tke2 tke2g8 tkb2e2g8 ue2g8 s3b0g8"
SH=1x1x1,33x7x129,129x127x1000,257x256x260,2048x2056x1032,300x264x1000,130x136x72
for v in $V; do for d in fp16 bf16; do echo -n "$v $d: "; timeout 60 ./build/var/$v --shapes $SH --check --beta 0.5 --dtype $d 2>&1 | grep -ciE "pass" | tr '\n' ' '; timeout 60 ./build/var/$v --shapes $SH --check --beta 0.5 --dtype $d 2>&1 | grep -iE "fail|error|mismatch" | head -2; echo; done; done
for r in 1 2; do for v in 09_tensorcore/gemm $(for x in $V; do echo build/var/$x; done); do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done
M=l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts.sum,sm__cycles_elapsed.avg,lts__throughput.avg.pct_of_peak_sustained_elapsed
for v in t; do
timeout 90 ncu --clock-control none -k regex:gemm_kernel -c 1 --section SourceCounters --section WarpStateStats --metrics $M -f -o build/var/p$v build/var/$v 4096 --reps 1 --warmup 0 --no-check > /dev/null 2>&1
ncu --import build/var/p$v.ncu-rep --page details --csv 2>&1 | grep -E "lts__|l1tex__|hmma|cycles_elapsed" | awk -F'","' '{print $(NF-2), $NF}'
ncu --import build/var/p$v.ncu-rep --page source --csv --print-source sass > build/var/src_$v.csv 2>&1
python3 .dev/stalls.py build/var/src_$v.csv
done
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader
