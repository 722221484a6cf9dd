//! `squall diff --git REF [PATH]` on throwaway git repositories made here:
//! git runs with a fixed user and no global or system config.

use std::path::Path;
use std::process::Command;

use crate::cli::edit;
use crate::support::{root as repo, run_in};

/// Runs git in `dir`; panics with its stderr when it fails.
fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .args([
            "-c",
            "user.name=squall test",
            "-c",
            "user.email=test@squall.invalid",
        ])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run git: {e}"));
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A repository holding `scenarios/NAME` copied from `from` (a path in
/// this repository), committed once.
fn repository(from: &str, name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir(dir.path().join("scenarios")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::copy(repo().join(from), dir.path().join("scenarios").join(name))
        .unwrap_or_else(|e| panic!("{e}"));
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "first"]);
    dir
}

#[test]
fn a_cut_retry_allowance_in_a_renamed_scenario_shows_its_rows_and_the_flipped_expectation() {
    let dir = repository("scenarios/retry-storm.squall", "storm.squall");
    let d = dir.path();
    // The second commit moves the file and cuts the allowance from 3 tries
    // per layer to 2.
    git(
        d,
        &[
            "mv",
            "scenarios/storm.squall",
            "scenarios/retry-storm.squall",
        ],
    );
    edit(
        &d.join("scenarios/retry-storm.squall"),
        "param attempts = 3",
        "param attempts = 2",
    );
    git(d, &["commit", "-q", "-am", "two tries"]);
    let (code, out, err) = run_in(d, &["diff", "--git", "HEAD~1", "--format", "markdown"]);
    // A single seeded run: the changed numbers are beyond noise; the
    // expectation flipped too. Exit 1.
    assert_eq!(code, 1, "{out}{err}");
    // The rename is followed: one scenario, compared, not one removed and
    // one added.
    assert!(
        out.contains("| `scenarios/storm.squall → scenarios/retry-storm.squall` | changed beyond noise | 1 |"),
        "{out}"
    );
    assert!(out.contains("1 scenarios: 0 unchanged, 0 changed within noise, 1 changed beyond noise, 0 added, 0 removed"), "{out}");
    // retry-storm.squall's line 85: with 3 tries per layer the storm's
    // amplification is 6.25 (the seed document's 25/4), with 2 it is 5.58
    // (the file's own "what cutting the allowance buys" table), so `> 6`
    // goes from ok to FAILED.
    assert!(
        out.contains(
            "expectation flipped: `line 85: expect storm.during.db.amplification > 6`: ok → FAILED"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "<details><summary><code>scenarios/storm.squall → scenarios/retry-storm.squall</code>"
        ),
        "{out}"
    );
    // The storm row moved: amplification 6.25 -> 5.58 is -10.7 %.
    assert!(out.contains("6.25 → 5.58"), "{out}");
    // Only flips fail with `--fail-on flipped`, and there is one.
    assert_eq!(
        run_in(d, &["diff", "--git", "HEAD~1", "--fail-on", "flipped"]).0,
        1
    );
    // Against itself nothing changed.
    let (code, out, _) = run_in(d, &["diff", "--git", "HEAD"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("1 scenarios: 1 unchanged"), "{out}");
}

#[test]
fn a_change_inside_the_replications_noise_is_reported_as_such_and_exits_0() {
    let dir = repository("book/src/replications.squall", "noisy.squall");
    let d = dir.path();
    // Another seed: 20 new replications of the same model. Every interval
    // overlaps its old one (the book's file; the means move by at most
    // 8.8 %, see `squall diff` on the two files).
    edit(&d.join("scenarios/noisy.squall"), "seed 7", "seed 8");
    git(d, &["commit", "-q", "-am", "another seed"]);
    let (code, out, err) = run_in(d, &["diff", "--git", "HEAD~1", "scenarios/"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("changed within noise  scenarios/noisy.squall"),
        "{out}"
    );
    assert!(out.contains("(-0.9%, within noise)"), "{out}");
    assert!(!out.contains("beyond noise)"), "{out}");
    assert_eq!(
        run_in(d, &["diff", "--git", "HEAD~1", "--fail-on", "any"]).0,
        1
    );
    // A scenario that does not load (added, uncommitted) is exit 2.
    std::fs::write(d.join("scenarios/broken.squall"), "scenario \"b\" {")
        .unwrap_or_else(|e| panic!("{e}"));
    let (code, out, _) = run_in(d, &["diff", "--git", "HEAD~1"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("failed to run          scenarios/broken.squall")
            || out.contains("failed to run  "),
        "{out}"
    );
    let (code, _, err) = run_in(d, &["diff", "--git", "no-such-ref"]);
    assert_eq!(code, 3, "{err}");
}

/// Runs `bash ci/review.sh ARGS` (this repository's script) in `dir` with
/// the squall under test; exit code and standard output.
fn review(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new("bash")
        .current_dir(dir)
        .env("SQUALL", env!("CARGO_BIN_EXE_squall"))
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .arg(repo().join("ci/review.sh"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run bash: {e}"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn the_review_script_passes_noise_and_fails_a_flipped_expectation() {
    let dir = repository("book/src/replications.squall", "noisy.squall");
    let d = dir.path();
    // Snapshots committed, as a project using the recipe has them.
    assert_eq!(run_in(d, &["test", "scenarios", "--accept"]).0, 0);
    git(d, &["add", "."]);
    git(d, &["commit", "-q", "-m", "snapshots"]);
    // Another seed, its snapshot accepted: the tests pass, the numbers move
    // within noise, so the review passes and the comment says so.
    edit(&d.join("scenarios/noisy.squall"), "seed 7", "seed 8");
    assert_eq!(run_in(d, &["test", "scenarios", "--accept"]).0, 0);
    git(d, &["commit", "-q", "-am", "another seed"]);
    let (code, out) = review(d, &["HEAD~1", "scenarios/", "comment.md"]);
    assert_eq!(code, 0, "{out}");
    let comment = std::fs::read_to_string(d.join("comment.md")).unwrap_or_default();
    assert!(
        comment.contains("| `scenarios/noisy.squall` | changed within noise | 0 |"),
        "{comment}"
    );
    // The retry storm with 2 tries per layer instead of 3 (snapshot not
    // accepted): `expect storm.during.db.amplification > 6` goes from ok
    // (6.25) to FAILED (5.58), and `squall test` fails on it and on the
    // snapshot. The review exits 1 and the comment says both.
    let dir = repository("scenarios/retry-storm.squall", "storm.squall");
    let d = dir.path();
    assert_eq!(run_in(d, &["test", "scenarios", "--accept"]).0, 0);
    git(d, &["add", "."]);
    git(d, &["commit", "-q", "-m", "snapshots"]);
    edit(
        &d.join("scenarios/storm.squall"),
        "param attempts = 3",
        "param attempts = 2",
    );
    let (code, out) = review(d, &["HEAD", "scenarios/", "comment.md"]);
    assert_eq!(code, 1, "{out}");
    let comment = std::fs::read_to_string(d.join("comment.md")).unwrap_or_default();
    assert!(
        comment.contains("| `scenarios/storm.squall` | changed beyond noise | 1 |"),
        "{comment}"
    );
    assert!(comment.contains("**`squall test` failed**"), "{comment}");
}
