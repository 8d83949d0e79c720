#!/bin/bash
# run 30: does L1 allocation (cp.async.ca instead of .cg) take load off L2 for step 10? ncu L2 sectors per variant,
# against the ideal (A read N/BN times, B read M/BM times) and step 12's TMA
export PYTHONUNBUFFERED=1
make -j16 build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 10_double_buffer/gemm 12_warp_specialize/gemm > /dev/null 2>&1
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1 src=$2 name=$3; shift 3
  nvcc -O3 -std=c++17 -lineinfo -Icommon -arch=sm_90 -DSTEP_NAME=\"$name\" "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
for f in 10_double_buffer/gemm.cu .dev/var/10_barrier_last.cu .dev/var/10_blast_group.cu; do sed 's/cp\.async\.cg\.shared\.global/cp.async.ca.shared.global/' $f > ${f%.cu}_ca.cu; done
mv 10_double_buffer/gemm_ca.cu .dev/var/10_ca.cu
T10=$(grep -v '^#' 10_double_buffer/tuned/NVIDIA_H200.flags); B="-DBM=128 -DBN=256 -DBK=32 -DWM=64 -DWN=64 -DSTAGES=4"
b ca .dev/var/10_ca.cu 10_double_buffer $T10 &
b l .dev/var/10_barrier_last.cu 10_double_buffer $B &
b l_ca .dev/var/10_barrier_last_ca.cu 10_double_buffer $B &
b lg .dev/var/10_blast_group.cu 10_double_buffer $B -DGROUP=8 &
b lg_ca .dev/var/10_blast_group_ca.cu 10_double_buffer $B -DGROUP=8 &
wait
for r in 1 2; do for v in 10_double_buffer/gemm build/var/ca build/var/l build/var/l_ca build/var/lg build/var/lg_ca; do for d in fp16 bf16; do
  echo -n "$v "; timeout 20 ./$v 4096 --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2,3,11,15,16; done; done; done
timeout 30 build/var/lg_ca --shapes 1000x1000x1000,129x257x72,2056x2056x136 --reps 0 --dtype bf16 --beta 0.5 2>&1 | grep -E "check|rror" | cut -c1-60
M=lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sector_hit_rate.pct,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,lts__t_sectors_srcunit_ltcfabric.sum
for v in 10_double_buffer/gemm build/var/ca build/var/l build/var/l_ca build/var/lg_ca 12_warp_specialize/gemm; do echo "== ncu $v"; timeout 40 ncu --clock-control none --metrics $M -k regex:gemm_kernel -c 1 ./$v 4096 --reps 1 --warmup 0 --no-check 2>&1 | grep -E "lts__|l1tex|sm__|gpu__" | awk '{print $1, $(NF)}'; done
