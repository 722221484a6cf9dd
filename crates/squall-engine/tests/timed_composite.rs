//! Composite responses with time, by hand: fields fetched in parallel,
//! each waited for at most its timeout, the response assembled when the
//! last field is in or out (`simulation/timed/composite.rs`).
//!
//! Every case is one request (or two) at a known moment, so every event
//! time is worked out in the comment above the test and asserted exactly.

use squall_engine::observe::TimedObservations;
use squall_engine::Observations;

mod common;

const MS: u64 = 1_000_000;

/// A tracking response of a core field `status` from `a` and an optional
/// field `fee` from `b`; `extra` goes into the scenario.
fn file(a: &str, b: &str, response: &str, extra: &str) -> String {
    format!(
        r#"scenario "fields in time" {{
  clock ms
  series every 1ms
  run 1s
  source one {{ enters tracking  at [1ms] }}
  chain tracking -> [a, b]
  service tracking {{
    response {{
      field status from a core 100 B timeout 50ms
      field fee from b optional 50 B timeout 50ms
      {response}
    }}
  }}
  service a {{ {a} }}
  service b {{ {b} }}
  {extra}
}}
"#
    )
}

fn run_text(text: &str) -> (Observations, TimedObservations) {
    let obs = common::run_text(text);
    let timed = obs.timed.clone().expect("a run that takes time");
    // Every call answered or cancelled by the end: nothing is left waiting.
    assert_eq!(
        timed.calls.answered + timed.calls.cancelled,
        timed.calls.arrived
    );
    (obs, timed)
}

/// A latency read from a histogram: exact to its 0.1 % relative error.
fn near(got: u64, want: u64) {
    assert!(
        (got as f64 / want as f64 - 1.0).abs() < 1e-3,
        "{got} vs {want}"
    );
}

/// The ticks at which `series` counts something, with the counts.
fn at(series: &[u32]) -> Vec<(usize, u32)> {
    series
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(t, &n)| (t, n))
        .collect()
}

/// The request arrives at 1 ms; the fields are asked at 1 ms; `a` answers
/// at 31 ms and `b` at 41 ms, both before their 50 ms limit (51 ms): the
/// response is full and leaves at max(31, 41) = 41 ms, 40 ms after it came.
#[test]
fn fields_that_answer_in_time_are_in_and_the_slowest_sets_the_pace() {
    let (obs, t) = run_text(&file(
        "latency 30ms",
        "latency 40ms",
        "policy skip_optional",
        "",
    ));
    let c = obs.nodes[0].composite.as_ref().unwrap();
    assert_eq!(at(&c.full), vec![(41, 1)]);
    assert_eq!(at(&c.fresh), vec![(41, 2)]);
    assert_eq!(at(&obs.completed), vec![(41, 1)]);
    near(t.nodes[0].run.latency.max, 40 * MS);
    assert_eq!(t.nodes[0].run.timeouts, 0);
    assert_eq!(at(&obs.nodes[1].ok), vec![(31, 1)]);
    assert_eq!(at(&obs.nodes[2].ok), vec![(41, 1)]);
}

/// `a` answers at 31 ms (in); `b` would answer at 71 ms, past its limit at
/// 51 ms (out). Skip-optional answers at 51 ms without the fee: reduced,
/// one fresh and one missing field, 100 + 0 bytes; the response took 50
/// ms, the timeout. `b`'s call is left behind: it answers at 71 ms to
/// nobody, a wasted call busy 20 ms after the response gave up on it.
#[test]
fn a_field_slower_than_its_timeout_is_out_and_the_response_leaves_at_the_timeout() {
    let (obs, t) = run_text(&file(
        "latency 30ms",
        "latency 70ms",
        "policy skip_optional",
        "",
    ));
    let c = obs.nodes[0].composite.as_ref().unwrap();
    assert_eq!(at(&c.reduced), vec![(51, 1)]);
    assert_eq!(at(&c.fresh), vec![(51, 1)]);
    assert_eq!(at(&c.missing), vec![(51, 1)]);
    assert_eq!(c.bytes.iter().sum::<u64>(), 100);
    assert_eq!(at(&obs.completed), vec![(51, 1)]);
    near(t.nodes[0].run.latency.max, 50 * MS);
    assert_eq!(t.nodes[0].run.timeouts, 1);
    let b = &t.nodes[2].run;
    assert_eq!(
        (b.wasted_calls, b.wasted_busy, b.cancelled),
        (1, 20 * MS, 0)
    );
    assert_eq!(at(&obs.nodes[2].ok), vec![(71, 1)]);
}

/// The same timing under all-or-nothing: the fee is out at 51 ms, so the
/// response is dropped then; with `cancel` on the node, `b`'s call is
/// stopped at 51 ms and frees its worker: no wasted work.
#[test]
fn all_or_nothing_drops_at_the_timeout_and_cancel_stops_the_slow_field() {
    let (obs, t) = run_text(&file(
        "latency 30ms",
        "latency 70ms  workers 1",
        "policy all_or_nothing",
        "",
    ));
    assert_eq!(at(&obs.dropped), vec![(51, 1)]);
    let c = obs.nodes[0].composite.as_ref().unwrap();
    assert!(c.full.iter().chain(&c.reduced).all(|&n| n == 0));

    let text = file(
        "latency 30ms",
        "latency 70ms  workers 1",
        "policy all_or_nothing",
        "",
    )
    .replace(
        "service tracking {",
        "service tracking {\n    timeout 1s cancel",
    );
    let (obs, t2) = run_text(&text);
    assert_eq!(at(&obs.dropped), vec![(51, 1)]);
    let b = &t2.nodes[2].run;
    assert_eq!((b.wasted_calls, b.wasted_busy, b.cancelled), (0, 0, 1));
    assert!(obs.nodes[2].ok.iter().all(|&n| n == 0));
    // Without cancel the worker was held until 71 ms: busy 70 ms in all.
    assert_eq!(t.nodes[2].run.wasted_busy, 20 * MS);
}

