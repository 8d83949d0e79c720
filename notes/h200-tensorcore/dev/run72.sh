#!/bin/bash
# run 72: make autotune N=10 again after the staged epilogue (2821934); the tuned files it writes come back for comparison
export PYTHONUNBUFFERED=1
timeout 420 make autotune N=10 > $OUT/autotune10.log 2>&1; echo "autotune rc=$?"
grep -B2 -A14 "^ *rank" $OUT/autotune10.log | head -24; tail -3 $OUT/autotune10.log
cp 10_double_buffer/tuned/NVIDIA_H200.flags 10_double_buffer/tuned/NVIDIA_H200.ranking.csv $OUT/
