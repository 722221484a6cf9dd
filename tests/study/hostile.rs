//! What a hostile (or unlucky) user does to the command line (issue 13):
//! huge lines, thousands of mistakes, odd encodings, closed pipes, links
//! in folders, outputs onto inputs, interrupted writes.
//!
//! Each test drives the built binary in a temporary folder. None measures
//! time: a runaway shows up as a test that does not finish, not as a
//! threshold.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::support::{root as repo, run_in, squall_in};

/// A small valid scenario (round clock), the body of the tests below.
pub(crate) const TINY: &str = r#"scenario "tiny" {
  clock round
  run 20 rounds

  source users { rate 2/round  enters api }

  chain api -> db
  service api { retry { attempts 2  backoff fixed 1 round } }
  service db { capacity 5/round }

  window all 1..20

  report {
    table "db" {
      rows windows
      at db
      column "calls/round" = call_rate
    }
  }
}
"#;

/// `squall ARGS` in `dir`, colourless.
fn squall(dir: &Path, args: &[&str]) -> Command {
    let mut c = squall_in(dir);
    c.args(args);
    c
}

pub(crate) fn temp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("no temp dir: {e}"))
}

pub(crate) fn write(path: &Path, text: impl AsRef<[u8]>) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

pub(crate) fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn no_panic(args: &[&str], code: i32, err: &str) {
    assert!(
        code != 101 && !err.contains("panicked"),
        "squall {args:?} panicked (exit {code}):\n{err}"
    );
}

// ---------------------------------------------------------- diagnostics --

#[test]
fn a_diagnostic_past_column_65535_is_reported_not_a_panic() {
    let dir = temp();
    // The mistake (`bogus`) sits at column 70 0xx of line 1.
    let text = format!(
        "scenario \"x\" {{ clock round run 10 rounds source users {{ rate 2/round enters api }} chain api -> db {} bogus }}\n",
        " ".repeat(70_000)
    );
    let col = text.find("bogus").unwrap_or(0) + 1;
    write(&dir.path().join("wide.squall"), &text);
    for args in [
        ["check", "wide.squall"],
        ["run", "wide.squall"],
        ["fmt", "wide.squall"],
    ] {
        let (code, _, err) = run_in(dir.path(), &args);
        no_panic(&args, code, &err);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(&format!("wide.squall:1:{col}")), "{err}");
        assert!(err.contains("too long to quote"), "{err}");
        // The 70 000 spaces are not echoed.
        assert!(err.len() < 2_000, "{} bytes of diagnostics", err.len());
    }
    // The file is unchanged by the refused `fmt`.
    assert_eq!(read(&dir.path().join("wide.squall")), text);
}