/// The node's own `timeout` is the limit of a field without one; a
/// field's own `timeout` wins. Here the fee waits 20 ms (the node's), so
/// `b` at 31 ms is out at 21 ms, while `status` keeps its own 50 ms and is
/// in at 31 ms: the response leaves at 31 ms.
#[test]
fn the_nodes_timeout_is_the_default_and_a_fields_own_wins() {
    let text = file("latency 30ms", "latency 30ms", "policy skip_optional", "")
        .replace(" timeout 50ms\n      field fee", "\n      field fee")
        .replace("optional 50 B timeout 50ms", "optional 50 B")
        .replace("service tracking {", "service tracking {\n    timeout 20ms");
    let (obs, t) = run_text(&text);
    let c = obs.nodes[0].composite.as_ref().unwrap();
    // status: no own timeout here either, so the node's 20 ms: both out
    // at 21 ms, and without a core field skip-optional drops.
    assert_eq!(at(&obs.dropped), vec![(21, 1)]);
    assert!(c.reduced.iter().all(|&n| n == 0));
    assert_eq!(t.nodes[0].run.timeouts, 2);

    let text = file("latency 30ms", "latency 30ms", "policy skip_optional", "")
        .replace("optional 50 B timeout 50ms", "optional 50 B")
        .replace("service tracking {", "service tracking {\n    timeout 20ms");
    let (obs, t) = run_text(&text);
    let c = obs.nodes[0].composite.as_ref().unwrap();
    assert_eq!(at(&c.reduced), vec![(31, 1)]);
    assert_eq!(at(&c.missing), vec![(31, 1)]);
    assert_eq!(t.nodes[0].run.timeouts, 1);
}

/// A latency fault makes a field slow for a while, and stale-fallback
/// serves its last fresh value. Requests at 1 ms and 150 ms; `b` takes
/// 40 ms, plus 40 ms during 100..200 ms. The first response is full at
/// 41 ms (the ledger hears `fee` at tick 41). The second asks at 150 ms;
/// `a` is in at 180 ms, `b` (80 ms, to 230 ms) is out at 200 ms; its
/// ledger value is 200 - 41 = 159 ms old, within 1 s: served stale. The
/// response is reduced, with one fresh and one stale field, all 150 + 2
/// x 6 B of markers, at 200 ms.
#[test]
fn a_latency_fault_turns_a_field_stale_under_stale_fallback() {
    let text = file(
        "latency 30ms",
        "latency 40ms",
        "marker 6 B  policy stale_fallback  ledger { entries 10  stale_for 1s }",
        "fault slow { on b  during 100ms..200ms  latency + 40ms }",
    )
    .replace("at [1ms]", "at [1ms, 150ms]");
    let (obs, t) = run_text(&text);
    let c = obs.nodes[0].composite.as_ref().unwrap();
    assert_eq!(at(&c.full), vec![(41, 1)]);
    assert_eq!(at(&c.reduced), vec![(200, 1)]);
    assert_eq!(at(&c.stale), vec![(200, 1)]);
    assert_eq!(at(&c.fresh), vec![(41, 2), (200, 1)]);
    assert_eq!(c.bytes[200], 100 + 50 + 2 * 6);
    assert_eq!(t.nodes[0].run.timeouts, 1);
    assert_eq!(at(&obs.completed), vec![(41, 1), (200, 1)]);
}

/// Fields at nodes that take no time answer inline: with only a timeout
/// making the model timed, a response whose fields take no time is
/// assembled in its own moment, as on the zero-time path.
#[test]
fn fields_that_take_no_time_answer_at_once() {
    let (obs, t) = run_text(&file("", "", "policy skip_optional", ""));
    let c = obs.nodes[0].composite.as_ref().unwrap();
    assert_eq!(at(&c.full), vec![(1, 1)]);
    assert_eq!(t.nodes[0].run.latency.max, 0);
}

/// A caller above the composite node gives up and cancels: the fields
/// still being fetched are cancelled with the response. `edge` times out
/// at 21 ms (20 ms after the request); `a` and `b` (30 ms each) are
/// stopped then, and nothing answers at 31 ms.
#[test]
fn cancelling_a_response_cancels_its_fields() {
    let text = file("latency 30ms  workers 2", "latency 30ms  workers 2", "policy skip_optional", "")
        .replace("enters tracking", "enters edge")
        .replace(
            "chain tracking -> [a, b]",
            "chain edge -> tracking\n  chain tracking -> [a, b]\n  service edge { timeout 20ms cancel }",
        );
    let (obs, t) = run_text(&text);
    assert_eq!(at(&obs.dropped), vec![(21, 1)]);
    for node in 1..=3 {
        assert_eq!(t.nodes[node].run.cancelled, 1, "node {node}");
        assert_eq!(t.nodes[node].run.wasted_calls, 0, "node {node}");
    }
    assert!(obs.nodes[2]
        .ok
        .iter()
        .chain(&obs.nodes[3].ok)
        .all(|&n| n == 0));
}
