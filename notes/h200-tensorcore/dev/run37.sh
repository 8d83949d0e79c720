#!/bin/bash
# run 37: the warp-specialized step 10 (128x256, 8 consumer + 4 producer warps): early arrive, stages; ncu of where it stands
export PYTHONUNBUFFERED=1
make -j16 build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o > /dev/null 2>&1
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1 src=$2; shift 2
  nvcc -O3 -std=c++17 -lineinfo -Icommon -arch=sm_90 -DSTEP_NAME=\"10_double_buffer\" -DBK=32 -DWM=64 -DWN=64 "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
S=.dev/var/10_ws.cu
W="-DBM=128 -DBN=256 -DMIN_BLOCKS=1 -DPRODUCER_WARPS=4"
b w4 $S $W -DSTAGES=4 &
b w3 $S $W -DSTAGES=3 &
b w5 $S $W -DSTAGES=5 &
b w4e $S $W -DSTAGES=4 -DEARLY_ARRIVE=1 &
b w4eg $S $W -DSTAGES=4 -DEARLY_ARRIVE=1 -DGROUP=16 &
b t4e $S -DBM=256 -DBN=128 -DMIN_BLOCKS=1 -DPRODUCER_WARPS=4 -DSTAGES=4 -DEARLY_ARRIVE=1 &
b a3e $S -DBM=128 -DBN=128 -DMIN_BLOCKS=2 -DPRODUCER_WARPS=2 -DSTAGES=3 -DEARLY_ARRIVE=1 &
wait
V="build/var/w4 build/var/w3 build/var/w5 build/var/w4e build/var/w4eg build/var/t4e build/var/a3e"
for v in build/var/w4e build/var/w4eg; do for s in "2048 2056 1032" "129 127 255"; do
  echo -n "$v $s: "; timeout 20 ./$v $s --check --dtype fp16 --beta 0.5 | grep -iE "pass|fail|error" | head -2 | tr '\n' ' '; echo; done; done
for r in 1 2; do for v in $V; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done; done; done
M=lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,sm__cycles_elapsed.avg,l1tex__m_xbar2l1tex_read_bytes.sum,smsp__inst_executed.sum
for v in w4 w4e; do
timeout 90 ncu --clock-control none -k regex:gemm_kernel -c 1 --section SourceCounters --section WarpStateStats --metrics $M -f -o build/var/p$v build/var/$v 4096 --reps 1 --warmup 0 --no-check > /dev/null 2>&1
ncu --import build/var/p$v.ncu-rep --page details --csv 2>&1 | grep -E "lts__|l1tex__|hmma|cycles_elapsed|inst_executed\"" | awk -F'","' '{print $(NF-2), $NF}'
ncu --import build/var/p$v.ncu-rep --page source --csv --print-source sass > build/var/src_$v.csv 2>&1
python3 .dev/stalls.py build/var/src_$v.csv
done
cuobjdump -sass build/var/w4e | grep -E "HMMA|LDSM|LDGSTS|SYNCS|BAR|ARRIVES" | sed 's/^ *\/\*[0-9a-f]*\*\/ *//; s/ .*//' | sort | uniq -c
