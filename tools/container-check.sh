#!/usr/bin/env bash
# Build the repository's Containerfile with Podman and check the image:
# `--help`, a scenario, the scenarios' snapshots, and a sweep run as
# shards the way the book's Kubernetes Indexed Job and Slurm array run it
# (`--shard auto`), merged and compared byte for byte with the host's own
# release binary.
#
#   sudo bash tools/container-check.sh            # or: just container-check
#   sudo bash tools/container-check.sh --rebuild-bases
#
# Needs root, Debian (it installs buildah, podman, runc and debootstrap
# with apt-get when they are missing), rustup with a toolchain, and time:
# the image's build stage is a release build of squall (17 to 19 minutes
# on two busy cores; seconds on a rerun with no source change). Not part
# of `.ci/run`.
#
# Where no image registry is reachable the two base images the
# Containerfile names are made here, from Debian packages, and tagged with
# the names it uses, so it builds unchanged with `--pull=never`:
#
# * `docker.io/library/debian:bookworm-slim`: `debootstrap --variant=minbase
#   bookworm` from the host's own apt mirror, without docs and apt lists.
# * `docker.io/library/rust:1-slim-bookworm`: that plus gcc, libc6-dev and
#   ca-certificates, the host's default rustup toolchain (no docs) under
#   /usr/local/rustup with rustup's proxies in /usr/local/cargo/bin, as the
#   official image lays them out, and a vendored copy of the crates
#   Cargo.lock names (`cargo vendor`, run on the host) with a
#   `/usr/local/cargo/config.toml` that points crates.io at it, so the build
#   stage needs no network.
#
# A tag that already exists and is not one of these stand-ins (a real
# image pulled from a registry) is used as it is. Stand-ins carry the label
# `squall.stand-in`; the rust one is remade when Cargo.lock changes. The
# build stage's cargo target lives in Buildah's cache mount (under
# /var/tmp/buildah-cache), so a second run rebuilds only what changed.
#
# Environment: SQUALL_CONTAINER_DIR (work directory, default
# /var/tmp/squall-container), DEBIAN_MIRROR (default: the host's apt
# source for bookworm), IMAGE (default localhost/squall:check).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${SQUALL_CONTAINER_DIR:-/var/tmp/squall-container}
image=${IMAGE:-localhost/squall:check}
slim=docker.io/library/debian:bookworm-slim
rust=docker.io/library/rust:1-slim-bookworm
toolchain_image=localhost/squall-stand-in/rust-toolchain:bookworm
rebuild_bases=0

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
for arg in "$@"; do
    case "$arg" in
        --rebuild-bases) rebuild_bases=1 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "container-check: unknown argument \`$arg\` (try --help)" >&2; exit 2 ;;
    esac
done

say() { printf '\n== %s\n' "$*"; }
die() { printf 'container-check: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (Podman's rootful storage, debootstrap)"
mkdir -p "$work"

