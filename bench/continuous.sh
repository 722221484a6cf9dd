#!/usr/bin/env bash
# squall vs SimPy on the continuous-time benchmark, side by side, and the
# round model's storm-large; writes bench/RESULTS.md (never edit it by hand).
#
#   bench/continuous.sh [--minutes M] [--simpy-minutes S] [--quarter Q]
#                       [--count-minutes C]
#
# Defaults: one simulated hour in squall (bench/continuous.squall) and in
# SimPy (bench/simpy/chain.py), and squall again at a quarter hour to show
# memory flat as the horizon grows; then the throughput example at
# --scale 1000 (storm-large: demand 4000/round, capacity 12000, fault 1000).
# Both models print the same summary (in distribution: different random
# streams). Wall time, peak RSS (/usr/bin/time -v) and calls/s for each,
# and the ratio of calls/s; then squall's instructions per call, counted by
# valgrind's cachegrind (no cache simulation: a count the machine's load
# does not move) over C simulated minutes (5 by default, as
# bench/instructions.sh) and divided by the calls that run printed. Needs
# python3 with simpy, Debian's `time` and valgrind.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

minutes=60 simpy_minutes=60 quarter=15 count_minutes=5
while [ $# -gt 0 ]; do
    case $1 in
    --minutes) minutes=$2; shift 2 ;;
    --simpy-minutes) simpy_minutes=$2; shift 2 ;;
    --quarter) quarter=$2; shift 2 ;;
    --count-minutes) count_minutes=$2; shift 2 ;;
    *) echo "continuous.sh: unknown flag $1" >&2; exit 2 ;;
    esac
done
python=${PYTHON:-python3}
"$python" -c 'import simpy' 2>/dev/null || {
    echo "continuous.sh: SimPy is missing: $python -m pip install -r bench/simpy/requirements.txt" >&2
    exit 1
}
[ -x /usr/bin/time ] || { echo "continuous.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "continuous.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cargo build --release --quiet --bin squall
cargo build --release --quiet -p squall-engine --example throughput
load_before=$(uptime)

# measure NAME CMD...: stdout to $out/NAME, /usr/bin/time's report to $out/NAME.time
measure() {
    local name=$1; shift
    /usr/bin/time -v -o "$out/$name.time" "$@" >"$out/$name" 2>"$out/$name.err"
}
wall() { awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.2f", s }' "$1"; }
rss() { awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$1"; }
row() { grep '^all ' "$1" | tr -s ' '; }
calls() { row "$1" | awk '{ print $3 + $4 + $5 }'; }
# count NAME CMD...: the instructions CMD executes (cachegrind's `I refs`),
# its stdout to $out/NAME
count() {
    local name=$1; shift
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >"$out/$name" |
        sed -n 's/.*I *refs: *//p' | tr -d ,
}

sq=(target/release/squall run bench/continuous.squall)
# One discarded warm-up run of each program first (a simulated minute): the
# first run after a build was measured 10 to 70 % slower on this machine.
"${sq[@]}" --set horizon=1min >/dev/null
"$python" bench/simpy/chain.py --minutes 1 >/dev/null
measure squall "${sq[@]}" --set "horizon=${minutes}min"
measure quarter "${sq[@]}" --set "horizon=${quarter}min"
measure simpy "$python" bench/simpy/chain.py --minutes "$simpy_minutes"
measure storm target/release/examples/throughput --scale 1000 --rounds 10000 --period 1000 --reps 1
instructions=$(count counted "${sq[@]}" --set "horizon=${count_minutes}min" --jobs 1)
load_after=$(uptime)

{
    echo "# Benchmark results"
    echo
    echo "Written by \`bench/continuous.sh\` ($(date -u '+%Y-%m-%d %H:%M UTC')); do not edit by hand."
    echo "Machine: $(nproc) cores, shared; load before: \`${load_before#*load average: }\`,"
    echo "after: \`${load_after#*load average: }\` (1, 5, 15 min). $(rustc --version | cut -d' ' -f1-2),"
    echo "$("$python" --version), SimPy $("$python" -c 'import simpy; print(simpy.__version__)')."
    echo
    echo "## Continuous time: bench/continuous.squall vs bench/simpy/chain.py"
    echo
    echo "edge -> mid -> db, lognormal latency, worker pools and queues, per-try"
    echo "timeouts, retries with full jitter, 1 000 requests/s (Poisson)."
    echo "Summaries (equal in distribution, not digit for digit):"
    echo
    echo '```text'
    printf '%-22s' "" ; echo "requests calls-edge calls-mid calls-db completed timeouts-edge timeouts-mid e2e-p50[ms] e2e-p99[ms]"
    for n in squall simpy quarter; do
        case $n in
        squall) label="squall, ${minutes} min" ;;
        simpy) label="SimPy, ${simpy_minutes} min" ;;
        quarter) label="squall, ${quarter} min" ;;
        esac
        printf '%-22s' "$label"; row "$out/$n" | cut -d' ' -f2- | awk '{ printf "%8s %10s %9s %8s %9s %13s %12s %11s %11s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }'
    done
    echo '```'
    echo
    echo "| run | simulated | calls | wall [s] | calls/s | peak RSS [MB] |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: |"
    for n in squall quarter simpy; do
        case $n in
        squall) label=squall m=$minutes ;;
        quarter) label=squall m=$quarter ;;
        simpy) label=SimPy m=$simpy_minutes ;;
        esac
        c=$(calls "$out/$n") w=$(wall "$out/$n.time")
        printf '| %s | %s min | %s | %s | %.0f | %s |\n' "$label" "$m" "$c" "$w" "$(echo "$c / $w" | bc -l)" "$(rss "$out/$n.time")"
    done
    sq_rate=$(echo "$(calls "$out/squall") / $(wall "$out/squall.time")" | bc -l)
    py_rate=$(echo "$(calls "$out/simpy") / $(wall "$out/simpy.time")" | bc -l)
    echo
    printf '**squall / SimPy, calls per second of wall time: %.1fx.** ' "$(echo "$sq_rate / $py_rate" | bc -l)"
    echo "Wall time includes start-up and the report (squall) or the summary (SimPy)."
    echo
    c=$(calls "$out/counted")
    printf 'Instructions per call (cachegrind, squall, %s simulated min, one job): %s / %s calls = %.0f.\n' \
        "$count_minutes" "$instructions" "$c" "$(echo "$instructions / $c" | bc -l)"
    echo
    echo "## Round model: storm-large"
    echo
    echo "The \`throughput\` example, \`--scale 1000 --rounds 10000 --period 1000\`: demand"
    echo "4000/round, capacity 12000, a brownout to 1000 every 1000 rounds."
    echo
    echo '```text'
    grep '^time:' "$out/storm"
    echo '```'
    echo
    echo "Wall $(wall "$out/storm.time") s, peak RSS $(rss "$out/storm.time") MB."
} >bench/RESULTS.md
cat bench/RESULTS.md
