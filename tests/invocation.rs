//! A whole invocation: its memory budget, a sweep stopped by Ctrl-C keeping
//! its finished points, `squall test --work-budget`, and `check`'s work
//! bound counting fan-out.

use std::path::PathBuf;

use crate::support::*;

/// A fresh scratch folder of this binary named `name`, holding `file` with
/// `text`; returns the file's path.
fn scratch(name: &str, file: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join(file);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    path
}

/// A sweep of five points over a small chain.
const SWEEP: &str = r#"scenario "five points" {
  run 20 rounds
  param demand = 1/round
  source users { rate $demand  enters api }
  chain api -> db
  service db { capacity 3/round }
  window all 1..20
  sweep load "load" { demand in [1/round, 2/round, 3/round, 4/round, 5/round] }
  report {
    table "by load" {
      rows sweep load
      at db
      label "demand"
      column "calls" = all.calls :.0
    }
  }
}
"#;

#[test]
fn a_sweep_stopped_after_k_points_writes_the_k_finished_points_and_says_so() {
    let file = scratch("interrupt", "five.squall", SWEEP);
    let dir = file.parent().map(PathBuf::from).unwrap_or_default();
    let out = dir.join("table.md");
    // Every point, for comparison.
    let (code, whole, err) = run_in(&dir, &["sweep", "five.squall", "--jobs", "1"]);
    assert_eq!(code, 0, "{err}");
    // Stopped as Ctrl-C stops it, once two points have finished: one
    // thread, so exactly the first two.
    let o = squall_in(&dir)
        .env("SQUALL_STOP_AFTER_RUNS", "2")
        .args([
            "sweep",
            "five.squall",
            "--jobs",
            "1",
            "--format",
            "markdown",
        ])
        .args(["--out", "table.md"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let (code, _, err) = split(&o);
    assert_eq!(code, 130, "{err}");
    assert_eq!(
        err,
        format!(
            "interrupted: wrote the 2 finished points to `table.md`; the other 3 were not run (run the sweep again for all of them)\n"
        )
    );
    let text = std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        text.contains("stopped after 2 of 5 points; the rows of the other 3 are missing"),
        "{text}"
    );
    let rows: Vec<&str> = text.lines().filter(|l| l.contains("/round |")).collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(
        rows[0].starts_with("| 1/round ") && rows[1].starts_with("| 2/round "),
        "{text}"
    );
    // The finished rows are those of the whole sweep.
    let (_, whole_md, _) = run_in(&dir, &["sweep", "five.squall", "--format", "markdown"]);
    for r in &rows {
        assert!(whole_md.lines().any(|l| l == *r), "{r}\n{whole_md}");
    }
    assert!(whole.contains("5/round"), "{whole}");
}

#[test]
fn an_invocation_over_its_memory_budget_is_refused_before_it_runs() {
    let text = SWEEP
        .replace("run 20 rounds", "run 100000 rounds")
        .replace("1..20", "1..100000");
    let file = scratch("memory", "long.squall", &text);
    let dir = file.parent().map(PathBuf::from).unwrap_or_default();
    // The series keep every tick of every run: 100 001 ticks x 72 bytes, six runs.
    let (code, _, err) = run_in(
        &dir,
        &[
            "run",
            "long.squall",
            "--memory-budget",
            "10",
            "--series",
            "s.csv",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with("error: this invocation would hold about 42 MiB for 6 runs (every run keeps all its counters"),
        "{err}"
    );
    assert!(
        err.contains("more than the memory budget of 10 MiB"),
        "{err}"
    );
    // The report's error names no flag; the CLI adds the flags that help.
    assert!(
        err.ends_with("\nhelp: `--variant` and `--shard` run fewer variants or points, `--jobs` fewer at once, and `--memory-budget` raises the budget\n"),
        "{err}"
    );
    assert!(!dir.join("s.csv").exists(), "nothing ran, nothing written");
    // The report alone reduces each run as it finishes: one at a time on
    // one thread fits.
    let (code, _, err) = run_in(
        &dir,
        &["run", "long.squall", "--memory-budget", "10", "--jobs", "1"],
    );
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run_in(
        &dir,
        &[
            "sweep",
            "long.squall",
            "--memory-budget",
            "1",
            "--jobs",
            "1",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("more than the memory budget of 1 MiB"),
        "{err}"
    );
}

/// A run that takes time with some 50 MiB in flight at its second
/// sweep point (100 000 requests a second held 1 s each), 1 MiB at its
/// first.
const IN_FLIGHT: &str = r#"scenario "in flight" {
  clock ms
  run 10s
  param demand = 1000/s
  source users { rate $demand  enters api }
  chain api -> db
  service db { latency 1s  workers 200000 }
  sweep load "load" { demand in [1000/s, 100000/s] }
}
"#;

#[test]
fn a_timed_run_over_the_memory_budget_by_itself_is_refused_at_its_declaration() {
    let file = scratch("run-memory", "flight.squall", IN_FLIGHT);
    let dir = file.parent().map(PathBuf::from).unwrap_or_default();
    // `check` weighs every run the file can make: the sweep's second point
    // is over 20 MiB, named and located at the sweep (its first value).
    let (code, _, err) = run_in(&dir, &["check", "flight.squall", "--memory-budget", "20"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with(
            "flight.squall:8:34: error: point 2 of sweep `load`: this run would hold about "
        ),
        "{err}"
    );
    assert_about_in_flight(&err);
    assert!(
        err.contains("more than the memory budget of 20 MiB"),
        "{err}"
    );
    let (code, out, err) = run_in(&dir, &["check", "flight.squall"]);
    assert_eq!(code, 0, "{out}{err}");
    // `run` refuses its own run at `run 10s` before it starts.
    let one = IN_FLIGHT.replace("param demand = 1000/s", "param demand = 100000/s");
    scratch("run-memory", "one.squall", &one);
    let (code, out, err) = run_in(&dir, &["run", "one.squall", "--memory-budget", "20"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.starts_with("one.squall:3:7: error: this run would hold about "),
        "{err}"
    );
    assert_about_in_flight(&err);
    // The engine's error names no flag; the CLI adds it.
    assert!(
        err.ends_with(
            "or raise the memory budget)\nhelp: raise the memory budget with `--memory-budget`\n"
        ),
        "{err}"
    );
}

/// The refused figure is the engine's estimate (plan.rs checks it equals
/// `squall_engine::simulation::estimate`); here only its size: 100 000
/// requests held 1 s each at a few hundred bytes of request, call and
/// event state apiece are some 50 MiB live (52.3 MiB peak measured), and
/// the estimate counts room for twice that, since the slabs and the
/// calendar grow by doubling (how much of that room a run really has
/// depends on where its live count falls between two powers of two): so
/// between the peak and two and a half times it, far over the 20 MiB
/// budget. The exact figure moves with the engine's structures.
fn assert_about_in_flight(err: &str) {
    let mib: f64 = err
        .split("would hold about ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no figure in {err}"));
    assert!((50.0..130.0).contains(&mib), "{err}");
}

#[test]
fn squall_test_takes_a_work_budget() {
    // Ten tries a request against a db that refuses everything.
    let text = SWEEP.replace(
        "  window all",
        "  service api { retry { attempts 10  backoff fixed 0 rounds } }\n  fault down { on db  during 1..20  capacity 0/round }\n  window all",
    );
    let file = scratch("test-budget", "five.squall", &text);
    let dir = file.parent().map(PathBuf::from).unwrap_or_default();
    let (code, _, err) = run_in(&dir, &["test", ".", "--accept"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run_in(&dir, &["test", ".", "--work-budget", "50"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("its work budget"), "{err}");
    let (code, out, err) = run_in(&dir, &["test", ".", "--work-budget", "1000000"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = run_in(&dir, &["test", ".", "--work-budget", "0"]);
    assert_eq!(code, 3, "{err}");
}

#[test]
fn checks_work_bound_counts_the_fan_out() {
    // 10^6 requests, 10 tries at `api`: 10^7 calls, under the default
    // budget of 10^8; `agg` fetches 20 fields for each, 2 x 10^8 over it.
    let fields: String = (0..20)
        .map(|i| format!("      field f{i} from {} core 1 B\n", ["x", "y"][i % 2]))
        .collect();
    let text = format!(
        "scenario \"fan\" {{\n  run 1000 rounds\n  source users {{ rate 1000/round  enters api }}\n  chain api -> agg -> [x, y]\n  service api {{ retry {{ attempts 10  backoff fixed 0 rounds }} }}\n  service agg {{\n    response {{\n{fields}      marker 1 B\n      policy skip_optional\n    }}\n  }}\n}}\n"
    );
    let file = scratch("fan", "fan.squall", &text);
    let dir = file.parent().map(PathBuf::from).unwrap_or_default();
    let (code, out, err) = run_in(&dir, &["check", "fan.squall"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        err,
        "fan.squall: warning: variant `base`: source `users` may make up to 200000000 calls (its requests times the tries and the fan-out along its chain), more than the work budget of 100000000 events; the run may stop at the budget (set `work_budget` or `--work-budget`, make fewer tries, or wait between them)\n"
    );
    // With five fields the bound is 5 x 10^7: no warning.
    let five: String = fields.lines().take(5).map(|l| format!("{l}\n")).collect();
    let file = scratch("fan5", "fan.squall", &text.replace(&fields, &five));
    let dir = file.parent().map(PathBuf::from).unwrap_or_default();
    let (code, _, err) = run_in(&dir, &["check", "fan.squall"]);
    assert_eq!((code, err.as_str()), (0, ""));
}

/// Two rounds, one request each; `api` tries `db` twice with no wait, and
/// `db` has no capacity in round 1.
const SMALL: &str = r#"scenario "small" {
  run 2 rounds
  source users { rate 1/round  enters api }
  chain api -> db
  service api { retry { attempts 2  backoff fixed 0 rounds } }
  fault down { on db  during 1..1  capacity 0/round }
}
"#;

/// One request every 4 ms; `api` works 1 ms, then calls `db`, which works
/// 2 ms.
const TIMED: &str = r#"scenario "timed" {
  clock ms
  run 12ms
  source users { rate 0.25/ms  enters api }
  chain api -> db
  service api { latency 1ms }
  service db { latency 2ms  workers 1  queue 10 }
}
"#;

/// The rows of a JSON-lines event log, each as (run, time, request, node,
/// try, outcome, latency).
fn rows(text: &str) -> Vec<(String, f64, u64, String, u64, String, f64)> {
    text.lines()
        .map(|l| {
            let v: serde_json::Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}"));
            let s = |k: &str| {
                v[k].as_str()
                    .unwrap_or_else(|| panic!("{k} in {l}"))
                    .to_string()
            };
            let n = |k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k} in {l}"));
            (
                s("run"),
                n("time"),
                n("request") as u64,
                s("node"),
                n("try") as u64,
                s("outcome"),
                n("latency"),
            )
        })
        .collect()
}

#[test]
fn the_event_log_has_one_row_per_answered_call_on_both_engine_paths() {
    let file = scratch("events", "small.squall", SMALL);
    let dir = file.parent().map(PathBuf::from).unwrap_or_default();
    std::fs::write(dir.join("timed.squall"), TIMED).unwrap_or_else(|e| panic!("{e}"));
    let (code, _, err) = run_in(&dir, &["run", "small.squall", "--events", "calls.jsonl"]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(dir.join("calls.jsonl")).unwrap_or_default();
    let row = |t: f64, req: u64, node: &str, try_no: u64, outcome: &str, lat: f64| {
        (
            "base".to_string(),
            t,
            req,
            node.to_string(),
            try_no,
            outcome.to_string(),
            lat,
        )
    };
    let refused = "refused (no capacity)";
    // Round 1: db refuses both tries, so api answers its caller with the
    // refusal. Round 2: db and api answer success. Answered calls are
    // logged in the order they answer: the bottom first.
    assert_eq!(
        rows(&text),
        [
            row(1.0, 1, "db", 1, refused, 0.0),
            row(1.0, 1, "db", 2, refused, 0.0),
            row(1.0, 1, "api", 1, refused, 0.0),
            row(2.0, 2, "db", 1, "success", 0.0),
            row(2.0, 2, "api", 1, "success", 0.0),
        ]
    );
    // The timed path: `rate 0.25/ms` over ticks 1..12 sends 3 requests as
    // the zero-time path does: its first tick counts at the start (credit
    // 0.25 at 1 ms), so they come at 4, 8 and 12 ms; db answers after its
    // 2 ms, api after its own 1 ms and db's 2: at 7 and 11 ms, and the
    // third is still in flight at the run's end (13 ms). (Before the
    // source's fix it sent 2, at 5 and 9 ms.)
    let (code, _, err) = run_in(&dir, &["run", "timed.squall", "--events", "timed.jsonl"]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(dir.join("timed.jsonl")).unwrap_or_default();
    assert_eq!(
        rows(&text),
        [
            row(7.0, 1, "db", 1, "success", 2.0),
            row(7.0, 1, "api", 1, "success", 3.0),
            row(11.0, 2, "db", 1, "success", 2.0),
            row(11.0, 2, "api", 1, "success", 3.0),
        ]
    );
}

#[test]
fn the_event_log_as_sqlite_holds_the_same_rows_in_a_calls_table() {
    let file = scratch("events-sqlite", "small.squall", SMALL);
    let dir = file.parent().map(PathBuf::from).unwrap_or_default();
    for out in ["calls.jsonl", "calls.sqlite"] {
        let (code, _, err) = run_in(&dir, &["run", "small.squall", "--events", out]);
        assert_eq!(code, 0, "{err}");
    }
    let conn =
        rusqlite::Connection::open(dir.join("calls.sqlite")).unwrap_or_else(|e| panic!("{e}"));
    let mut q = conn
        .prepare("SELECT run, time, request, node, try, outcome, latency FROM calls ORDER BY rowid")
        .unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<(String, f64, u64, String, u64, String, f64)> = q
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get::<_, i64>(2)? as u64,
                r.get(3)?,
                r.get::<_, i64>(4)? as u64,
                r.get(5)?,
                r.get(6)?,
            ))
        })
        .unwrap_or_else(|e| panic!("{e}"))
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = std::fs::read_to_string(dir.join("calls.jsonl")).unwrap_or_default();
    assert_eq!(got, rows(&text));
    // Refusals by node, as an engineer would ask.
    let refused: i64 = conn
        .query_row(
            "SELECT count(*) FROM calls WHERE node = 'db' AND outcome LIKE 'refused%'",
            [],
            |r| r.get(0),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(refused, 2);
    // Written through a temporary file that does not stay behind.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn the_event_log_stops_at_its_limit_and_says_so() {
    let file = scratch("events-limit", "small.squall", SMALL);
    let dir = file.parent().map(PathBuf::from).unwrap_or_default();
    let (code, _, err) = run_in(
        &dir,
        &[
            "run",
            "small.squall",
            "--events",
            "calls.jsonl",
            "--events-limit",
            "3",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err,
        "warning: `calls.jsonl` holds the first 3 of 5 calls, the limit (`--events-limit`); the other 2 are left out\n"
    );
    let text = std::fs::read_to_string(dir.join("calls.jsonl")).unwrap_or_default();
    assert_eq!(rows(&text).len(), 3);
    let (code, _, err) = run_in(
        &dir,
        &[
            "run",
            "small.squall",
            "--events",
            "calls.jsonl",
            "--events-limit",
            "0",
        ],
    );
    assert_eq!(code, 3, "{err}");
}

/// Issue 23: `check --estimate` counts retries and replications. Two
/// variants of a chain `api -> db` where `api` makes 3 tries (4 in the
/// second): by hand 2 calls a request if nothing fails, at most 1 + 3 = 4
/// (1 + 4 = 5) if every try fails; 100 requests a second for 10 s are 1 000
/// requests a run, and `replications 5` makes each of the 2 runs 5 times.
#[test]
fn check_estimate_counts_retries_and_replications() {
    let text = r#"scenario "estimate" {
  clock ms
  run 10s
  param attempts = 3
  source users { rate 100/s  enters api }
  chain api -> db
  service api { retry { attempts $attempts  backoff fixed 10ms } }
  service db { latency 5ms }
  variant three "3 tries" { }
  variant four "4 tries" { set attempts = 4 }
  window all 1ms..10s
  report {
    replications 5
    table "t" {
      rows variants x windows [all]
      column "calls" = calls at db
    }
  }
}
"#;
    let path = scratch("check-estimate", "estimate.squall", text);
    let dir = path.parent().unwrap_or_else(|| panic!("no folder"));
    let (code, out, err) = run_in(dir, &["check", "--estimate", "estimate.squall"]);
    assert_eq!(code, 0, "{out}{err}");
    let lines: Vec<&str> = out.lines().filter(|l| l.contains("with retries")).collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines[0].contains(
            "2000 calls if nothing fails, at most 4000 if every try fails (4.0 per request"
        ),
        "{out}"
    );
    assert!(
        lines[1].contains("at most 5000 if every try fails (5.0 per request"),
        "{out}"
    );
    assert!(
        out.contains("in all: 2 runs x 5 replications = 10 runs, about "),
        "{out}"
    );
}
