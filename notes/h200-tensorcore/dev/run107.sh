#!/bin/bash
# run 107-108 (session 11; run 107 picked the wrong metrics from the list, run 108 is this script): how ncu counts the L2 sectors of cp.async (LDGSTS): the shipped .ca copies read 43 M
# sectors by lts__t_sectors_srcunit_tex_op_read, below the 50.3 M the product's tiles hold, and .cg 75 M.
# Every L2 and L1 sector metric the profiler offers for these paths, for .ca (shipped) and .cg (.dev/s10/10c.cu).
export PYTHONUNBUFFERED=1
make -j16 10_double_buffer/gemm build/common/harness.o build/common/cli.o build/common/check.o build/common/npy.o 2>&1 | grep -E "error|built"
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
nvcc -O3 -std=c++17 -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"cg\" -DBM=256 -DBN=128 -DBK=64 -DWM=64 -DWN=64 -DSTAGES=3 -DMIN_BLOCKS=1 -DCP_CACHE=\"cg\" .dev/s10/10c.cu $OBJS -o build/var/cg -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm
NCU=$(which ncu || echo $CUDA/bin/ncu)
$NCU --query-metrics --chip gh100 2>/dev/null > /tmp/q.txt || $NCU --query-metrics > /tmp/q.txt
grep -oE "^(lts__t_(sectors|requests)[a-z_]*|l1tex__m_[a-z0-9_]*|l1tex__t_(sectors|requests)_pipe_lsu_mem_global_op_ldgsts[a-z_]*|smsp__inst_executed_op_ldgsts[a-z_]*|smsp__sass_inst_executed_op_ldgsts[a-z_]*|lts__t_sectors_srcunit_tex[a-z_]*)" /tmp/q.txt | sort -u > /tmp/names.txt
cp /tmp/q.txt $OUT/run108_query_metrics.txt
grep -E "ldgsts|^l1tex__m_xbar2l1tex_read_(sectors|bytes|requests)(_mem_global[a-z_]*)?$|^lts__t_(sectors|requests)_srcunit_tex_op_read$|^lts__t_sectors_srcunit_tex_op_read_lookup_(hit|miss)$" /tmp/names.txt | grep -v "pct\|per_\|_realtime" | head -60 > /tmp/pick.txt
cat /tmp/pick.txt | tr '\n' ' ' | tee $OUT/run108.txt; echo | tee -a $OUT/run108.txt
M=$(sed 's/$/.sum/' /tmp/pick.txt | tr '\n' ',' | sed 's/,$//'),gpu__time_duration.sum
for v in 10_double_buffer/gemm build/var/cg; do echo "== $v"; $NCU --clock-control none -k regex:gemm_kernel -c 1 --metrics $M ./$v 4096 --reps 1 --warmup 0 --no-check --dtype fp16 2>&1 | grep -E "__|rror|ERR" | grep -v "n/a" | sed 's/  */ /g'; done 2>&1 | tee -a $OUT/run108.txt
