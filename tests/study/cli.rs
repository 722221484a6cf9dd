//! The commands end to end: the built binary, `--color never`, exit codes,
//! and snapshots of what a person reads.

use std::path::Path;

use crate::support::{root as repo, run_in};

const STORM: &str = "scenarios/retry-storm.squall";

fn run(args: &[&str]) -> (i32, String, String) {
    run_in(&repo(), args)
}

/// A temporary copy of `scenarios/` (and its snapshots).
fn scenarios_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("no temp dir: {e}"));
    copy_dir(&repo().join("scenarios"), &dir.path().join("scenarios"));
    dir
}

/// A folder `scenarios/` holding only the retry-storm scenario and its
/// snapshot: what the `squall test` tests about that file need, without
/// running every other scenario in a debug build each time.
fn storm_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("no temp dir: {e}"));
    let to = dir.path().join("scenarios");
    std::fs::create_dir_all(to.join("snapshots")).unwrap_or_else(|e| panic!("{e}"));
    for file in ["retry-storm.squall", "snapshots/retry-storm.md"] {
        std::fs::copy(repo().join("scenarios").join(file), to.join(file))
            .unwrap_or_else(|e| panic!("{file}: {e}"));
    }
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{e}"));
    for e in std::fs::read_dir(from).into_iter().flatten().flatten() {
        let p = e.path();
        let dest = to.join(e.file_name());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

pub(crate) fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    assert!(text.contains(from), "`{from}` not in {}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap_or_else(|e| panic!("{e}"));
}

// ------------------------------------------------------------------ help --

#[test]
fn every_subcommand_has_help_with_an_example() {
    for cmd in [
        "run",
        "check",
        "sweep",
        "merge",
        "test",
        "diff",
        "fmt",
        "new",
        "completions",
    ] {
        let (code, out, _) = run(&[cmd, "--help"]);
        assert_eq!(code, 0, "{cmd} --help");
        assert!(
            out.contains("Examples:"),
            "`squall {cmd} --help` has no example:\n{out}"
        );
    }
    let (code, out, _) = run(&["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("1 an expectation or snapshot failed"), "{out}");
}

#[test]
fn completions_come_from_clap() {
    for shell in ["bash", "zsh", "fish"] {
        let (code, out, _) = run(&["completions", shell]);
        assert_eq!(code, 0, "{shell}");
        assert!(
            out.contains("sweep") && out.contains("merge"),
            "{shell}: {out}"
        );
    }
    let (code, _, err) = run(&["completions", "tcsh"]);
    assert_eq!(code, 3, "{err}");
}

#[test]
fn usage_errors_exit_3_with_a_message() {
    let (code, _, err) = run(&["run", "no/such/file.squall"]);
    assert_eq!(code, 3);
    assert!(err.contains("cannot read `no/such/file.squall`"), "{err}");
    let (code, _, _) = run(&["frobnicate"]);
    assert_eq!(code, 3);
}

// ----------------------------------------------------------------- sweep --

const GRID: [&str; 5] = [
    "sweep",
    STORM,
    "--vary",
    "attempts=1,2,3",
    "--vary=spacing=2,4",
];

fn grid(extra: &[&str]) -> (i32, String, String) {
    let mut args: Vec<&str> = GRID.to_vec();
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn a_two_parameter_sweep_is_the_same_on_1_and_4_threads() {
    let (c1, one, e1) = grid(&["--jobs", "1"]);
    let (c4, four, e4) = grid(&["--jobs", "4"]);
    assert_eq!((c1, c4), (0, 0), "{e1}{e4}");
    assert_eq!(one, four);
    assert!(e1.is_empty(), "no progress bar off a terminal: {e1}");
    insta::assert_snapshot!("sweep_two_parameters", one);
}

#[test]
fn three_shards_merge_into_the_single_run_byte_for_byte_in_every_format() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut parts = Vec::new();
    for k in 1..=3 {
        let part = dir.path().join(format!("part-{k}.json"));
        let shard = format!("{k}/3");
        let out = part.display().to_string();
        let (code, stdout, err) = grid(&["--shard", &shard, "--out", &out, "--jobs", "2"]);
        assert_eq!(code, 0, "{err}");
        assert!(stdout.is_empty());
        parts.push(out);
    }
    for format in ["text", "markdown", "json", "csv"] {
        let (code, single, err) = grid(&["--format", format]);
        assert_eq!(code, 0, "{err}");
        // Shards in another order than they were written.
        let (code, merged, err) =
            run(&["merge", &parts[2], &parts[0], &parts[1], "--format", format]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(merged, single, "format {format}");
    }
}

#[test]
fn merge_refuses_an_incomplete_or_mixed_set_of_shards() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = |n: &str| dir.path().join(n).display().to_string();
    let (a, b, other) = (path("a.json"), path("b.json"), path("other.json"));
    assert_eq!(grid(&["--shard", "1/3", "--out", &a]).0, 0);
    assert_eq!(grid(&["--shard", "2/3", "--out", &b]).0, 0);
    let (code, _, err) = run(&["merge", &a, &b]);
    assert_eq!(code, 3);
    assert!(
        err.contains("run the missing shards: `--shard 3/3`"),
        "{err}"
    );

    let (code, _, _) = run(&[
        "sweep",
        STORM,
        "--vary",
        "attempts=1,2",
        "--shard",
        "3/3",
        "--out",
        &other,
    ]);
    assert_eq!(code, 0);
    let (code, _, err) = run(&["merge", &a, &b, &other]);
    assert_eq!(code, 3);
    assert!(
        err.contains("belongs to another study") && err.contains("the list of points"),
        "{err}"
    );

    let (code, _, err) = run(&["merge", &a, &a]);
    assert_eq!(code, 3);
    assert!(err.contains("is in both"), "{err}");

    let (code, _, err) = run(&["merge", STORM]);
    assert_eq!(code, 3);
    assert!(err.contains("is not a squall sweep shard"), "{err}");
}

#[test]
fn the_file_sweep_gives_the_table_squall_run_prints() {
    // As data: the param's column and every digit (the text rounds).
    let (code, out, err) = run(&["sweep", STORM, "--sweep", "allowance", "--format", "csv"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "attempts,calls/round,amplification,dropped,recovery,success\n\
         3,25,6.25,0,25,0.04\n2,22.333333333333332,5.583333333333333,68,17,0.04477611940298507\n\
         1,4,1,180,1,0.25\n"
    );
    let (_, report, _) = run(&["run", STORM]);
    assert!(
        report.contains("3                      25.00           6.25        0        25   0.0400"),
        "{report}"
    );
}

#[test]
fn a_sweep_with_no_sweep_table_tabulates_the_measures() {
    let dir = scenarios_copy();
    let file = dir.path().join("scenarios/retry-storm.squall");
    // Drop the sweep table: from its `table` line to the end of the report.
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    let start = text.find("    table \"what cutting").unwrap_or(text.len());
    let end = text[start..]
        .find("    }\n")
        .map_or(text.len(), |i| start + i + 6);
    std::fs::write(&file, format!("{}{}", &text[..start], &text[end..]))
        .unwrap_or_else(|e| panic!("{e}"));
    let (code, out, err) = run_in(
        dir.path(),
        &[
            "sweep",
            "scenarios/retry-storm.squall",
            "--vary",
            "attempts=1,3",
            "--variant",
            "storm",
        ],
    );
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("sweep_measures", out);
}

#[test]
fn sweep_errors_are_explained() {
    let (code, _, err) = run(&["sweep", STORM, "--vary", "atempts=1,2"]);
    assert_eq!(code, 3);
    assert!(
        err.contains("unknown param `atempts` to vary; did you mean `attempts`?"),
        "{err}"
    );

    let (code, _, err) = run(&["sweep", STORM, "--vary", "attempts=0,1"]);
    assert_eq!(code, 2, "a value that does not fit is an invalid scenario");
    assert!(
        err.contains("`$attempts` gets its value from `--vary attempts=0`"),
        "{err}"
    );

    for (args, needle) in [
        (vec!["--vary", "attempts"], "needs the form NAME=V1,V2"),
        (
            vec!["--vary", "attempts=1", "--shard", "4/3"],
            "1 <= K <= N",
        ),
        (
            vec!["--vary", "attempts=1", "--jobs", "0"],
            "at least one thread",
        ),
        (
            vec!["--vary", "attempts=1", "--shard", "1/2", "--format", "csv"],
            "drop `--format`",
        ),
        (vec!["--sweep", "alowance"], "did you mean `allowance`?"),
        (
            vec!["--vary", "attempts=1", "--variant", "stormm"],
            "did you mean `storm`?",
        ),
    ] {
        let mut all = vec!["sweep", STORM];
        all.extend(args);
        let (code, _, err) = run(&all);
        assert_eq!(code, 3, "{all:?}: {err}");
        assert!(err.contains(needle), "{all:?}: {err}");
    }
}

// ------------------------------------------------------------------ test --

/// The scenarios `squall test` runs here in a debug build, each with its
/// committed snapshot: the retry storm (two expect lines) and degradation on
/// the zero-time path, hedging on the timed one. Every scenario of
/// `scenarios/` with `SQUALL_LONG_TESTS=1` (`just fuzz`); CI's release step
/// `squall test scenarios/` checks them all on every run.
const SNAPSHOT_SAMPLE: [&str; 3] = ["retry-storm", "degradation", "hedging"];

#[test]
fn squall_test_passes_on_the_committed_snapshots() {
    let (code, out, err) = if crate::support::long_tests() {
        run(&["test", "scenarios/"])
    } else {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("no temp dir: {e}"));
        let to = dir.path().join("scenarios");
        std::fs::create_dir_all(to.join("snapshots")).unwrap_or_else(|e| panic!("{e}"));
        for name in SNAPSHOT_SAMPLE {
            for file in [format!("{name}.squall"), format!("snapshots/{name}.md")] {
                std::fs::copy(repo().join("scenarios").join(&file), to.join(&file))
                    .unwrap_or_else(|e| panic!("{file}: {e}"));
            }
        }
        let ran = run_in(dir.path(), &["test", "scenarios/"]);
        assert!(ran.1.contains("squall: 3 passed, 0 failed"), "{}", ran.1);
        ran
    };
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("ok    scenarios/retry-storm.squall (2 expectations, snapshot matches)"),
        "{out}"
    );
    assert!(out.contains(" passed, 0 failed"), "{out}");
}

#[test]
fn a_changed_number_shows_as_a_diff_and_can_be_accepted() {
    let dir = storm_copy();
    let file = dir.path().join("scenarios/retry-storm.squall");
    edit(
        &file,
        "param capacity = 12/round",
        "param capacity = 10/round",
    );
    let (code, out, _) = run_in(dir.path(), &["test", "scenarios"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("-| storm: after | 4.00 | 6.50 | 4.75 | 1.37 | 0.7308 |"),
        "{out}"
    );
    assert!(
        out.contains("+| storm: after | 4.00 | 7.20 | 4.75 | 1.52 | 0.6597 |"),
        "{out}"
    );
    assert!(out.contains("squall test scenarios --accept"), "{out}");
    // The snapshot keeps what concerns the changed file (and the tally's
    // failures), so that adding a scenario elsewhere does not change it.
    let relevant: String = out
        .lines()
        .filter(|l| !l.starts_with("ok    scenarios/"))
        .map(|l| {
            if l.starts_with("squall: ") {
                l.split(", ").last().unwrap_or(l).to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!("test_snapshot_differs", relevant);

    let (code, out, _) = run_in(dir.path(), &["test", "scenarios", "--accept"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("snapshot updated"), "{out}");
    let (code, out, _) = run_in(dir.path(), &["test", "scenarios"]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_missing_snapshot_fails_until_accepted() {
    let dir = scenarios_copy();
    std::fs::remove_dir_all(dir.path().join("scenarios/snapshots"))
        .unwrap_or_else(|e| panic!("{e}"));
    let (code, out, _) = run_in(dir.path(), &["test", "scenarios/retry-storm.squall"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("no snapshot `scenarios/snapshots/retry-storm.md`"),
        "{out}"
    );
    let (code, out, _) = run_in(
        dir.path(),
        &["test", "scenarios/retry-storm.squall", "--accept"],
    );
    assert_eq!(code, 0, "{out}");
    let written = std::fs::read_to_string(dir.path().join("scenarios/snapshots/retry-storm.md"))
        .unwrap_or_default();
    let committed = std::fs::read_to_string(repo().join("scenarios/snapshots/retry-storm.md"))
        .unwrap_or_default();
    assert_eq!(
        written, committed,
        "the snapshot does not depend on where squall runs"
    );
}

#[test]
fn expectation_failures_name_the_line_the_value_and_the_bound() {
    let dir = storm_copy();
    let file = dir.path().join("scenarios/retry-storm.squall");
    edit(
        &file,
        "expect storm.during.db.amplification > 6",
        "expect storm.during.db.amplification in 6.0..6.2",
    );
    edit(
        &file,
        "expect grew.during.db.amplification < 1.1",
        "expect grew.during.db.amplification < 1.1\n  expect storm.recovery == 25 rounds within 10%\n  expect storm.during.db.call_rate == 24/round within 0.5\n  expect no_retries.recovery >= 2 rounds",
    );
    let (code, out, _) = run_in(dir.path(), &["test", "scenarios"]);
    assert_eq!(code, 1);
    assert!(out.contains(
        "scenarios/retry-storm.squall:85: `expect storm.during.db.amplification in 6.0..6.2` failed: the value is 6.25, wanted in 6..6.2"
    ), "{out}");
    assert!(out.contains(
        "scenarios/retry-storm.squall:88: `expect storm.during.db.call_rate == 24/round within 0.5` failed: the value is 25, wanted 24 ± 0.5"
    ), "{out}");
    assert!(out.contains(
        "scenarios/retry-storm.squall:89: `expect no_retries.recovery >= 2 rounds` failed: the value is 1, wanted >= 2"
    ), "{out}");
    assert!(!out.contains(":87:"), "25 rounds within 10% holds: {out}");
    // `run` still prints them, and exits 0.
    let (code, report, _) = run_in(dir.path(), &["run", "scenarios/retry-storm.squall"]);
    assert_eq!(code, 0);
    assert!(
        report.contains("line 87: expect storm.recovery == 25 rounds within 10%"),
        "{report}"
    );
}

#[test]
fn an_invalid_scenario_fails_squall_test_with_exit_2() {
    let dir = storm_copy();
    edit(
        &dir.path().join("scenarios/retry-storm.squall"),
        "on db",
        "on dbb",
    );
    let (code, out, err) = run_in(dir.path(), &["test", "scenarios"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        err.contains("scenarios/retry-storm.squall") && err.contains("did you mean `db`?"),
        "{err}"
    );
}

// ------------------------------------------------------------------ diff --

#[test]
fn diff_of_two_scenarios_shows_changed_cells_with_relative_change() {
    let dir = scenarios_copy();
    let new = dir.path().join("new.squall");
    std::fs::copy(repo().join(STORM), &new).unwrap_or_else(|e| panic!("{e}"));
    edit(
        &new,
        "param capacity = 12/round",
        "param capacity = 10/round",
    );
    let (code, out, err) = run(&["diff", STORM, &new.display().to_string()]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("6.50 → 7.20 (+10.8%)"), "{out}");
    insta::assert_snapshot!("diff_text", out);

    let (code, out, _) = run(&[
        "diff",
        STORM,
        &new.display().to_string(),
        "--format",
        "markdown",
    ]);
    assert_eq!(code, 1);
    assert!(out.contains("**25 → 33 (+32.0%)**"), "{out}");
}

#[test]
fn diff_of_identical_reports_exits_0_also_from_json() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let json = dir.path().join("storm.json").display().to_string();
    assert_eq!(
        run(&["run", STORM, "--format", "json", "--out", &json]).0,
        0
    );
    for (a, b) in [
        (STORM, STORM),
        (json.as_str(), json.as_str()),
        (json.as_str(), STORM),
    ] {
        let (code, out, err) = run(&["diff", a, b]);
        assert_eq!(code, 0, "{a} vs {b}: {out}{err}");
        assert!(out.ends_with("the reports are the same\n"), "{out}");
    }
    let (code, _, err) = run(&["diff", "Cargo.toml.json", STORM]);
    assert_eq!(code, 3, "{err}");
}

#[test]
fn diff_keeps_the_rows_of_every_window() {
    // Issue 19's repro: a retry budget on payments in checkout.squall,
    // whose tables label two columns ("case", "window"). On 5ae4b19 the
    // rows were keyed by their first cell, so only the `after` rows were
    // compared and the `during` row with tries per request at db 8.82 ->
    // 3.32 was missing. The numbers are the release binary's runs of the
    // two files (seed 11 as written); since the ziggurat draws (issue 23),
    // a new sample of the same distributions, the row reads 8.82 -> 3.38.
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let new = dir.path().join("checkout.squall");
    std::fs::copy(repo().join("scenarios/checkout.squall"), &new).unwrap_or_else(|e| panic!("{e}"));
    edit(
        &new,
        "service payments { timeout 250ms  retry",
        "service payments { timeout 250ms  budget envoy { budget_percent 20 }  retry",
    );
    let (code, out, err) = run(&[
        "diff",
        "scenarios/checkout.squall",
        &new.display().to_string(),
    ]);
    assert_eq!(code, 1, "{err}");
    let during = out
        .lines()
        .find(|l| l.starts_with("3 tries in both layers  during") && l.contains("8.82 → 3.38"));
    assert!(during.is_some(), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("3 tries in both layers  after")),
        "{out}"
    );
    // Nine rows a table (three variants, three windows): the two variants'
    // `before` rows (no fault yet, nothing to retry) and `retry at checkout
    // only`'s three (one try at payments, nothing for the budget to cut)
    // are unchanged, and counted.
    assert!(out.contains("(5 rows unchanged)"), "{out}");
    assert!(!out.contains("retry at checkout only"), "{out}");
}

#[test]
fn diff_fails_on_a_change_beyond_noise_by_default_and_on_any_change_on_request() {
    // The book's replicated scenario under another seed: every interval
    // overlaps its old one (the printed means move by at most 8.8 %, the
    // intervals are 1-10 % wide), so the change is noise.
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let reseeded = dir.path().join("replications.squall");
    std::fs::copy(repo().join("book/src/replications.squall"), &reseeded)
        .unwrap_or_else(|e| panic!("{e}"));
    edit(&reseeded, "seed 7", "seed 8");
    let seeded = reseeded.display().to_string();
    let old = "book/src/replications.squall";
    let (code, out, err) = run(&["diff", old, &seeded]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("(-0.9%, within noise)"), "{out}");
    assert!(!out.contains("beyond noise"), "{out}");
    assert!(
        out.ends_with("the reports differ within noise only\n"),
        "{out}"
    );
    let (code, _, err) = run(&["diff", old, &seeded, "--fail-on", "any"]);
    assert_eq!(code, 1, "{err}");
    // The same file is the same with either setting.
    for fail_on in ["any", "beyond-noise"] {
        assert_eq!(run(&["diff", old, old, "--fail-on", fail_on]).0, 0);
    }
    // A single run's change is beyond noise: the retry storm's capacity.
    let storm = dir.path().join("storm.squall");
    std::fs::copy(repo().join(STORM), &storm).unwrap_or_else(|e| panic!("{e}"));
    edit(
        &storm,
        "param capacity = 12/round",
        "param capacity = 10/round",
    );
    let (code, _, err) = run(&[
        "diff",
        STORM,
        &storm.display().to_string(),
        "--fail-on",
        "beyond-noise",
    ]);
    assert_eq!(code, 1, "{err}");
    let (code, _, err) = run(&["diff", STORM, STORM, "--fail-on", "sometimes"]);
    assert_eq!(code, 3, "a bad value is a usage error: {err}");
}

// ------------------------------------------------------------------- fmt --

#[test]
fn fmt_check_reports_unformatted_files_and_fmt_fixes_them() {
    let dir = scenarios_copy();
    let file = dir.path().join("messy.squall");
    std::fs::write(
        &file,
        "# keep me\nscenario \"m\" {run 10 rounds # and me\nchain a->b service b{capacity 2/round}\n\n\n  source u {rate 1/round enters a}}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let name = file.display().to_string();
    let (code, out, err) = run(&["fmt", "--check", &name]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("is not formatted"), "{err}");
    assert!(out.contains("+  chain a -> b\n"), "{out}");
    let (code, _, err) = run(&["fmt", &name]);
    assert_eq!(code, 0, "{err}");
    let formatted = std::fs::read_to_string(&file).unwrap_or_default();
    assert_eq!(
        formatted,
        "# keep me\nscenario \"m\" {\n  run 10 rounds  # and me\n  chain a -> b\n  service b { capacity 2/round }\n\n  source u { rate 1/round  enters a }\n}\n"
    );
    assert_eq!(run(&["fmt", "--check", &name]).0, 0);
    assert_eq!(run(&["check", &name]).0, 0);
}

#[test]
fn fmt_refuses_a_file_that_does_not_parse() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = dir.path().join("bad.squall");
    std::fs::write(&file, "scenario \"b\" { run }\n").unwrap_or_else(|e| panic!("{e}"));
    let (code, _, err) = run(&["fmt", &file.display().to_string()]);
    assert_eq!(code, 2);
    assert!(err.contains("expected"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap_or_default(),
        "scenario \"b\" { run }\n"
    );
}

// ------------------------------------------------------------------- new --

#[test]
fn new_writes_a_starter_that_checks_runs_and_tests() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (code, out, err) = run_in(dir.path(), &["new", "checkout"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("wrote `checkout.squall`"), "{out}");
    assert_eq!(run_in(dir.path(), &["check", "checkout.squall"]).0, 0);
    let (code, report, err) = run_in(dir.path(), &["run", "checkout.squall"]);
    assert_eq!(code, 0, "{err}");
    assert!(report.starts_with("checkout\n"), "{report}");
    assert!(!report.contains("FAILED"), "{report}");
    assert_eq!(
        run_in(dir.path(), &["fmt", "--check", "checkout.squall"]).0,
        0
    );
    let (code, out, _) = run_in(dir.path(), &["sweep", "checkout.squall"]);
    assert_eq!(code, 0);
    assert!(out.contains("what the retry allowance costs"), "{out}");
    // `squall test` creates the snapshot once, then passes.
    assert_eq!(run_in(dir.path(), &["test", ".", "--accept"]).0, 0);
    assert_eq!(run_in(dir.path(), &["test", "."]).0, 0);

    let (code, _, err) = run_in(dir.path(), &["new", "checkout"]);
    assert_eq!(code, 3);
    assert!(err.contains("already exists"), "{err}");
}

// -------------------------------------------------------------------- run --

#[test]
fn run_prints_csv_tables() {
    let (code, out, err) = run(&["run", STORM, "--format", "csv", "--variant", "storm"]);
    assert_eq!(code, 0, "{err}");
    // One long table: the `table` column, then every table's columns;
    // numbers as computed (document 000's 25 calls a round for 4 unique
    // requests, 1 of 25 served).
    assert!(
        out.starts_with(
            "table,case: window,edge/round,calls/round,unique/round,amplification,success,"
        ),
        "{out}"
    );
    assert!(
        out.contains("\ncases,storm: during,4,25,4,6.25,0.04,"),
        "{out}"
    );
    // A title with commas is quoted, as any field; `dropped` is the column
    // the allowance table opened, shared. 4 requests a round for 400
    // rounds enter and complete: 1600.
    assert!(
        out.contains(
            "\n\"accounting: every request ends completed, dropped or in flight\",,,,,,,,0,,storm,1600,1600,0,yes,,,\n"
        ),
        "{out}"
    );
}

#[test]
fn run_writes_one_csv_file_per_table_into_a_folder() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = format!("{}/tables/", dir.path().display());
    let (code, stdout, err) = run(&["run", STORM, "--format", "csv", "--out", &out]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.is_empty(), "{stdout}");
    let cases = std::fs::read_to_string(dir.path().join("tables/cases.csv"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        cases.starts_with(
            "case: window,edge/round,calls/round,unique/round,amplification,success
"
        ),
        "{cases}"
    );
    assert!(
        cases.contains("\nstorm: during,4,25,4,6.25,0.04\n"),
        "{cases}"
    );
    let mut names: Vec<String> = std::fs::read_dir(dir.path().join("tables"))
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "accounting-every-request-ends-completed-dropped-or-in-flight.csv",
            "cases.csv",
            "expectations.csv",
            "what-cutting-the-allowance-buys-same-fault-rounds-101-400.csv",
        ]
    );
}

/// An existing folder named without a trailing `/` takes one file per table
/// too: the check of outputs before the run (which refuses a folder as a
/// report file) must not refuse the folder form of `--format csv`.
#[test]
fn run_writes_csv_tables_into_an_existing_folder() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().display().to_string();
    let (code, stdout, err) = run(&["run", STORM, "--format", "csv", "--out", &out]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(dir.path().join("cases.csv").is_file());
    // Nothing but the tables is left in the folder (no check file).
    let left = std::fs::read_dir(dir.path())
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().ends_with(".csv"))
        .count();
    assert_eq!(left, 0);
}

/// A sweep table that crosses variants with the sweep runs every point on
/// every variant of the table, also when the points are sharded: the
/// document-001 numbers of each day come out under each policy.
#[test]
fn a_sweep_crossed_with_variants_runs_each_point_on_each_variant() {
    let file = "scenarios/degradation.squall";
    let vary = ["--vary", "policy=all_or_nothing,stale_fallback"];
    let mut args = vec!["sweep", file];
    args.extend(vary);
    args.extend(["--format", "json"]);
    let (code, single, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&single).unwrap_or_default();
    let table = |title: &str| {
        json["blocks"]
            .as_array()
            .and_then(|b| b.iter().find(|t| t["title"] == title))
            .cloned()
            .unwrap_or_default()
    };
    let answered = |title: &str, row: usize| table(title)["rows"][row][1].as_i64();
    // all-or-nothing, then stale-fallback, for each day (PINNED, 001).
    assert_eq!(answered("no fault", 0), Some(810));
    assert_eq!(answered("no fault", 1), Some(900));
    assert_eq!(answered("pricing down (optional field)", 0), Some(0));
    assert_eq!(answered("pricing down (optional field)", 1), Some(900));
    assert_eq!(answered("projection down (core fields)", 1), Some(59));
    // Two shards merged give the same table as one run.
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut parts = Vec::new();
    for k in 1..=2 {
        let out = dir
            .path()
            .join(format!("part-{k}.json"))
            .display()
            .to_string();
        let shard = format!("{k}/2");
        let mut a = vec!["sweep", file];
        a.extend(vary);
        a.extend(["--shard", shard.as_str(), "--out", out.as_str()]);
        assert_eq!(run(&a).0, 0);
        parts.push(out);
    }
    let mut m = vec!["merge"];
    m.extend(parts.iter().map(String::as_str));
    m.extend(["--format", "json"]);
    let (code, merged, err) = run(&m);
    assert_eq!(code, 0, "{err}");
    assert_eq!(merged, single);
}
