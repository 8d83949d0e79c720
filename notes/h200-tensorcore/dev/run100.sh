#!/bin/bash
# run 100: run 99 continued: the 3-stage kernel at a 196 KiB carveout (L1 60 KiB), and .cg copies
# (no L1 allocation) at the default and the 228 KiB carveout. .dev/s10/10c.cu with -DCP_CACHE.
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10c\" -DBM=256 -DBN=128 -DBK=64 -DWM=64 -DWN=64 -DMIN_BLOCKS=1 "$@" .dev/s10/10c.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|registers" | sort | uniq -c | sed "s/^/$out: /"; }
b s3 -DSTAGES=3 & b s3c85 -DSTAGES=3 -DCARVEOUT=85 & b s3c57 -DSTAGES=3 -DCARVEOUT=57 &
b g3 -DSTAGES=3 -DCP_CACHE=\"cg\" & b g3c100 -DSTAGES=3 -DCP_CACHE=\"cg\" -DCARVEOUT=100 & b g4 -DSTAGES=4 -DCP_CACHE=\"cg\" & wait
V="s3 s3c85 s3c57 g3 g3c100 g4"
for v in $V; do echo -n "$v: "; timeout 30 ./build/var/$v --shapes 2048x2056x1032,300x264x1000,129x127x1000,1x1x1,17x9x40 --check --beta 0.5 --dtype bf16 2>&1 | grep -ciE "pass"; done 2>&1 | tee $OUT/run100.txt
for r in 1 2; do for v in $V; do for d in fp16 bf16; do
  echo -n "$v "; ./build/var/$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done 2>&1 | tee -a $OUT/run100.txt
NCU=$(which ncu || echo $CUDA/bin/ncu)
for v in s3c85 s3c57 g3 g3c100 g4; do echo "== $v"; $NCU --clock-control none -k regex:gemm_kernel -c 1 --metrics launch__shared_mem_config_size,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__throughput.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio ./build/var/$v 4096 --reps 1 --warmup 0 --no-check 2>&1 | grep -E "launch__|gpu__time|lts__|l1tex__|smsp__"; done 2>&1 | tee -a $OUT/run100.txt
