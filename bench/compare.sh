#!/usr/bin/env bash
# squall vs SimPy on the same scaled retry storm, side by side.
#
#   bench/compare.sh [--scale K] [--rounds N] [--period P] [--reps R]
#
# Defaults: the `engine` benchmark's scaled storm (demand 400/round, capacity
# 1200/round, a 60-round brownout to 100/round every 1000 rounds, 10 000
# rounds). Both models print the same summary (windows at db, recovery,
# accounting, calls per node); the script stops if they differ, so the times
# below are for equal work. Wall time is the best of R runs for each.
# Needs python3 with simpy (pip install -r bench/simpy/requirements.txt).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The defaults, then the caller's flags: a later flag wins in both programs.
args=(--scale 100 --rounds 10000 --period 1000 --reps 1 "$@")

python=${PYTHON:-python3}
if ! "$python" -c 'import simpy' 2>/dev/null; then
    echo "compare.sh: SimPy is missing; install it with" >&2
    echo "    $python -m pip install -r bench/simpy/requirements.txt" >&2
    exit 1
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "scenario: retry storm ${args[*]}"
cargo build --release --quiet -p squall-engine --example throughput
cargo run --release --quiet -p squall-engine --example throughput -- "${args[@]}" >"$out/squall"
"$python" bench/simpy/retry_storm.py "${args[@]}" >"$out/simpy"

if ! diff <(grep -v '^time:' "$out/squall") <(grep -v '^time:' "$out/simpy") >"$out/diff"; then
    echo "compare.sh: squall and SimPy disagree (< squall, > simpy):" >&2
    cat "$out/diff" >&2
    exit 1
fi
grep -v '^time:' "$out/squall"
echo "(SimPy printed the same lines: equal work)"
echo

# `time: NAME SECONDS s  events N  calls N  events/s X  calls/s Y ...`
field() { awk -v key="$1" '/^time:/ { for (i = 1; i < NF; i++) if ($i == key) print $(i + 1) }' "$2"; }
seconds() { awk '/^time:/ { print $3 }' "$1"; }
printf '%-8s %10s %12s %14s %12s %14s\n' "" "wall [s]" "events" "events/s" "calls" "calls/s"
for name in squall simpy; do
    f="$out/$name"
    printf '%-8s %10s %12s %14s %12s %14s\n' "$name" "$(seconds "$f")" \
        "$(field events "$f")" "$(field events/s "$f")" "$(field calls "$f")" "$(field calls/s "$f")"
done
awk -v a="$(seconds "$out/simpy")" -v b="$(seconds "$out/squall")" \
    'BEGIN { printf "squall speed-up (SimPy wall time / squall wall time): %.0fx\n", a / b }'
echo
echo "events: squall counts its queue's events (source ticks, retries; a call takes"
echo "no time and is no event); SimPy counts the events it scheduled (timeouts,"
echo "process starts). Calls (at every node) are the work both did."
