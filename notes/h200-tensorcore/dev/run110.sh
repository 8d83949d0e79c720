#!/bin/bash
# run 110 (session 11): DRAM and L2 traffic of run 109's stream-K build against the shipped kernel and run 106's p.
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
F="-DBM=256 -DBN=128 -DBK=64 -DWM=64 -DWN=64 -DSTAGES=3 -DMIN_BLOCKS=1"
b() { local out=$1 src=$2; shift 2
  nvcc -O3 -std=c++17 -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"$out\" $F "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm; }
b p .dev/s11/10p.cu & b k .dev/s11/10k.cu & wait
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,l1tex__m_xbar2l1tex_read_sectors.sum,lts__t_sectors_srcunit_tex_op_write.sum,smsp__inst_executed.sum
NCU=$(which ncu || echo $CUDA/bin/ncu)
for v in 10_double_buffer/gemm build/var/p build/var/k; do for d in fp16 bf16; do echo "== $v $d"; $NCU --clock-control none -k regex:gemm_kernel -c 1 --metrics $M ./$v 4096 --reps 1 --warmup 0 --no-check --dtype $d 2>&1 | grep -E "__" | sed 's/  */ /g'; done; done 2>&1 | tee $OUT/run110.txt
