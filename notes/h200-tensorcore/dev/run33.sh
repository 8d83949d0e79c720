#!/bin/bash
# run 33: the full make test at the final commit; SASS of steps 10 and 12
export PYTHONUNBUFFERED=1
make -j16 all build/selftest 2>&1 | grep -E "error"
timeout 400 make test > $OUT/make_test.log 2>&1; echo "make test rc=$?"
grep -E "^(FAIL|SKIP)|passed" $OUT/make_test.log | cut -c1-300
(make sass N=10; make sass N=12) 2>&1 | grep -v "up to date" > $OUT/sass.log; cat $OUT/sass.log
