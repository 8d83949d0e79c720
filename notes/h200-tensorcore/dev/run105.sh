#!/bin/bash
# run 105 (session 11): why the persistent ring (run 104's p) lost 5.5%: the shipped kernel's structure with
# direct float2 stores (.dev/s11/10d.cu) isolates the epilogue; ncu of shipped, d and p.
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
F="-DBM=256 -DBN=128 -DBK=64 -DWM=64 -DWN=64 -DSTAGES=3 -DMIN_BLOCKS=1"
b() { local out=$1 src=$2; shift 2
  nvcc -O3 -std=c++17 -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"$out\" $F "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|registers|spill" | sort | uniq -c | sed "s/^/$out: /"; }
b p .dev/s11/10p.cu & b d .dev/s11/10d.cu & wait
V="10_double_buffer/gemm build/var/d build/var/p"
for v in build/var/d; do for d in fp16 bf16; do echo -n "$v $d: "; timeout 60 ./$v --shapes 2048x2056x1032,4095x4097x4095,300x264x1000,129x127x1000,1x1x1,17x9x40 --check --beta 0.5 --dtype $d 2>&1 | awk '/[Pp][Aa][Ss][Ss]/{p++} /[Ff][Aa][Ii][Ll]|rror/{f++} END{print p+0, "pass", f+0, "fail"}'; done; done 2>&1 | tee $OUT/run105.txt
for r in 1 2 3; do for v in $V; do for d in fp16 bf16; do
  echo -n "$v "; ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done 2>&1 | tee -a $OUT/run105.txt
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,dram__bytes_read.sum,dram__bytes_write.sum
for s in wait math_pipe_throttle long_scoreboard short_scoreboard mio_throttle lg_throttle barrier no_instruction dispatch_stall; do M=$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio; done
NCU=$(which ncu || echo $CUDA/bin/ncu)
for v in $V; do echo "== $v"; $NCU --clock-control none -k regex:gemm_kernel -c 1 --metrics $M ./$v 4096 --reps 1 --warmup 0 --no-check 2>&1 | grep -E "__" | sed 's/  */ /g'; done 2>&1 | tee -a $OUT/run105.txt
