#!/usr/bin/env bash
# squall vs SimPy on the same scaled retry storm (the round model), side by
# side; writes bench/ROUNDS.md (never edit it by hand).
#
#   bench/compare.sh [--scale K] [--rounds N] [--period P] [--reps R]
#
# Defaults: the `engine` benchmark's scaled storm (demand 400/round, capacity
# 1200/round, a 60-round brownout to 100/round every 1000 rounds, 10 000
# rounds). Both models print the same summary (windows at db, recovery,
# accounting, calls per node); the script stops if they differ, so the times
# below are for equal work. Wall time is the best of R runs for each (3 by
# default: a first run straight after a build was measured 70 % slower here;
# as the programs measure it: the run alone); peak RSS is /usr/bin/time's, of the
# whole program. Then squall's instructions per call: valgrind's cachegrind
# (no cache simulation: a count the machine's load does not move) over one
# run of the same settings, divided by the calls that run printed, and the
# same at issue 23's floor setting (demand 4000/round, capacity 12000/round,
# one brownout to 1000/round in rounds 101..160 of 400: `--scale 1000
# --rounds 400 --period 1000`, the storm-1 run of bench/instructions.sh),
# the figure its floor of 71 instructions per call was measured at. Needs
# python3 with simpy (pip install -r bench/simpy/requirements.txt), Debian's
# `time` and valgrind.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The defaults, then the caller's flags: a later flag wins in both programs.
args=(--scale 100 --rounds 10000 --period 1000 --reps 3 "$@")

python=${PYTHON:-python3}
if ! "$python" -c 'import simpy' 2>/dev/null; then
    echo "compare.sh: SimPy is missing; install it with" >&2
    echo "    $python -m pip install -r bench/simpy/requirements.txt" >&2
    exit 1
fi

[ -x /usr/bin/time ] || { echo "compare.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "compare.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }

# The settings in force (a later flag wins, as in both programs).
scale=100 rounds=10000 period=1000 reps=3
set -- "${args[@]}"
while [ $# -gt 0 ]; do
    case $1 in
    --scale) scale=$2 ;;
    --rounds) rounds=$2 ;;
    --period) period=$2 ;;
    --reps) reps=$2 ;;
    *) echo "compare.sh: unknown flag $1" >&2; exit 2 ;;
    esac
    shift 2
done

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cargo build --release --quiet -p squall-engine --example throughput
load_before=$(uptime)
/usr/bin/time -v -o "$out/squall.time" target/release/examples/throughput "${args[@]}" >"$out/squall"
/usr/bin/time -v -o "$out/simpy.time" "$python" bench/simpy/retry_storm.py "${args[@]}" >"$out/simpy"
# The instructions of one run (cachegrind's `I refs`), its stdout kept.
instructions=$(valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    target/release/examples/throughput "${args[@]}" --reps 1 2>&1 >"$out/counted" |
    sed -n 's/.*I *refs: *//p' | tr -d ,)
floor_args=(--scale 1000 --rounds 400 --period 1000 --reps 1)
floor_instructions=$(valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    target/release/examples/throughput "${floor_args[@]}" 2>&1 >"$out/floor" |
    sed -n 's/.*I *refs: *//p' | tr -d ,)
load_after=$(uptime)

if ! diff <(grep -v '^time:' "$out/squall") <(grep -v '^time:' "$out/simpy") >"$out/diff"; then
    echo "compare.sh: squall and SimPy disagree (< squall, > simpy):" >&2
    cat "$out/diff" >&2
    exit 1
fi

# `time: NAME SECONDS s  events N  calls N  events/s X  calls/s Y ...`
field() { awk -v key="$1" '/^time:/ { for (i = 1; i < NF; i++) if ($i == key) print $(i + 1) }' "$2"; }
seconds() { awk '/^time:/ { print $3 }' "$1"; }
rss() { awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$1"; }

{
    echo "# Round-model benchmark results"
    echo
    echo "Written by \`bench/compare.sh\` ($(date -u '+%Y-%m-%d %H:%M UTC')); do not edit by hand."
    echo "Machine: $(nproc) cores, shared; load before: \`${load_before#*load average: }\`,"
    echo "after: \`${load_after#*load average: }\` (1, 5, 15 min). $(rustc --version | cut -d' ' -f1-2),"
    echo "$("$python" --version), SimPy $("$python" -c 'import simpy; print(simpy.__version__)')."
    echo
    echo "## The scaled retry storm: the \`throughput\` example vs bench/simpy/retry_storm.py"
    echo
    echo "\`${args[*]}\`: demand $((4 * scale))/round, capacity $((12 * scale))/round,"
    echo "a 60-round brownout to ${scale}/round every ${period} rounds, ${rounds} rounds; wall"
    echo "time the best of ${reps}. Both printed this summary, line for line (equal work):"
    echo
    echo '```text'
    grep -v '^time:' "$out/squall"
    echo '```'
    echo
    echo "| run | wall [s] | events | events/s | calls | calls/s | peak RSS [MB] |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    for name in squall simpy; do
        f="$out/$name"
        label=$name
        [ "$name" = simpy ] && label=SimPy
        echo "| $label | $(seconds "$f") | $(field events "$f") | $(field events/s "$f") | $(field calls "$f") | $(field calls/s "$f") | $(rss "$f.time") |"
    done
    echo
    awk -v a="$(seconds "$out/simpy")" -v b="$(seconds "$out/squall")" \
        'BEGIN { printf "**squall / SimPy, wall time for the same work: %.1fx.** ", a / b }'
    echo "Events: squall counts its queue's events"
    echo "(source ticks, retries; a call takes no time and is no event), SimPy the"
    echo "events it scheduled (timeouts, process starts). Calls (at every node) are the"
    echo "work both did."
    echo
    counted=$(field calls "$out/counted")
    awk -v i="$instructions" -v c="$counted" \
        'BEGIN { printf "Instructions per call (cachegrind, squall, one run of the same settings): %s / %s calls = %.0f.\n", i, c, i / c }'
    echo
    awk -v i="$floor_instructions" -v c="$(field calls "$out/floor")" -v a="${floor_args[*]}" \
        'BEGIN { printf "At issue 23'"'"'s floor setting (`%s`: demand 4000/round, capacity 12000/round, one brownout to 1000/round in rounds 101..160 of 400): %s / %s calls = %.0f instructions per call (the hand-written floor: 71; the target: at most about 180).\n", a, i, c, i / c }'
} >bench/ROUNDS.md
cat bench/ROUNDS.md