#[test]
fn thousands_of_problems_print_the_first_twenty_and_a_count() {
    let dir = temp();
    // 1 000 services that are in no chain: 1 000 `unknown node` errors on
    // 1 000 lines, and a 1 000-way fan-out on one long line.
    let n = 1_000;
    let mut text = String::from(
        "scenario \"many\" {\n  clock round\n  run 10 rounds\n  source users { rate 2/round enters api }\n  chain api -> [",
    );
    let fan: Vec<String> = (0..n).map(|i| format!("f{i}")).collect();
    text.push_str(&fan.join(", "));
    text.push_str("]\n  service api { response { field a from f0 core 100 B } }\n");
    for i in 0..n {
        let _ = writeln!(text, "  service m{i} {{ capacity 5/round }}");
    }
    text.push_str("}\n");
    write(&dir.path().join("many.squall"), &text);
    let (code, _, err) = run_in(dir.path(), &["check", "many.squall"]);
    no_panic(&["check"], code, &err);
    assert_eq!(code, 2, "{err}");
    let shown = err.matches("  × ").count();
    assert_eq!(shown, 20, "{err}");
    let total = err
        .lines()
        .find_map(|l| l.strip_prefix("many.squall: ")?.strip_suffix(" problems"))
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(0);
    assert!(total >= n, "{err}");
    assert!(
        err.contains(&format!("... and {} more", total - 20)),
        "{err}"
    );
    // Before, every problem quoted the fan-out line: megabytes.
    assert!(err.len() < 100_000, "{} bytes of diagnostics", err.len());
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let dir = temp();
    let mut bytes = "\u{feff}".as_bytes().to_vec();
    bytes.extend(TINY.as_bytes());
    write(&dir.path().join("bom.squall"), &bytes);
    let (code, out, err) = run_in(dir.path(), &["check", "bom.squall"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("bom.squall: ok"), "{out}");
    let (code, _, err) = run_in(dir.path(), &["run", "bom.squall"]);
    assert_eq!(code, 0, "{err}");
    // Formatted apart from the mark: `fmt --check` passes.
    let (code, _, err) = run_in(dir.path(), &["fmt", "--check", "bom.squall"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn invalid_utf8_says_where() {
    let dir = temp();
    // Latin-1 `é` (0xe9) in a comment on line 3, column 22.
    let mut bytes = b"scenario \"x\" {\n  clock round\n  run 10 rounds # caf".to_vec();
    let at = bytes.len();
    bytes.extend(b"\xe9\n}\n");
    write(&dir.path().join("latin1.squall"), &bytes);
    for args in [
        ["check", "latin1.squall"],
        ["run", "latin1.squall"],
        ["fmt", "latin1.squall"],
    ] {
        let (code, _, err) = run_in(dir.path(), &args);
        assert_eq!(code, 3, "{args:?}: {err}");
        assert!(
            err.contains(&format!("byte {at} (line 3, column 22)")),
            "{args:?}: {err}"
        );
    }
    let (code, out, _) = run_in(dir.path(), &["test", "."]);
    assert_eq!(code, 1);
    assert!(out.contains("(line 3, column 22)"), "{out}");
}

// ---------------------------------------------------------------- report --

#[test]
fn expect_lines_about_variants_left_out_are_not_run() {
    let (code, out, err) = run_in(
        &repo(),
        &["run", "scenarios/retry-storm.squall", "--variant", "storm"],
    );
    assert_eq!(code, 0, "{err}");
    let expectations = out.split("expectations\n").nth(1).unwrap_or("");
    // `grew` was left out: its line is not run, not FAILED.
    assert!(!expectations.contains("FAILED"), "{out}");
    let grew = expectations
        .lines()
        .find(|l| l.contains("expect grew."))
        .unwrap_or("");
    assert!(grew.ends_with("not run"), "{out}");
    let storm = expectations
        .lines()
        .find(|l| l.contains("expect storm."))
        .unwrap_or("");
    assert!(storm.ends_with("ok"), "{out}");
}

#[test]
fn the_diagnosis_does_not_pluralise_ms() {
    let dir = temp();
    let text = r#"scenario "ms" {
  clock ms
  run 200ms

  source users { rate 2/ms  enters api }

  chain api -> db
  param attempts = 3
  service api { retry { attempts $attempts  backoff fixed 2ms } }
  service db { capacity 5/ms }

  fault slow { on db  during 51..100  capacity 1/ms }

  window before 1..50
  window during 51..100

  variant storm "storm" { }
  variant single "no retries" { set attempts = 1 }

  report {
    diagnose db in during vs before against single
  }
}
"#;
    write(&dir.path().join("ms.squall"), text);
    let (code, out, err) = run_in(dir.path(), &["run", "ms.squall"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(" of 50 ms)"), "{out}");
    assert!(!out.contains("mss"), "{out}");
}

// ------------------------------------------------------------- new, test --

#[test]
fn new_makes_the_folder_and_keeps_dots_in_the_name() {
    let dir = temp();
    let (code, out, err) = run_in(dir.path(), &["new", "studies/payments"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("studies/payments.squall"), "{out}");
    let text = read(&dir.path().join("studies/payments.squall"));
    assert!(text.contains("scenario \"payments\""), "{text}");

    let (code, out, err) = run_in(dir.path(), &["new", "v1.2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("wrote `v1.2.squall`"), "{out}");
    assert!(dir.path().join("v1.2.squall").is_file());
    assert!(!dir.path().join("v1.squall").exists());
    assert!(read(&dir.path().join("v1.2.squall")).contains("scenario \"v1.2\""));
    // `.squall` given: not doubled.
    let (code, out, _) = run_in(dir.path(), &["new", "x.squall"]);
    assert_eq!(code, 0);
    assert!(out.contains("wrote `x.squall`"), "{out}");
}

#[cfg(unix)]
#[test]
fn test_does_not_follow_links_to_folders() {
    let dir = temp();
    let root = dir.path().join("s");
    std::fs::create_dir_all(&root).unwrap_or_else(|e| panic!("{e}"));
    write(&root.join("tiny.squall"), TINY);
    // A link cycle, and a link out of the folder.
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap_or_else(|e| panic!("{e}"));
    write(&outside.join("other.squall"), TINY);
    std::os::unix::fs::symlink(&root, root.join("loop")).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(&outside, root.join("away")).unwrap_or_else(|e| panic!("{e}"));
    let (code, out, err) = run_in(dir.path(), &["test", "s", "--accept"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.matches("ok    ").count(), 1, "{out}");
    assert!(!out.contains("other.squall"), "{out}");
    assert!(out.contains("1 passed, 0 failed"), "{out}");
}

// ------------------------------------------------------------ closed pipes --

/// Runs squall with a standard output nobody reads: the pipe's read end is
/// closed before squall starts, so every write fails.
fn with_closed_stdout(dir: &Path, args: &[&str]) -> (i32, String) {
    let (reader, writer) = std::io::pipe().unwrap_or_else(|e| panic!("no pipe: {e}"));
    drop(reader);
    let o = squall(dir, args)
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .unwrap_or_else(|e| panic!("cannot start squall: {e}"));
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let dir = temp();
    write(&dir.path().join("tiny.squall"), TINY);
    write(
        &dir.path().join("messy.squall"),
        TINY.replace("service db { capacity", "service db   {  capacity"),
    );
    write(
        &dir.path().join("other.squall"),
        TINY.replace("2/round", "3/round"),
    );
    for (args, want) in [
        (&["test", "tiny.squall", "--accept"][..], 0),
        (&["test", "tiny.squall"][..], 0),
        (&["fmt", "--check", "messy.squall"][..], 1),
        (&["diff", "tiny.squall", "other.squall"][..], 1),
        (&["run", "tiny.squall"][..], 0),
        (&["completions", "bash"][..], 0),
    ] {
        let (code, err) = with_closed_stdout(dir.path(), args);
        no_panic(args, code, &err);
        assert_eq!(code, want, "squall {args:?}:\n{err}");
    }
}

// ----------------------------------------------------------------- writes --

/// A hard link to `path`: it keeps the old bytes when `path` is replaced by
/// a rename, and sees the new ones when `path` is rewritten in place (the
/// write that a Ctrl-C leaves truncated).
#[cfg(unix)]
fn link_to(path: &Path) -> PathBuf {
    let link = path.with_extension("before");
    std::fs::hard_link(path, &link).unwrap_or_else(|e| panic!("{e}"));
    link
}

/// No temporary file is left beside the outputs.
fn no_leftovers(dir: &Path) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        assert!(!name.ends_with(".tmp"), "left over: {name}");
    }
}

#[cfg(unix)]
#[test]
fn every_output_replaces_its_file_in_one_rename() {
    let dir = temp();
    let d = dir.path();
    write(&d.join("tiny.squall"), TINY);
    let outputs = ["report.txt", "series.csv", "chart.svg"];
    for name in outputs {
        write(&d.join(name), "old\n");
    }
    let links: Vec<PathBuf> = outputs.iter().map(|n| link_to(&d.join(n))).collect();
    let (code, _, err) = run_in(
        d,
        &[
            "run",
            "tiny.squall",
            "--out",
            "report.txt",
            "--series",
            "series.csv",
            "--chart",
            "chart.svg",
        ],
    );
    assert_eq!(code, 0, "{err}");
    for (name, link) in outputs.iter().zip(&links) {
        assert_ne!(read(&d.join(name)), "old\n", "{name} not written");
        assert_eq!(read(link), "old\n", "{name} was rewritten in place");
    }

    // `fmt` and `test --accept` replace the scenario and the snapshot.
    write(
        &d.join("messy.squall"),
        TINY.replace("service db { capacity", "service db   {  capacity"),
    );
    let messy = link_to(&d.join("messy.squall"));
    let (code, _, err) = run_in(d, &["fmt", "messy.squall"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(read(&d.join("messy.squall")), TINY);
    assert_ne!(read(&messy), TINY, "fmt rewrote the file in place");

    std::fs::create_dir_all(d.join("snapshots")).unwrap_or_else(|e| panic!("{e}"));
    write(&d.join("snapshots/tiny.md"), "old\n");
    let snap = link_to(&d.join("snapshots/tiny.md"));
    let (code, out, err) = run_in(d, &["test", "tiny.squall", "--accept"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(read(&d.join("snapshots/tiny.md")).starts_with("# tiny"));
    assert_eq!(
        read(&snap),
        "old\n",
        "--accept rewrote the snapshot in place"
    );
    no_leftovers(d);
    no_leftovers(&d.join("snapshots"));

    // An output that is a link is written through it, as before.
    write(&d.join("target.txt"), "old\n");
    std::os::unix::fs::symlink(d.join("target.txt"), d.join("via.txt"))
        .unwrap_or_else(|e| panic!("{e}"));
    let (code, _, err) = run_in(d, &["run", "tiny.squall", "--out", "via.txt"]);
    assert_eq!(code, 0, "{err}");
    assert!(read(&d.join("target.txt")).starts_with("tiny"));
    let kind = std::fs::symlink_metadata(d.join("via.txt")).map(|m| m.file_type().is_symlink());
    assert!(matches!(kind, Ok(true)), "the link was replaced by a file");
}

#[test]
fn the_shard_file_is_replaced_in_one_rename() {
    let dir = temp();
    let d = dir.path();
    let swept = TINY
        .replace("run 20 rounds", "run 20 rounds\n  param cap = 5/round")
        .replace("capacity 5/round", "capacity $cap");
    write(&d.join("tiny.squall"), swept);
    write(&d.join("shard.json"), "old\n");
    #[cfg(unix)]
    let link = link_to(&d.join("shard.json"));
    let (code, _, err) = run_in(
        d,
        &[
            "sweep",
            "tiny.squall",
            "--vary",
            "cap=4/round,5/round",
            "--shard",
            "1/1",
            "--out",
            "shard.json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(read(&d.join("shard.json")).starts_with('{'));
    #[cfg(unix)]
    assert_eq!(read(&link), "old\n");
    no_leftovers(d);
}

#[test]
fn out_onto_the_scenario_is_refused() {
    let dir = temp();
    let d = dir.path();
    write(&d.join("tiny.squall"), TINY);
    for flag in ["--out", "--series", "--chart"] {
        let (code, _, err) = run_in(d, &["run", "tiny.squall", flag, "./tiny.squall"]);
        assert_eq!(code, 3, "{flag}: {err}");
        assert!(err.contains("is an input"), "{err}");
        assert_eq!(
            read(&d.join("tiny.squall")),
            TINY,
            "{flag} replaced the scenario"
        );
    }
    // Nor a sweep's output onto its scenario, or a merge's onto a shard.
    let swept = TINY
        .replace("run 20 rounds", "run 20 rounds\n  param cap = 5/round")
        .replace("capacity 5/round", "capacity $cap");
    write(&d.join("swept.squall"), &swept);
    let sweep = ["sweep", "swept.squall", "--vary", "cap=4/round,5/round"];
    let (code, _, err) = run_in(d, &[&sweep[..], &["--out", "swept.squall"]].concat());
    assert_eq!(code, 3, "{err}");
    assert_eq!(read(&d.join("swept.squall")), swept);
    let shard = [&sweep[..], &["--shard", "1/1", "--out", "part.json"]].concat();
    assert_eq!(run_in(d, &shard).0, 0);
    let part = read(&d.join("part.json"));
    let (code, _, err) = run_in(d, &["merge", "part.json", "--out", "part.json"]);
    assert_eq!(code, 3, "{err}");
    assert_eq!(read(&d.join("part.json")), part);
}

#[test]
fn a_bad_chart_node_is_refused_before_the_run() {
    let dir = temp();
    let d = dir.path();
    write(&d.join("tiny.squall"), TINY);
    let (code, _, err) = run_in(
        d,
        &[
            "run",
            "tiny.squall",
            "--series",
            "series.csv",
            "--chart",
            "chart.svg",
            "--chart-node",
            "dbb",
        ],
    );
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("unknown node `dbb` to chart; did you mean `db`?"),
        "{err}"
    );
    assert!(!d.join("series.csv").exists(), "the series was written");
    assert!(!d.join("chart.svg").exists());
}

// ------------------------------------------------------------------- book --

#[test]
fn the_cli_reference_gives_the_real_sweep_limit() {
    let cli = read(&repo().join("book/src/reference/cli.md"));
    let row = cli
        .lines()
        .find(|l| l.starts_with("| `--vary"))
        .unwrap_or_else(|| panic!("no `--vary` row in cli.md"));
    let limit = squall_lang::resolve::sweep::MAX_POINTS;
    let written = {
        let digits = limit.to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    };
    assert!(
        row.contains(&format!("at most {written}")),
        "cli.md says `{row}`, the code allows {limit}"
    );
}
