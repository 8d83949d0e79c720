#!/bin/bash
# run 112 (session 11): run 111 again, the tile origin recomputed only when the tile changes (run 111: in every slice).
# into 132 ranges of slices (a band of C, kept in L2), then whole tiles in waves; against shipped and run 106's p.
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
F="-DBM=256 -DBN=128 -DBK=64 -DWM=64 -DWN=64 -DSTAGES=3 -DMIN_BLOCKS=1"
b() { local out=$1 src=$2; shift 2
  nvcc -O3 -std=c++17 -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"$out\" $F "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|registers|spill" | sort | uniq -c | sed "s/^/$out: /"; }
b p .dev/s11/10p.cu & b h .dev/s11/10h.cu & wait
SH=2048x2056x1032,2600x1700x72,2600x1700x70,4095x4097x4095,300x264x1000,129x127x1000,1x1x1,17x9x40,1x4096x4096,4096x4096x4096
for d in fp16 bf16; do echo -n "h $d: "; timeout 120 ./build/var/h --shapes $SH --check --beta 0.5 --dtype $d 2>&1 | awk '/[Pp][Aa][Ss][Ss]/{p++} /[Ff][Aa][Ii][Ll]|rror/{f++; print} END{print p+0, "pass", f+0, "fail"}'; done 2>&1 | tee $OUT/run112.txt
timeout 200 compute-sanitizer --tool memcheck ./build/var/h --shapes 2600x1700x72,2600x1700x70,300x264x100,1x1x1,2048x2056x200 --check --beta 0.5 --reps 2 2>&1 | tail -1 | tee -a $OUT/run112.txt
timeout 200 compute-sanitizer --tool racecheck ./build/var/h --shapes 2600x1700x72,300x264x100 --check --beta 0.5 --reps 0 2>&1 | tail -1 | tee -a $OUT/run112.txt
V="10_double_buffer/gemm build/var/p build/var/h"
for r in 1 2 3; do for v in $V; do for d in fp16 bf16; do
  echo -n "$v "; ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done 2>&1 | tee -a $OUT/run112.txt
for v in 10_double_buffer/gemm build/var/h; do for d in fp16 bf16; do
  echo -n "$v 8192 "; ./$v 8192 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done 2>&1 | tee -a $OUT/run112.txt
M=gpu__time_duration.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,lts__t_sector_hit_rate.pct
NCU=$(which ncu || echo $CUDA/bin/ncu)
for v in build/var/h; do echo "== $v"; $NCU --clock-control none -k regex:gemm_kernel -c 1 --metrics $M ./$v 4096 --reps 1 --warmup 0 --no-check 2>&1 | grep -E "__" | sed 's/  */ /g'; done 2>&1 | tee -a $OUT/run112.txt
