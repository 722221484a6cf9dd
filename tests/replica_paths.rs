//! Report paths that read one replica (`during.api[1].calls`): tables,
//! lines, measures and `expect` lines read the counts the engine keeps per
//! replica and window, with replications as any metric, and a report that
//! reads no replica keeps none.

use squall_lang::RunKey;
use squall_report::{Study, StudyOptions};

use crate::support::*;

/// Round robin over 4 replicas at 4 calls a round for 100 rounds, replica
/// 1 failing every call (`fail 503`) in rounds 41..60: each replica
/// receives exactly 1 call a round (100 in `all`, 20 in `down`); in `down`
/// replica 1 fails its 20 and serves none, the others serve 20 each.
/// Hand-counted; no draw is made. `replications 3` makes every number a
/// mean over three runs of identical counts (round robin draws nothing),
/// so the mean is the count and the interval is 0 wide.
fn study(replications: &str) -> String {
    format!(
        r#"scenario "one replica" {{
  clock round
  run 100 rounds
  source users {{ rate 4/round  enters api }}
  chain api
  service api {{ capacity 10/round  replicas 4 }}
  fault down {{ on api[1]  during 41..60  fail 503 }}
  window all 1..100
  window down 41..60
  report {{
    {replications}
    measure slow_share = down.api[1].calls / down.api.calls
    table "replica 1" {{
      rows windows
      at api
      column "calls" = api[1].calls :.0
      column "served" = api[1].served :.0
      column "failed" = api[1].failed :.0
      column "per round" = api[1].call_rate :.2
      column "all" = calls :.0
    }}
    line "replica 2 served {{down.api[2].served:.0}} of {{down.api[2].calls:.0}}; share {{slow_share:.2}}"
  }}
  expect all.api[1].calls == 100
  expect down.api[1].failed == 20
  expect down.api[1].served == 0
  expect down.api[0].calls + down.api[1].calls + down.api[2].calls + down.api[3].calls == down.api.calls
}}"#
    )
}

#[test]
fn a_replicas_counts_read_in_tables_lines_measures_and_expects() -> TestResult {
    let ran = crate::support::run("one.squall", &study(""));
    ran.assert_table(
        "replica 1",
        &["window", "calls", "served", "failed", "per round", "all"],
        &[
            &["all", "100", "80", "20", "1.00", "400"],
            &["down", "20", "0", "20", "1.00", "80"],
        ],
    );
    assert_eq!(
        ran.lines(),
        ["replica 2 served 20 of 20; share 0.25"],
        "20 of the 80 calls in `down` are replica 1's"
    );
    let s = load_text("one.squall", &study(""))?;
    let st = Study::run(&s, StudyOptions::default())?;
    assert!(st.expectations().iter().all(|e| e.passed));
    let obs = &st.runs[&RunKey::Variant(0)].obs;
    assert_eq!(
        obs.replicas[0].windows.len(),
        2,
        "kept: the report reads them"
    );
    Ok(())
}

#[test]
fn replications_average_a_replicas_counts() -> TestResult {
    let s = load_text("one.squall", &study("replications 3"))?;
    let st = Study::run(&s, StudyOptions::default())?;
    assert_eq!(st.replications(), 3);
    let e = &st.expectations()[0];
    assert_eq!(e.actual, Some(100.0));
    assert!(st.expectations().iter().all(|e| e.passed));
    Ok(())
}

#[test]
fn a_report_that_reads_no_replica_keeps_no_counts_per_window() -> TestResult {
    // The same file without the report's reads of a replica (the fault
    // still strikes replica 1).
    let text = study("")
        .lines()
        .filter(|l| !l.contains("api[") || l.contains("fault"))
        .collect::<Vec<_>>()
        .join("\n");
    let s = load_text("none.squall", &text)?;
    assert!(s.replica_reads.is_empty());
    let st = Study::run(&s, StudyOptions::default())?;
    let obs = &st.runs[&RunKey::Variant(0)].obs;
    assert!(obs.replicas[0].windows.is_empty());
    Ok(())
}
