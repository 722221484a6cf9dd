#!/bin/sh
# Instruction counts of the two engine benchmarks (issue 18): valgrind's
# cachegrind without cache simulation counts instructions, which the load
# of a shared machine does not move (wall time it does). Run from the
# repository root after `cargo build --release`; prints one line per run.
#
#   storm: the retry storm scaled to demand 4000/round, capacity 12000/round,
#          fault capacity 1000/round over its 400 rounds, storm variant only
#          (the variant and its `sweep allowance`, which runs the storm
#          variant at 3, 2 and 1 tries: four runs)
#   continuous: bench/continuous.squall for five simulated minutes
set -eu
bin=${1:-target/release/squall}
count() {
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        sed -n 's/.*I *refs: *//p'
}
echo "storm      $(count "$bin" run scenarios/retry-storm.squall --set demand=4000/round \
    --set capacity=12000/round --set fault_capacity=1000/round --variant storm --jobs 1)"
echo "continuous $(count "$bin" run bench/continuous.squall --set horizon=5min --jobs 1)"
