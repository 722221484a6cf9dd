//! The work budget in the file and on the command line, `check`'s warning
//! when the arithmetic bound of a run exceeds it, and engine-limit refusals
//! located at the declaration that causes them, printed once.

use std::path::PathBuf;
use std::process::Output;

use crate::support::*;

fn squall(args: &[&str]) -> Output {
    squall_in(&root())
        .args(args)
        .output()
        .expect("the squall binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Writes `text` to `name` in this binary's scratch directory.
fn scratch(name: &str, text: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    path
}

/// Ten layers of ten tries with no wait against a bottom that fails every
/// call: 10^10 tries per request. `budget` is the `work_budget` line.
fn runaway(budget: &str) -> String {
    let mut text = format!("scenario \"runaway\" {{\n  run 5 rounds\n{budget}  source users {{ rate 1/round  enters l0 }}\n  chain l0 -> l1 -> l2 -> l3 -> l4 -> l5 -> l6 -> l7 -> l8 -> l9 -> bottom\n");
    for i in 0..10 {
        text.push_str(&format!(
            "  service l{i} {{ retry {{ attempts 10  backoff fixed 0 rounds }} }}\n"
        ));
    }
    text.push_str("  fault down { on bottom  during 1..5  capacity 0/round }\n}\n");
    text
}

#[test]
fn a_small_work_budget_in_the_file_stops_a_modest_run_and_the_flag_overrides_it() {
    let file = scratch("budget.squall", &runaway("  work_budget 10_000\n"));
    let path = file.to_str().unwrap_or_default();
    let o = squall(&["run", path]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("after 10005 events, its work budget"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("node `l9`"), "{}", stderr(&o));
    let o = squall(&["run", path, "--work-budget", "20000"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("after 20005 events"), "{}", stderr(&o));
    // The file keeps its literal through `squall fmt`.
    let o = squall(&["fmt", "--check", path]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_work_budget_of_zero_is_a_located_error() {
    let file = scratch("budget0.squall", &runaway("  work_budget 0\n"));
    let path = file.to_str().unwrap_or_default();
    let o = squall(&["check", path]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains(&format!("{path}:3:15")), "{err}");
    assert!(
        err.contains("a work budget must be a whole number"),
        "{err}"
    );
}

#[test]
fn check_warns_when_the_bound_of_the_runaway_exceeds_the_budget() {
    let file = scratch("runaway.squall", &runaway(""));
    let path = file.to_str().unwrap_or_default();
    let o = squall(&["check", path]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!("{path}: warning: variant `base`: source `users` may make up to 50000000000 calls (its requests times the tries and the fan-out along its chain), more than the work budget of 100000000 events; the run may stop at the budget (set `work_budget` or `--work-budget`, make fewer tries, or wait between them)\n")
    );
}

#[test]
fn a_run_too_long_to_count_is_refused_once_at_its_run_line() {
    let file = scratch(
        "long.squall",
        "scenario \"long\" {\n  run 1000000000 rounds\n  source s { rate 1/round  enters a }\n  chain a -> b\n  variant x \"x\" { }\n  variant y \"y\" { }\n}\n",
    );
    let path = file.to_str().unwrap_or_default();
    let counters = "a run of 1000000000 ticks over 2 nodes needs about 61035 MiB of per-tick counters, more than the 2048 MiB squall allows a run (use a coarser clock, or a shorter run)";
    let o = squall(&["run", path]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o), format!("{path}:2:7: error: {counters}\n"));
    let o = squall(&["check", path]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!("{path}:2:7: error: variant `x` and 1 other run: {counters}\n")
    );
}

/// The runaway with `tries` attempts at each of its ten layers, swept over
/// three values: 1 and 2 make at most 11 and 2 047 calls per request (five
/// requests: about 10 000 events, a tenth of the budget of 100 000), 10
/// makes 10^10 tries per request and stops at the budget.
fn swept_runaway() -> String {
    runaway("  work_budget 100_000\n  param tries = 1\n")
        .replace("attempts 10", "attempts $tries")
        .replace(
            "  fault down",
            "  window all 1..5\n  sweep tries \"tries\" { tries in [1, 10, 2] }\n  report { measure bottom_calls = all.bottom.calls }\n  fault down",
        )
}

#[test]
fn a_sweep_point_past_the_work_budget_keeps_the_other_points_and_names_itself() {
    let file = scratch("swept.squall", &swept_runaway());
    let path = file.to_str().unwrap_or_default();
    let out = scratch("swept.md", "");
    let out_path = out.to_str().unwrap_or_default();
    let o = squall(&["sweep", path, "--jobs", "2", "--out", out_path]);
    let err = stderr(&o);
    // Not 0: a point failed; the message names it by number and settings.
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("point 2 of sweep `tries` (tries=10)"), "{err}");
    assert!(err.contains("its work budget"), "{err}");
    assert!(err.contains("wrote the 2 finished points"), "{err}");
    // The finished points' rows are written, the failed one's not; the
    // report says which point failed.
    let text = std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("{e}"));
    let points: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("-----"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(points, ["1", "2"], "{text}");
    assert!(
        text.contains("failed point 2 (tries=10): the run stopped"),
        "{text}"
    );
}
