#!/bin/sh
# Instruction counts of the two engine benchmarks (issue 18): valgrind's
# cachegrind without cache simulation counts instructions, which the load
# of a shared machine does not move (wall time it does). Run from the
# repository root after `cargo build --release`; prints one line per
# benchmark.
#
#   storm-1: the retry storm scaled to demand 4000/round, capacity
#          12000/round, fault capacity 1000/round over its 400 rounds, the
#          storm variant alone, one run: issue 18's line. `squall run
#          --variant storm` also runs the report's `sweep allowance`, so
#          this runs that sweep's point `attempts=3` (the storm variant as
#          written) with `squall sweep`, which runs nothing else.
#   storm-4: the same through `squall run --variant storm`: the variant
#          and its `sweep allowance` at 3, 2 and 1 tries (four runs)
#   continuous: bench/continuous.squall for five simulated minutes
set -eu
bin=${1:-target/release/squall}
count() {
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        sed -n 's/.*I *refs: *//p'
}
scale="--set demand=4000/round --set capacity=12000/round --set fault_capacity=1000/round"
# shellcheck disable=SC2086 # $scale is three words on purpose
echo "storm-1    $(count "$bin" sweep scenarios/retry-storm.squall --sweep allowance \
    --vary attempts=3 $scale --jobs 1)  (issue 18: the storm variant, one run)"
# shellcheck disable=SC2086
echo "storm-4    $(count "$bin" run scenarios/retry-storm.squall $scale --variant storm \
    --jobs 1)  (the variant and its sweep allowance: four runs)"
echo "continuous $(count "$bin" run bench/continuous.squall --set horizon=5min --jobs 1)"
