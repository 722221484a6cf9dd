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
