//! Hedged tries (gRFC A6) on the timed engine, event times by hand.
//!
//! One request reaches `app` at 1 ms; `app` hedges its call to `db`
//! (`hedge grpc { ... }`), and `db` serves each try in a constant time, its
//! answers scripted per call.

use squall_engine::observe::TimedObservations;
use squall_engine::{Observations, Simulation};
use squall_lang::Overrides;

/// What one run shows: calls at db, hedged tries, cancelled tries, wasted
/// busy time at db \[ms\], the request's end-to-end time \[ms\], whether
/// it completed.
#[derive(Debug, PartialEq)]
struct Seen {
    calls: u32,
    hedged: u32,
    cancelled: u64,
    wasted_ms: f64,
    e2e_ms: f64,
    completed: u64,
}

fn run(hedge: &str, latency: &str, script: &str) -> Seen {
    let text = format!(
        r#"scenario "hedge" {{
  clock ms
  run 2s
  source users {{ at [1ms]  enters app }}
  chain app -> db
  service app {{ {hedge} }}
  service db {{ latency {latency}  workers 10 }}
  endpoint db {{ default {{ {script} }} }}
}}"#
    );
    let model = squall_lang::load("hedge.squall", &text)
        .and_then(|s| s.model(&Overrides::default()))
        .unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let obs: Observations = Simulation::builder(&model)
        .build()
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(obs.accounting.balances(), "{:?}", obs.accounting);
    let t: TimedObservations = obs.timed.clone().expect("takes time");
    assert!(t.calls.balances(), "{:?}", t.calls);
    let ms = t.units_per_tick as f64;
    Seen {
        calls: obs.nodes[1].calls.iter().sum(),
        hedged: obs.nodes[0].hedged.iter().sum(),
        cancelled: t.nodes[1].run.cancelled,
        wasted_ms: t.nodes[1].run.wasted_busy as f64 / ms,
        // The one request's end-to-end time, completed (`all`) or failed
        // (`failed`: end-to-end latency of failed requests is kept apart).
        // The latency histogram keeps a bucket's upper bound (under 0.1 %
        // above the value here): whole ms recover the exact time.
        e2e_ms: (t.all.run.max.max(t.failed.run.max) as f64 / ms).floor(),
        completed: obs.accounting.completed,
    }
}

#[test]
fn the_first_answer_wins_and_the_others_are_cancelled() {
    // Tries at 1, 51 and 101 ms (every 50 ms), each served in 120 ms: the
    // first answers at 121 ms and wins. The two others are cancelled then,
    // after 70 ms (51..121) and 20 ms (101..121) of work: 90 ms wasted.
    let seen = run(
        "hedge grpc { max_attempts 3  hedging_delay 50ms }",
        "120ms",
        "200",
    );
    assert_eq!(
        seen,
        Seen {
            calls: 3,
            hedged: 2,
            cancelled: 2,
            wasted_ms: 90.0,
            e2e_ms: 120.0,
            completed: 1
        }
    );
}

#[test]
fn a_non_fatal_answer_sends_the_next_try_at_once() {
    // Delay 100 ms, service 30 ms: the first try answers 503 (non-fatal) at
    // 31 ms, before the timer; the second goes at once, at 31 ms, and
    // answers 200 at 61 ms. No third try (its timer, 131 ms, is stale).
    let seen = run(
        "hedge grpc { max_attempts 3  hedging_delay 100ms }",
        "30ms",
        "503 x 1 then 200",
    );
    assert_eq!(
        seen,
        Seen {
            calls: 2,
            hedged: 1,
            cancelled: 0,
            wasted_ms: 0.0,
            e2e_ms: 60.0,
            completed: 1
        }
    );
}

#[test]
fn with_every_try_out_a_failure_waits_for_the_others() {
    // Tries at 1, 51, 101 ms, 120 ms each; the first answers 503 at 121 ms
    // with no try left to send: the call waits; the second answers 200 at
    // 171 ms, and the third (in service since 101) is cancelled after 70 ms.
    let seen = run(
        "hedge grpc { max_attempts 3  hedging_delay 50ms }",
        "120ms",
        "503 x 1 then 200",
    );
    assert_eq!(
        seen,
        Seen {
            calls: 3,
            hedged: 2,
            cancelled: 1,
            wasted_ms: 70.0,
            e2e_ms: 170.0,
            completed: 1
        }
    );
}

#[test]
fn a_fatal_answer_cancels_the_rest() {
    // The first try answers 404 (terminal) at 121 ms: the two others are
    // cancelled (70 + 20 ms of work) and the request fails then.
    let seen = run(
        "hedge grpc { max_attempts 3  hedging_delay 50ms }",
        "120ms",
        "404",
    );
    assert_eq!(
        seen,
        Seen {
            calls: 3,
            hedged: 2,
            cancelled: 2,
            wasted_ms: 90.0,
            e2e_ms: 120.0,
            completed: 0
        }
    );
}

#[test]
fn no_delay_sends_every_try_at_once() {
    // hedging_delay 0: three tries at 1 ms, all served in 40 ms; the first
    // sent answers first (ties go in event order) at 41 ms; the other two
    // are cancelled after 40 ms each.
    let seen = run("hedge grpc { max_attempts 3 }", "40ms", "200");
    assert_eq!(
        seen,
        Seen {
            calls: 3,
            hedged: 2,
            cancelled: 2,
            wasted_ms: 80.0,
            e2e_ms: 40.0,
            completed: 1
        }
    );
}
