//! Report paths that read one replica (`during.api[1].calls`,
//! `during.api[1].p99`, `during.api[1].queue_mean`): tables, lines,
//! measures and `expect` lines read the counts, latency and queue the
//! engine keeps per replica and window, with replications as any metric,
//! and a report that reads no replica keeps none (nor latency or queue,
//! when it reads no replica's).

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
    assert!(
        obs.replicas[0].latency.is_empty(),
        "no latency: the report reads none"
    );
    Ok(())
}

/// `success_rate` of one replica on the zero-time path is its `served`
/// over its `calls`, as the service's: replica 1 fails its 20 calls of
/// `down` (0) and serves its other 80 of `all` (0.8); replica 0 serves
/// all (1). The service answers 380 of its 400 calls with success
/// (100 + 80 + 100 + 100): 0.95.
#[test]
fn a_replicas_success_rate_on_the_zero_time_path() -> TestResult {
    let text = study("").replace(
        "    line \"replica 2",
        "    line \"success {all.api[1].success_rate:.2} {down.api[1].success_rate:.2} {all.api[0].success_rate:.2} {all.api.success_rate:.2}\"\n    line \"replica 2",
    );
    let ran = crate::support::run("one.squall", &text);
    assert_eq!(ran.lines()[0], "success 0.80 0.00 1.00 0.95");
    Ok(())
}

/// Round robin over 4 replicas of a constant 2 ms service with 4 workers
/// each, 2 calls a ms evenly spaced: each replica receives every fourth
/// call, 0.5 a ms, so at most 3 of its calls are in service at once and
/// none waits. Replica 1 is 3 times slower in `slow` (a `latency x 3`
/// fault over 500..999 ms): its calls there take 6 ms, the others' 2 ms.
/// So, from the histograms (within 0.1 %, their bound), replica 1's p50,
/// p99 and mean in `slow` are 6 ms, replica 0's 2 ms, and the service's
/// mean is the mean of its replicas' weighted by their calls, equal here:
/// (6 + 3 x 2) / 4 = 3 ms. Calls of `slow` answered after it (those of
/// its last 6 ms at replica 1) count in the window of their answer, as
/// the service's do: a window that starts at 510 ms and ends at 990 ms
/// holds answers to its own calls alone, hence `mid`.
fn timed(reads: &str) -> String {
    format!(
        r#"scenario "timed replicas" {{
  clock ms
  run 1500ms
  source users {{ rate 2/ms  enters api }}
  chain api
  service api {{ latency 2ms  workers 4  queue unbounded  replicas 4 }}
  fault slow {{ on api[1]  during 500..999  latency x 3 }}
  window mid 510..990
  {reads}
}}"#
    )
}

#[test]
fn a_replicas_latency_read_in_tables_lines_measures_and_expects() -> TestResult {
    let reads = r#"report {
    measure spread = mid.api[1].p99 - mid.api[0].p99
    table "latency" {
      rows windows
      at api
      column "p50 1" = api[1].p50 :.2
      column "p99 1" = api[1].p99 :.2
      column "p99 0" = api[0].p99 :.2
      column "mean" = latency_mean :.2
    }
    line "spread {spread:.1} ms; success {mid.api[1].success_rate:.2}"
  }
  expect mid.api[1].p99 == 6 within 0.1%
  expect mid.api[1].latency_mean == 6 within 0.1%
  expect mid.api[2].p999 == 2 within 0.1%
  expect mid.api.latency_mean == 3 within 0.1%"#;
    let ran = crate::support::run("timed.squall", &timed(reads));
    ran.assert_table(
        "latency",
        &["window", "p50 1", "p99 1", "p99 0", "mean"],
        &[&["mid", "6.00", "6.00", "2.00", "3.00"]],
    );
    assert_eq!(ran.lines(), ["spread 4.0 ms; success 1.00"]);
    let obs = &ran.runs[0].obs;
    assert_eq!(
        obs.replicas[0].latency.len(),
        1,
        "kept: the report reads it"
    );
    let t = obs.timed.as_ref().expect("a run that takes time");
    assert!(
        t.observed.node_latency,
        "the table reads the service's mean"
    );
    Ok(())
}

/// A report that reads one replica's latency and none of the service's,
/// its runs reduced to what it reads (as `squall run` keeps them),
/// records the replica's histograms alone: the service's own latency is
/// not observed (its measures are what a report of window totals pays
/// for, `plan/observe.rs`), and the replica's p99 still reads 6 ms, over
/// its 240 calls answered in `mid` (one every 2 ms over the window's
/// 481 ms: 240 or 241 by the round robin's phase, 240 here).
#[test]
fn a_replicas_latency_alone_records_no_service_latency() -> TestResult {
    let reads = "expect mid.api[1].p99 == 6 within 0.1%";
    let s = load_text("timed.squall", &timed(reads))?;
    let options = StudyOptions {
        keep: squall_report::Keep::Report,
        ..StudyOptions::default()
    };
    let st = Study::run(&s, options)?;
    assert!(st.expectations().iter().all(|e| e.passed));
    let obs = &st.runs[&RunKey::Variant(0)].obs;
    assert!(!obs.timed.as_ref().unwrap().observed.node_latency);
    assert_eq!(obs.replicas[0].latency[0][1].count, 240);
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

/// One replica's queue: a single worker per replica, every replica served
/// in 2 ms, replica 1 in 6 ms in `slow` (500..999 ms), round robin at
/// 2 calls a ms evenly spaced, so each replica receives a call every
/// 2 ms. The fast replicas finish each call as the next arrives: their
/// queue stays empty (0 exactly). Replica 1 in the fault takes a call
/// every 6 ms and receives one every 2 ms: its queue grows by 2 calls per
/// 6 ms, 1/3 a ms, from 0 to about 166 at 999 ms; its mean over `slow`
/// is near half that (83), its largest about 166. The service's queue is
/// replica 1's.
#[test]
fn a_replicas_queue_read_in_a_table_and_expects() -> TestResult {
    let text = r#"scenario "queue" {
  clock ms
  run 1500ms
  source users { rate 2/ms  enters api }
  chain api
  service api { latency 2ms  workers 1  queue unbounded  replicas 4 }
  fault slow { on api[1]  during 500..999  latency x 3 }
  window slow 500..999
  report {
    table "replica queue" {
      rows windows
      at api
      column "Lq 0" = api[0].queue_mean :.2
      column "max 0" = api[0].queue_max :.0
      column "Lq" = queue_mean :.2
    }
  }
  expect slow.api[0].queue_max == 0
  expect slow.api[1].queue_mean == 83 within 3%
  expect slow.api[1].queue_max == 166 within 2%
  expect slow.api[1].queue_mean == slow.api.queue_mean within 0.000001
}"#;
    let ran = crate::support::run("queue.squall", text);
    // 82.83: the sawtooth of whole calls just under the line from 0 to
    // 166 (its mean 83).
    ran.assert_table(
        "replica queue",
        &["window", "Lq 0", "max 0", "Lq"],
        &[&["slow", "0.00", "0", "82.83"]],
    );
    let obs = &ran.runs[0].obs;
    assert_eq!(obs.replicas[0].queue.len(), 1, "kept: the report reads it");
    assert!(obs.replicas[0].latency.is_empty(), "no latency read");
    Ok(())
}
