#!/usr/bin/env bash
# The study benchmark (issue 23): how long a realistic what-if study takes
# from the command line. bench/study.squall is a four-tier chain at 400
# requests/s (Poisson) for five simulated minutes with a database brownout,
# eight policies x ten replications = 80 runs, most of them retry storms.
# Writes bench/STUDY.md (never edit it by hand): wall time and peak RSS of
# `squall run bench/study.squall` on every core, the runs and calls it
# simulated, the machine's load around it, and the report it printed.
#
#   bench/study.sh [--jobs N]
#
# The target is under 60 s of wall time on 2 cores. Wall time moves with the
# machine's load (printed beside it); bench/instructions.sh counts
# instructions, which the load does not move.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

jobs=$(nproc)
while [ $# -gt 0 ]; do
    case $1 in
    --jobs) jobs=$2; shift 2 ;;
    *) echo "study.sh: unknown flag $1" >&2; exit 2 ;;
    esac
done
[ -x /usr/bin/time ] || { echo "study.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cargo build --release --quiet --bin squall
sq=(target/release/squall run bench/study.squall --jobs "$jobs")
# One discarded warm-up (one variant, three simulated minutes): the first run
# after a build was measured 10 to 70 % slower on this machine.
"${sq[@]}" --variant none --set horizon=3min >/dev/null
load_before=$(uptime)
/usr/bin/time -v -o "$out/time" "${sq[@]}" >"$out/report" 2>"$out/err"
load_after=$(uptime)
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.2f", s }' "$out/time")
rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$out/time")
runs=$(target/release/squall check --estimate bench/study.squall | sed -n 's/.*= \([0-9]*\) runs.*/\1/p')
{
    echo "# Study benchmark"
    echo
    echo "Written by \`bench/study.sh\` ($(date -u '+%Y-%m-%d %H:%M UTC')); do not edit by hand."
    echo "Machine: $(nproc) cores, shared; load before: \`${load_before#*load average: }\`,"
    echo "after: \`${load_after#*load average: }\` (1, 5, 15 min). $(rustc --version | cut -d' ' -f1-2)."
    echo
    echo "\`squall run bench/study.squall --jobs $jobs\`: a four-tier chain at 400 requests/s"
    echo "for 5 simulated minutes with a database brownout; 8 policies x 10 replications."
    echo
    echo "| runs | wall [s] | target [s] | peak RSS [MB] |"
    echo "| ---: | ---: | ---: | ---: |"
    echo "| $runs | $wall | 60 | $rss |"
    echo
    echo "The report it printed:"
    echo
    echo '```text'
    cat "$out/report"
    echo '```'
} >bench/STUDY.md
cat bench/STUDY.md
