#!/bin/bash
# run 68: the full make test at the final step-10 kernel (14ec9a4's), bench rows; one-process A/B of
# db32f79 (store2), the shipped kernel and run 62's variant on the sizes where run 63 ran slower than run 59
export PYTHONUNBUFFERED=1
C=$1
make -j16 all build/selftest 2>&1 | grep -E "error|10_double"
S=$(date +%s); timeout 300 make test > $OUT/make_test.log 2>&1; echo "make test rc=$? in $(( $(date +%s) - S )) s"
grep -E "^(FAIL|SKIP)|passed" $OUT/make_test.log | cut -c1-300
GEMM_COMMIT="$C" timeout 90 python3 scripts/bench.py --steps 10 --check-up-to 4096 4096 4095x4097x4095 8192 2>&1 | tail -7
cp results/NVIDIA_H200.csv $OUT/
CUDA=$(dirname $(dirname $(which nvcc)))
OBJS="build/common/cli.o build/common/check.o build/common/npy.o build/common/harness.o"
mkdir -p build/var
b() { local out=$1; local src=$2; shift; shift
  nvcc -O3 -std=c++17 -lineinfo -Icommon -gencode=arch=compute_90a,code=sm_90a -DSTEP_NAME=\"10_double_buffer\" $(grep -v '^#' 10_double_buffer/tuned/NVIDIA_H200.flags) "$@" $src $OBJS -o build/var/$out -L$CUDA/lib64 -Xlinker -rpath=$CUDA/lib64 -lcublas -lgomp -lm -Xptxas -v 2>&1 | grep -E "error|spill stores" | sort | uniq -c | grep -v " 0 bytes spill" | sed "s/^/$out: /"; }
b old .dev/s7/10old.cu & b se .dev/s7/10p.cu -DSMEM_EPI & wait
for r in 1 2; do for v in build/var/old 10_double_buffer/gemm build/var/se; do
  for s in "6144" "4096 8192 8192"; do for d in fp16 bf16; do echo -n "$v "; timeout 30 ./$v $s --cublas --no-check --csv --dtype $d | tail -1 | cut -d, -f2-5,11,15,16; done; done
  for s in "8192 16 8192" "64 8192 8192"; do echo -n "$v "; timeout 20 ./$v $s --no-check --csv --dtype fp16 | tail -1 | cut -d, -f2-5,11; done
done; done
