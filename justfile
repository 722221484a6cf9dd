# squall: shortcuts for everyday work. `just` lists them.
# None is required: the README's two commands are plain cargo.
# Needs just 1.27 or newer (recipe groups).

set shell := ["bash", "-euo", "pipefail", "-c"]

# Arguments reach recipes as "$@", so quoted values such as
# `--set 'spacing=8 rounds'` survive.
set positional-arguments

# List the recipes.
default:
    @just --list --unsorted

# Run a scenario and print its report (extra arguments go to `squall run`).
[group('run')]
run FILE="scenarios/retry-storm.squall" *ARGS:
    cargo run --release -- run "$@"

# Check the given scenario files, or all of scenarios/.
[group('run')]
check *FILES:
    if [ $# -eq 0 ]; then set -- scenarios/*.squall; fi; cargo run --release -- check "$@"

# Run all the tests (extra arguments go to `cargo test`).
[group('test')]
test *ARGS:
    cargo test --workspace --no-fail-fast "$@"

# The long property and fuzz runs: every cut and line of the language fuzz,
# 300 pipeline edits a file, every line left out of the degradation
# scenario, 400 generated scenarios for `fmt`, the whole parameter grids,
# `squall test` over every scenario, every book chart folder redrawn
# (SQUALL_LONG_TESTS=1; the default suite runs a seeded sample of each; CI
# checks every scenario and chart with the release binary as well). A debug
# build, so overflow checks stay on. Extra arguments go to `cargo test`.
[group('test')]
fuzz *ARGS:
    SQUALL_LONG_TESTS=1 cargo test --workspace --no-fail-fast "$@"

# Review changed insta snapshots (needs `cargo install cargo-insta`).
[group('test')]
review:
    cargo insta review

# Everything CI runs, exactly as CI runs it.
[group('test')]
ci:
    bash .ci/run

# Format the code.
[group('code')]
fmt:
    cargo fmt --all

# Lint as CI does: rustfmt check, clippy with warnings as errors.
[group('code')]
lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings

# Run the criterion benchmarks (extra arguments go to criterion, e.g.
# `just bench --warm-up-time 1 --measurement-time 3 scaled`). See book/src/performance.md.
[group('code')]
bench *ARGS:
    cargo bench -p squall-engine --bench engine -- "$@"

# squall vs SimPy on the same scaled retry storm, side by side; writes bench/ROUNDS.md (extra arguments
# go to both models, e.g. `--rounds 2000`; needs `pip install -r bench/simpy/requirements.txt`).
[group('code')]
bench-simpy *ARGS:
    bash bench/compare.sh "$@"

# The continuous-time benchmark (bench/continuous.squall) in squall and SimPy,
# side by side, plus storm-large; writes bench/RESULTS.md. Extra arguments go
# to bench/continuous.sh, e.g. `--simpy-minutes 15` for a shorter SimPy run.
[group('code')]
bench-continuous *ARGS:
    bash bench/continuous.sh "$@"

# The study benchmark: bench/study.squall (8 policies x 10 replications of a
# four-tier chain at 400 req/s for 5 simulated minutes) timed end to end;
# writes bench/STUDY.md. Extra arguments go to bench/study.sh (`--jobs N`).
[group('code')]
bench-study *ARGS:
    bash bench/study.sh "$@"

# Build the Containerfile with Podman and check the image: --help, a scenario,
# the snapshots, and the book's Indexed Job and Slurm array sweeps merged byte for
# byte against the host's binary. Needs root on Debian and minutes (a release
# build); makes stand-in base images when no registry is reachable. See
# tools/container-check.sh. Not part of `just ci`.
[group('test')]
container-check *ARGS:
    bash tools/container-check.sh "$@"

# Build the book into book/book (needs `cargo install mdbook`).
[group('book')]
book:
    mdbook build book

# Draw the charts the book's chapters show: each line of book/charts.txt is
# a `squall` command (`squall run FILE --charts DIR`), run as a reader would,
# into a fresh DIR. Commit the result; tests/book_charts.rs checks it.
[group('book')]
book-charts:
    cargo build --release --bin squall
    grep -v '^#' book/charts.txt | grep . | while read -r line; do \
        dir="${line##*--charts }"; dir="${dir%% *}"; rm -rf "$dir"; \
        echo "squall $line"; target/release/squall --color never $line > /dev/null; \
    done

# Serve the book at http://localhost:3000, rebuilding on change.
[group('book')]
book-serve:
    mdbook serve book --open

# Check every scenario's expectations and snapshot (extra arguments go to `squall test`, e.g. --accept).
[group('test')]
snapshots *ARGS:
    cargo run --release -- test scenarios/ "$@"

# A what-if study (extra arguments go to `squall sweep`).
[group('run')]
sweep FILE="scenarios/retry-storm.squall" *ARGS:
    cargo run --release -- sweep "$@"
