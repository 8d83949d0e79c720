#!/bin/bash
# run 99: is L1's size what limits step 10's stages? The shipped 3-stage kernel (159 KiB of shared memory,
# default carveout: expected 164 KiB, leaving 92 KiB of L1) with the carveout forced up to 196 or 228 KiB
# (L1 60 / 28 KiB), against 4 stages (212 KiB: carveout 228) and 2 stages. .dev/s10/10c.cu = 10_double_buffer/gemm.cu
# + -DCARVEOUT (cudaFuncAttributePreferredSharedMemoryCarveout).
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10c\" -DBM=256 -DBN=128 -DBK=64 -DWM=64 -DWN=64 -DMIN_BLOCKS=1 "$@" .dev/s10/10c.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|registers" | sort | uniq -c | sed "s/^/$out: /"; }
b s3 -DSTAGES=3 & b s3c72 -DSTAGES=3 -DCARVEOUT=72 & b s3c86 -DSTAGES=3 -DCARVEOUT=86 & b s3c100 -DSTAGES=3 -DCARVEOUT=100 &
b s4 -DSTAGES=4 & b s2 -DSTAGES=2 & b s2c100 -DSTAGES=2 -DCARVEOUT=100 & wait
V="s3 s3c72 s3c86 s3c100 s4 s2 s2c100"
for v in $V; do echo -n "$v: "; timeout 30 ./build/var/$v --shapes 2048x2056x1032,300x264x1000,129x127x1000,1x1x1,17x9x40 --check --beta 0.5 --dtype bf16 2>&1 | grep -ciE "pass"; done 2>&1 | tee $OUT/run99.txt
for r in 1 2; do for v in 10_double_buffer/gemm $(for x in $V; do echo build/var/$x; done); do for d in fp16 bf16; do
  echo -n "$v "; ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done 2>&1 | tee -a $OUT/run99.txt
NCU=$(which ncu || echo $CUDA/bin/ncu)
for v in s3 s3c86 s3c100 s4 s2 s2c100; do echo "== $v"; $NCU --clock-control none -k regex:gemm_kernel -c 1 --metrics launch__shared_mem_config_size,launch__shared_mem_per_block_dynamic,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__throughput.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio ./build/var/$v 4096 --reps 1 --warmup 0 --no-check 2>&1 | grep -E "launch__|gpu__time|lts__|l1tex__|smsp__"; done 2>&1 | tee -a $OUT/run99.txt
