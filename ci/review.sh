#!/usr/bin/env bash
# Review of a pull request's scenarios, for CI: the recipes in ci/github and
# ci/gitlab call it (book/src/reviewing.md explains them).
#
#   ci/review.sh BASE_REF [PATH] [OUT]
#
# 1. `squall test PATH`: every expect line and every committed snapshot.
# 2. `squall diff --git BASE_REF PATH --format markdown --fail-on flipped`,
#    written to OUT (default squall-review.md): the comment to post.
# Exit 0 when both pass; 1 when a snapshot or an expectation fails, or an
# expectation flipped between BASE_REF and now; 2 when a scenario does not
# run. Numbers that moved (within or beyond noise) do not fail the review:
# the comment shows them to the reviewer. SQUALL names the binary (default
# `squall` on PATH).
set -uo pipefail

base=${1:?usage: ci/review.sh BASE_REF [PATH] [OUT]}
path=${2:-scenarios/}
out=${3:-squall-review.md}
squall=${SQUALL:-squall}

"$squall" test "$path"
tested=$?

"$squall" diff --git "$base" "$path" --format markdown --fail-on flipped >"$out"
diffed=$?

if [ "$tested" -ne 0 ]; then
    printf '\n**`squall test` failed**: a snapshot or an expectation does not match (see the job log).\n' >>"$out"
fi
echo "wrote $out"

if [ "$diffed" -ge 2 ] || [ "$tested" -ge 2 ]; then
    exit 2
elif [ "$diffed" -ne 0 ] || [ "$tested" -ne 0 ]; then
    exit 1
fi
exit 0
