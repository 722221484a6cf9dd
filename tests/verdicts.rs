//! Verdicts and metrics you can trust (issue 19): shares stay shares,
//! end-to-end latency is of completed requests, recovery counts completed
//! requests, saturation is a capacity limit. Each case is small enough to
//! work by hand; the comments work it.

use squall_lang::{Metric, RunKey};

use crate::support::{eval_metric, load_text, node, run_study, window};

/// Seven calls at 1..7 ms and one at 20 ms, each served in 15 ms by a
/// node with a worker for each. Window `late` (16..25 ms) holds one call
/// (at 20 ms, answered at 35 ms) but the answers to the seven early calls
/// (at 16..22 ms): answers in the window over calls in it would be 7/1 =
/// 7.0. Counted against the calls they answer, every call of the window is
/// answered with success: 1/1 and, in `early` (1..10 ms), 7/7; both exactly
/// 1 (counts, no tolerance).
#[test]
fn a_success_share_counts_the_answers_to_the_windows_calls(
) -> Result<(), Box<dyn std::error::Error>> {
    let s = load_text(
        "share.squall",
        r#"scenario "share" {
  clock ms
  run 100ms
  chain db
  service db { latency 15ms  workers 100  queue 100 }
  source poll { enters db  at [1ms, 2ms, 3ms, 4ms, 5ms, 6ms, 7ms, 20ms] }
  window early 1..10
  window late 16..25
}"#,
    )?;
    let study = run_study(&s, Vec::new(), None)?;
    let (db, run) = (Some(node(&s, "db")), RunKey::Variant(0));
    let late = window(&s, "late");
    // The answers counted in the window are still the seven early ones.
    assert_eq!(
        eval_metric(&study, run, late, db, Metric::Served),
        Some(7.0)
    );
    assert_eq!(eval_metric(&study, run, late, db, Metric::Calls), Some(1.0));
    assert_eq!(
        eval_metric(&study, run, late, db, Metric::SuccessRate),
        Some(1.0)
    );
    let early = window(&s, "early");
    assert_eq!(
        eval_metric(&study, run, early, db, Metric::Served),
        Some(0.0)
    );
    assert_eq!(
        eval_metric(&study, run, early, db, Metric::SuccessRate),
        Some(1.0)
    );
    Ok(())
}

/// Four requests (at 1, 2, 3, 4 ms) meet `api`, one worker that serves
/// each in 3 ms in arrival order: they would end at 4, 7, 10, 13 ms, 3, 5,
/// 7 and 9 ms after they entered. A deadline of 8 ms (propagated, so `api`
/// stops at it) fails the fourth at 12 ms. The completed requests' latencies
/// are 3, 5, 7 ms (mean 5, p99 7); the failed one's is its deadline, 8 ms.
/// Mixed, they would give a mean of 5.75 and a p99 of 8.
#[test]
fn end_to_end_latency_is_of_completed_requests() -> Result<(), Box<dyn std::error::Error>> {
    let s = load_text(
        "e2e.squall",
        r#"scenario "e2e" {
  clock ms
  run 100ms
  chain api
  service api { latency 3ms  workers 1  queue 100 }
  source poll { enters api  at [1ms, 2ms, 3ms, 4ms]  deadline 8ms propagate }
  window all 1..100
}"#,
    )?;
    let study = run_study(&s, Vec::new(), None)?;
    let (all, run) = (window(&s, "all"), RunKey::Variant(0));
    let at = |m| eval_metric(&study, run, all, None, m).expect("a value");
    // The histograms hold a value to within their relative error
    // (`RELATIVE_ERROR`, under 1 %): 1 % of the value.
    let near = |a: f64, b: f64| (a - b).abs() <= 0.01 * b;
    assert!(near(at(Metric::E2eMean), 5.0), "{}", at(Metric::E2eMean));
    assert!(near(at(Metric::E2eP99), 7.0), "{}", at(Metric::E2eP99));
    assert!(
        near(at(Metric::E2eFailedMean), 8.0),
        "{}",
        at(Metric::E2eFailedMean)
    );
    assert!(
        near(at(Metric::E2eFailedP99), 8.0),
        "{}",
        at(Metric::E2eFailedP99)
    );
    // Three requests completed, one failed.
    assert_eq!(
        eval_metric(&study, run, all, None, Metric::Completed),
        Some(3.0)
    );
    assert_eq!(
        eval_metric(&study, run, all, None, Metric::Dropped),
        Some(1.0)
    );
    Ok(())
}

/// A consecutive breaker (`after 5 failures  cooldown 30s`) in front of a
/// db that fails every call from 10 s to 20 s; 100 requests a second (one
/// each 10 ms), bins of 1 s, the fault's last tick 20 000 ms.
///
/// The fifth failure opens the breaker at about 10.04 s; it stays open
/// 30 s, so from 20 s to 40 s the db sees no calls (within any threshold)
/// while every request is failed fast: completed share 0 against 1 before
/// the fault. Calls alone would say the db recovered in the first bin after
/// the fault (20 001..21 000 ms: 1 ms). Near 40.04 s the breaker lets a
/// probe through and closes, so the bin 40 001..41 000 ms is the first in
/// which requests complete at their normal share, less 10 % (about 96 of
/// 100): recovery is that bin's start, 20 001 ms after the fault's end. A
/// run that ends at 35 s, with the breaker still open, says starved, in
/// words, and its recovery is n/a.
#[test]
fn a_node_a_breaker_keeps_starved_is_not_recovered() -> Result<(), Box<dyn std::error::Error>> {
    let text = |end: &str| {
        format!(
            r#"scenario "starved" {{
  clock ms
  run {end}
  series every 1s
  chain app -> db
  service app {{ breaker {{ after 5 failures  cooldown 30s }} }}
  service db {{ latency 2ms  workers 10  queue 100 }}
  source users {{ rate 100/s  enters app }}
  fault down {{ on db  during 10s..20s  fail 503 }}
  window before 1s..10s
  window aftermath 20s..{end}
  report {{
    measure normal = before.db.call_rate
    measure recovery = recovery(db, down, 1.1 * normal)
    diagnose db in aftermath vs before
  }}
}}"#
        )
    };
    let s = load_text("starved.squall", &text("60s"))?;
    let study = run_study(&s, Vec::new(), None)?;
    let run = RunKey::Variant(0);
    assert_eq!(
        crate::support::eval_measure(&study, run, "recovery"),
        Some(20_001.0)
    );
    let s = load_text("starved.squall", &text("35s"))?;
    let study = run_study(&s, Vec::new(), None)?;
    assert_eq!(crate::support::eval_measure(&study, run, "recovery"), None);
    let Some(squall_lang::ReportItemSpec::Diagnose(d)) = s.report.items.first() else {
        panic!("no diagnose item");
    };
    let lines = study.diagnose(d);
    let recovery = lines
        .iter()
        .find(|l| l.starts_with("recovery"))
        .expect("a recovery line");
    assert!(
        recovery.contains("is starved, not recovered") && recovery.contains("a share of 0.000"),
        "{recovery}"
    );
    Ok(())
}
