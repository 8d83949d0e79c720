#!/bin/bash
# run 26: full make test (new multi-tile shapes), bench 12, ablations of 12, mma.sync ceiling by warps/SM,
# 09/10 variants (grouped order, barrier before the last k16 step), SASS and ncu source view of 10
export GEMM_COMMIT=$1 PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
make -j16 all build/selftest 2>&1 | grep -E "error"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1 src=$2 name=$3; shift 3
  nvcc -O3 -std=c++17 -lineinfo -Icommon -DSTEP_NAME=\"$name\" "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | sed "s/^/$out: /"; }
H="-gencode=arch=compute_90a,code=sm_90a"
T09=$(grep -v '^#' 09_tensorcore/tuned/NVIDIA_H200.flags); T10=$(grep -v '^#' 10_double_buffer/tuned/NVIDIA_H200.flags)
( b 12_nopersist_noreg .dev/var/12_nopersist_noreg.cu 12_warp_specialize $H
  b 12_nopersist .dev/var/12_nopersist.cu 12_warp_specialize $H
  b 12_colorder 12_warp_specialize/gemm.cu 12_warp_specialize $H -DGROUP_M=1000000
  b 12_g8 12_warp_specialize/gemm.cu 12_warp_specialize $H -DGROUP_M=8
  b 12_g32 12_warp_specialize/gemm.cu 12_warp_specialize $H -DGROUP_M=32
  b 12_s3 12_warp_specialize/gemm.cu 12_warp_specialize $H -DSTAGES=3 ) > build/var/build12.log 2>&1 &
( b 09_group8 .dev/var/09_group.cu 09_tensorcore -arch=sm_90 $T09 -DGROUP=8
  b 10_group8 .dev/var/10_group.cu 10_double_buffer -arch=sm_90 $T10 -DGROUP=8
  b 10_group16 .dev/var/10_group.cu 10_double_buffer -arch=sm_90 $T10 -DGROUP=16
  b 10_blast .dev/var/10_barrier_last.cu 10_double_buffer -arch=sm_90 $T10
  b 10_blast_128x256x32s4 .dev/var/10_barrier_last.cu 10_double_buffer -arch=sm_90 -DBM=128 -DBN=256 -DBK=32 -DWM=64 -DWN=64 -DSTAGES=4
  b 10_blast_128x128x32s4 .dev/var/10_barrier_last.cu 10_double_buffer -arch=sm_90 -DBM=128 -DBN=128 -DBK=32 -DWM=64 -DWN=64 -DSTAGES=4
  nvcc -O3 -arch=sm_90 -std=c++17 .dev/hmma_bench.cu -o build/var/hmma_bench ) > build/var/buildtc.log 2>&1 &
timeout 300 make test > $OUT/make_test.log 2>&1; echo "make test rc=$?"
grep -E "^(FAIL|SKIP)|passed" $OUT/make_test.log | cut -c1-300
wait; cat build/var/build12.log build/var/buildtc.log
timeout 90 python3 scripts/bench.py --steps 12 --check-up-to 4096 4096 8192 2>&1 | tail -5
cp results/NVIDIA_H200.csv $OUT/
echo "== mma.sync ceiling"; timeout 60 build/var/hmma_bench
echo "== variants (step,dtype,m,gflops,cublas_gflops,ratio)"
for i in 1 2; do
for v in 12_warp_specialize/gemm build/var/12_nopersist_noreg build/var/12_nopersist build/var/12_colorder build/var/12_g8 build/var/12_g32 build/var/12_s3; do
  for n in 4096 8192; do for d in fp16 bf16; do echo -n "$v "; timeout 20 ./$v $n --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done; done; done
done
for v in 09_tensorcore/gemm build/var/09_group8 10_double_buffer/gemm build/var/10_group8 build/var/10_group16 build/var/10_blast build/var/10_blast_128x256x32s4 build/var/10_blast_128x128x32s4; do
  for d in fp16 bf16; do echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done; done
for v in build/var/10_blast build/var/10_blast_128x256x32s4; do timeout 20 ./$v --shapes 1000x1000x1000,129x257x72,4096x4096x512 --reps 0 --dtype bf16 --beta 0.5 2>&1 | grep -E "check|rror"; done
cuobjdump -sass 10_double_buffer/gemm > $OUT/sass10.txt 2>&1
timeout 60 ncu --clock-control none -k regex:gemm_kernel -c 1 --section SourceCounters --section WarpStateStats -f -o build/var/p10 10_double_buffer/gemm 4096 --reps 1 --warmup 0 --no-check > /dev/null 2>&1
ncu --import build/var/p10.ncu-rep --page source --csv --print-source sass > $OUT/src10.csv 2>&1; ls -la $OUT
