#!/bin/bash
# run 91: .dev/s9/10m.cu with per-thread shared offsets computed once (u32 ldmatrix addresses, copy destinations)
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1; shift
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10m\" -DWM=64 -DWN=64 -DMIN_BLOCKS=1 "$@" .dev/s9/10m.cu $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
b p1 -DBM=128 -DBN=256 -DBK=32 -DSTAGES=6 -DCP_CG=1 &
b p2 -DBM=128 -DBN=256 -DBK=32 -DSTAGES=6 -DCP_CG=0 &
b p3 -DBM=128 -DBN=256 -DBK=64 -DSTAGES=3 -DCP_CG=0 &
b p4 -DBM=256 -DBN=128 -DBK=64 -DSTAGES=3 -DCP_CG=0 &
b p5 -DBM=256 -DBN=128 -DBK=32 -DSTAGES=6 -DCP_CG=1 &
b p6 -DBM=128 -DBN=256 -DBK=32 -DSTAGES=5 -DCP_CG=1 &
wait
V="p1 p2 p3 p4 p5 p6"
for v in $V; do echo -n "$v: "; timeout 60 ./build/var/$v --shapes 2048x2056x1032,300x264x1000,129x127x1000,1x1x1,17x9x40 --check --beta 0.5 --dtype bf16 2>&1 | grep -ciE "pass"; done
for r in 1 2; do for v in 10_double_buffer/gemm $(for x in $V; do echo build/var/$x; done); do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,10,11,15,16; done; done; done 2>&1 | tee $OUT/run91.txt
for v in p1 p4; do
  timeout 120 ncu --clock-control none -k regex:gemm_kernel -c 1 --section SourceCounters --section WarpStateStats --section SpeedOfLight -f -o build/var/p$v ./build/var/$v 4096 --reps 1 --warmup 0 --no-check > /dev/null 2>&1
  ncu --import build/var/p$v.ncu-rep --page source --csv --print-source sass > /tmp/src_$v.csv 2>&1
  echo "== $v"; python3 notes/h200-tensorcore/dev/stalls.py /tmp/src_$v.csv
  gzip -c /tmp/src_$v.csv > $OUT/run91_src_$v.csv.gz
done 2>&1 | tee -a $OUT/run91.txt
