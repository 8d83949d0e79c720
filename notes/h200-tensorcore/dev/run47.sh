#!/bin/bash
# run 47: the full make test at the final code commit
export PYTHONUNBUFFERED=1
make -j16 all build/selftest 2>&1 | grep -E "error"
timeout 330 make test > $OUT/make_test.log 2>&1; echo "make test rc=$?"
grep -E "^(FAIL|SKIP)|passed" $OUT/make_test.log | cut -c1-300