# --- Tools -----------------------------------------------------------------
missing=()
for pair in buildah:buildah podman:podman runc:runc debootstrap:debootstrap; do
    command -v "${pair%%:*}" > /dev/null || missing+=("${pair##*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi
command -v rustup > /dev/null || die "needs rustup (the rust stand-in copies its default toolchain)"

# Podman's defaults ask for more than some sandboxes allow: crun refuses a
# hybrid cgroup v1/v2 hierarchy (runc takes it), and raising the open-files
# limit to 1048576 needs CAP_SYS_RESOURCE. The host's own hard limits fit.
cat > "$work/containers.conf" << EOF
[containers]
default_ulimits = ["nofile=$(ulimit -Hn):$(ulimit -Hn)", "nproc=4096:4096"]
[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF="$work/containers.conf"

label() { podman image inspect --format "{{ index .Labels \"$2\" }}" "$1" 2> /dev/null || true; }
# Make a stand-in for $1 unless a real image has that tag.
wanted() {
    podman image exists "$1" || return 0
    [ -n "$(label "$1" squall.stand-in)" ] || { echo "$1: using the existing image (not a stand-in)"; return 1; }
    [ "$rebuild_bases" = 1 ]
}

# --- debian:bookworm-slim ----------------------------------------------------
# The host's apt source for bookworm (deb822 or one-line format).
mirror() {
    if [ -n "${DEBIAN_MIRROR:-}" ]; then echo "$DEBIAN_MIRROR"; return; fi
    local f
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -e "$f" ] || continue
        awk '/^URIs:/ { u = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") { print u; exit } }' "$f"
    done | head -n 1 | grep . && return
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2> /dev/null |
        sed 's/\[[^]]*\]//' | awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' | grep . ||
        die "no apt source for bookworm; set DEBIAN_MIRROR"
}

if wanted "$slim"; then
    say "stand-in $slim: debootstrap --variant=minbase bookworm"
    rootfs="$work/rootfs"
    rm -rf "$rootfs"
    debootstrap --variant=minbase bookworm "$rootfs" "$(mirror)" > "$work/debootstrap.log" 2>&1 ||
        die "debootstrap failed, see $work/debootstrap.log"
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
        "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/*
    tar --numeric-owner -C "$rootfs" -c . |
        podman import --change 'CMD ["bash"]' \
            --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
            --change 'LABEL squall.stand-in=debootstrap-minbase-bookworm' - "$slim"
    rm -rf "$rootfs"
fi

# --- rust:1-slim-bookworm ----------------------------------------------------
sysroot=$(cd "$repo" && rustc --print sysroot)
toolchain=$(basename "$sysroot")
rustc_version=$("$sysroot/bin/rustc" --version)
if ! podman image exists "$toolchain_image" || [ "$rebuild_bases" = 1 ] ||
    [ "$(label "$toolchain_image" squall.rustc)" != "$rustc_version" ] ||
    [ "$(label "$toolchain_image" squall.base)" != "$(podman image inspect --format '{{.Id}}' "$slim")" ]; then
    say "stand-in toolchain: $rustc_version, gcc, libc6-dev"
    c=$(buildah from --pull=never "$slim")
    buildah run "$c" -- sh -c 'apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ca-certificates gcc libc6-dev && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb'
    m=$(buildah mount "$c")
    mkdir -p "$m/usr/local/rustup/toolchains/$toolchain" "$m/usr/local/cargo/bin"
    for d in bin etc lib libexec; do
        [ -d "$sysroot/$d" ] && cp -a "$sysroot/$d" "$m/usr/local/rustup/toolchains/$toolchain/"
    done
    cp "$(command -v rustup)" "$m/usr/local/cargo/bin/rustup"
    for p in cargo cargo-clippy cargo-fmt clippy-driver rustc rustdoc rustfmt; do
        ln -sf rustup "$m/usr/local/cargo/bin/$p"
    done
    printf 'version = "12"\ndefault_toolchain = "%s"\nprofile = "minimal"\nauto_self_update = "disable"\n\n[overrides]\n' \
        "$toolchain" > "$m/usr/local/rustup/settings.toml"
    chmod -R a+w "$m/usr/local/cargo" "$m/usr/local/rustup"
    buildah umount "$c" > /dev/null
    buildah config --env RUSTUP_HOME=/usr/local/rustup --env CARGO_HOME=/usr/local/cargo \
        --env PATH=/usr/local/cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        --env "RUST_VERSION=$(echo "$rustc_version" | cut -d' ' -f2)" \
        --label "squall.rustc=$rustc_version" \
        --label "squall.base=$(podman image inspect --format '{{.Id}}' "$slim")" "$c"
    buildah run "$c" -- sh -c 'cargo --version && rustc --version && gcc --version | head -n 1'
    buildah commit --rm -q "$c" "$toolchain_image" > /dev/null
fi

lock=$(sha256sum "$repo/Cargo.lock" | cut -d' ' -f1)
if wanted "$rust" || { [ -n "$(label "$rust" squall.stand-in)" ] &&
    { [ "$(label "$rust" squall.cargo-lock)" != "$lock" ] ||
        [ "$(label "$rust" squall.base)" != "$(podman image inspect --format '{{.Id}}' "$toolchain_image")" ]; }; }; then
    say "stand-in $rust: the toolchain and the crates Cargo.lock names (cargo vendor)"
    rm -rf "$work/vendor"
    (cd "$repo" && { cargo vendor --locked --offline --versioned-dirs "$work/vendor" ||
        cargo vendor --locked --versioned-dirs "$work/vendor"; } > /dev/null)
    c=$(buildah from --pull=never "$toolchain_image")
    m=$(buildah mount "$c")
    cp -a "$work/vendor" "$m/usr/local/cargo/vendor"
    printf '[source.crates-io]\nreplace-with = "vendored-sources"\n\n[source.vendored-sources]\ndirectory = "/usr/local/cargo/vendor"\n' \
        > "$m/usr/local/cargo/config.toml"
    buildah umount "$c" > /dev/null
    buildah config --label "squall.stand-in=rustup-toolchain+cargo-vendor" --label "squall.cargo-lock=$lock" \
        --label "squall.base=$(podman image inspect --format '{{.Id}}' "$toolchain_image")" "$c"
    buildah commit --rm -q "$c" "$rust" > /dev/null
    rm -rf "$work/vendor"
fi

# --- The image ---------------------------------------------------------------
say "podman build -f Containerfile -t $image (release build of squall)"
start=$(date +%s)
podman build --pull=never --layers -f "$repo/Containerfile" -t "$image" "$repo"
echo "built in $(($(date +%s) - start)) s; $(podman image inspect --format '{{.Size}}' "$image") bytes"

say "the host's release binary"
(cd "$repo" && cargo build --release --locked --bin squall)
host="$repo/target/release/squall"

# --- Checks ------------------------------------------------------------------
out="$work/check"
rm -rf "$out"
mkdir -p "$out"
failures=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
same() { # same NAME FILE_A FILE_B
    if cmp -s "$2" "$3"; then pass "$1 ($(wc -c < "$2") bytes, identical)"; else
        fail "$1: $2 and $3 differ"; diff "$2" "$3" | head -n 20 || true; fi
}
# The image, offline, as its unprivileged user.
ctr() { podman run --rm --pull=never --network=none "$@"; }

say "checks"
ctr "$image" > "$out/help.image"
"$host" --help > "$out/help.host"
same "--help (the image's CMD)" "$out/help.image" "$out/help.host"

uid=$(ctr --entrypoint id "$image" -u)
[ "$uid" = 65532 ] && pass "runs as uid 65532" || fail "runs as uid $uid, not 65532"

ctr -w /usr/share/squall/scenarios "$image" run retry-storm.squall > "$out/run.image"
(cd "$repo/scenarios" && "$host" run retry-storm.squall) > "$out/run.host"
same "run /usr/share/squall/scenarios/retry-storm.squall" "$out/run.image" "$out/run.host"

# The Containerfile's own example: scenarios mounted read-only at /work.
ctr -v "$repo/scenarios:/work:ro" "$image" run retry-storm.squall > "$out/run-work.image"
same "run retry-storm.squall in /work, mounted read-only" "$out/run-work.image" "$out/run.host"

if ctr "$image" test /usr/share/squall/scenarios > "$out/test.image" 2>&1; then
    pass "squall test /usr/share/squall/scenarios: $(tail -n 1 "$out/test.image")"
else
    fail "squall test /usr/share/squall/scenarios, see $out/test.image"
fi

# The book's Indexed Job (what-if.md): the same `sh -c` command in each of
# N pods, JOB_COMPLETION_INDEX from 0, JOB_COMPLETIONS set in `env`, the
# scenario read-only at /study, the shard files on a shared /results.
vary=(--vary attempts=1,2,3,4 --vary spacing=1,2,4,8)
mkdir -p "$out/study"
cp "$repo/scenarios/retry-storm.squall" "$out/study/"
# The table's header names the scenario's path, so the host's binary runs
# the whole study at the pods' path: mounted into the slim base, with the
# same /study.
host_at_study() {
    ctr -v "$host:/usr/local/bin/squall-host:ro" -v "$out/study:/study:ro" \
        --entrypoint /usr/local/bin/squall-host "$slim" "$@"
}
host_at_study sweep /study/retry-storm.squall "${vary[@]}" > "$out/sweep.host"
host_at_study sweep /study/retry-storm.squall "${vary[@]}" --format markdown > "$out/sweep-md.host"
shards=3
for system in kubernetes slurm; do
    results="$out/results-$system"
    # As the pod's `fsGroup: 65532` leaves a volume: group 65532, setgid.
    mkdir -p "$results"
    chgrp 65532 "$results"
    chmod 2775 "$results"
    for i in $(seq 0 $((shards - 1))); do
        if [ "$system" = kubernetes ]; then
            env=(-e "JOB_COMPLETION_INDEX=$i" -e "JOB_COMPLETIONS=$shards")
            part='/results/part-$JOB_COMPLETION_INDEX.json'
        else # --array=1-3
            env=(-e "SLURM_ARRAY_TASK_ID=$((i + 1))" -e SLURM_ARRAY_TASK_MIN=1 -e "SLURM_ARRAY_TASK_MAX=$shards"
                -e SLURM_ARRAY_TASK_STEP=1 -e "SLURM_ARRAY_TASK_COUNT=$shards")
            part='/results/part-$SLURM_ARRAY_TASK_ID.json'
        fi
        ctr "${env[@]}" -v "$out/study:/study:ro" -v "$results:/results" --entrypoint sh "$image" -c \
            "squall sweep /study/retry-storm.squall ${vary[*]} --shard auto --out $part"
    done
    ctr -v "$results:/results:ro" --entrypoint sh "$image" -c 'squall merge /results/part-*.json' \
        > "$out/merge-$system.image"
    ctr -v "$results:/results:ro" --entrypoint sh "$image" -c 'squall merge /results/part-*.json --format markdown' \
        > "$out/merge-md-$system.image"
    "$host" merge "$results"/part-*.json > "$out/merge-$system.host"
    same "$system: $shards shards merged in the image = one sweep on the host" "$out/merge-$system.image" "$out/sweep.host"
    same "$system: the same, as markdown" "$out/merge-md-$system.image" "$out/sweep-md.host"
    same "$system: the image's shard files merged by the host binary" "$out/merge-$system.host" "$out/sweep.host"
done

# Without the fsGroup the image's user cannot write a root-owned volume.
mkdir -p "$out/results-root-owned"
if ctr -e JOB_COMPLETION_INDEX=0 -e JOB_COMPLETIONS=3 -v "$out/study:/study:ro" -v "$out/results-root-owned:/results" \
    "$image" sweep /study/retry-storm.squall "${vary[@]}" --shard auto --out /results/part-0.json 2> "$out/root-owned.err"; then
    fail "a shard wrote into a root-owned volume as uid 65532"
elif grep -q "cannot write" "$out/root-owned.err"; then
    pass "a root-owned volume is refused with: $(head -n 1 "$out/root-owned.err")"
else
    fail "a root-owned volume: unexpected error, see $out/root-owned.err"
fi

say "results in $out"
if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all checks passed"
