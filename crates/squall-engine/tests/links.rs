//! Faults on a link (`on api -> db`) and on the answer leg, on the timed
//! engine, with values derived by hand: constant latencies make every
//! request's end-to-end time exact, and the error share's effect on the
//! calls a callee sees follows from the binomial law.

use squall_engine::observe::TimedObservations;
use squall_engine::{Observations, Simulation};
use squall_lang::Overrides;

/// The chain `edge -> api -> db` (1, 2 and 5 ms of constant service),
/// requests from `a` entering `edge`, and from `b` entering `db` itself
/// (so never over a link), with `extra` lines added to the scenario.
fn run(sources: &str, api: &str, extra: &str, length: &str) -> Observations {
    let text = format!(
        r#"scenario "links" {{
  clock ms
  run {length}
  {sources}
  chain edge -> api -> db
  service edge {{ latency 1ms }}
  service api {{ latency 2ms  {api} }}
  service db {{ latency 5ms }}
  {extra}
}}"#
    );
    let model = squall_lang::load("links.squall", &text)
        .and_then(|s| s.model(&Overrides::default()))
        .unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let obs: Observations = Simulation::builder(&model)
        .build()
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(obs.accounting.balances(), "{:?}", obs.accounting);
    let t = timed(&obs);
    assert!(t.calls.balances(), "{:?}", t.calls);
    obs
}

fn timed(obs: &Observations) -> TimedObservations {
    obs.timed.clone().expect("takes time")
}

const TWO: &str = "source a { at [1ms, 101ms, 201ms]  enters edge }
  source b { at [1ms, 101ms]  enters db }";

/// Mean end-to-end time of source `s`'s completed requests, and the
/// mean latency at node `n` \[ms\], rounded to whole ms. Every time here
/// is a whole number of ms; the latency histograms keep each value within
/// 0.1 % of itself (`observe/histogram.rs`), under 0.2 ms for the largest
/// value here (153 ms), so the rounding recovers the exact time (and a
/// rule off by 1 ms or more fails).
fn means(obs: &Observations, s: usize, n: usize) -> (f64, f64) {
    let t = timed(obs);
    let ms = t.units_per_tick as f64;
    (
        whole(t.sources[s].run.mean / ms),
        whole(t.nodes[n].run.latency.mean / ms),
    )
}

/// `x` rounded to whole ms (see [`means`]).
fn whole(x: f64) -> f64 {
    x.round()
}

/// Without faults a request of `a` takes 1 + 2 + 5 = 8 ms (each node
/// serves, then calls down and answers at once); one of `b` 5 ms. A link
/// `api -> db` with `latency + 20ms` delays every try over it by 20 ms:
/// `a`'s requests take 28 ms, `b`'s still 5, and db's own latency stays
/// 5 ms (its latency runs from the try's arrival, not its send).
#[test]
fn link_latency_adds_exactly_d_over_the_link_only() {
    let calm = run(TWO, "", "", "1s");
    assert_eq!(means(&calm, 0, 2), (8.0, 5.0));
    assert_eq!(means(&calm, 1, 2), (5.0, 5.0));
    let slow = run(
        TWO,
        "",
        "fault slow { on api -> db  during 1ms..1s  latency + 20ms }",
        "1s",
    );
    assert_eq!(means(&slow, 0, 2), (28.0, 5.0));
    assert_eq!(means(&slow, 1, 2), (5.0, 5.0));
    // api waits 20 ms more for each answer: 2 + 20 + 5 = 27 ms.
    assert_eq!(whole(timed(&slow).nodes[1].run.latency.mean / 1e6), 27.0);
}

/// `answer latency + 20ms` on the link, or on db itself: every answer db
/// gives api reaches it 20 ms later (a: 28 ms); db's answers to its own
/// source `b` are not on a link and are not delayed (5 ms).
#[test]
fn answer_latency_delays_the_answer_leg() {
    for fault in [
        "fault late { on api -> db  during 1ms..1s  answer latency + 20ms }",
        "fault late { on db  during 1ms..1s  answer latency + 20ms }",
    ] {
        let late = run(TWO, "", fault, "1s");
        assert_eq!(means(&late, 0, 2), (28.0, 5.0), "{fault}");
        assert_eq!(means(&late, 1, 2), (5.0, 5.0), "{fault}");
    }
}

/// `errors 25% as 503` on `api -> db`, api making up to 3 tries: a
/// request's tries over the link are 1 + p + p^2 on average (p = 0.25:
/// 1.3125), and db sees a try only when it passes the link: one call per
/// request unless all three fail, so db's calls are Binomial(N, 1 - p^3),
/// mean N * 0.984375, sd sqrt(N * 0.984375 * 0.015625). With N = 20 000:
/// 19 687.5 and 17.5. The tries are 1, 2 or 3 with probabilities 0.75,
/// 0.1875, 0.0625 (variance 0.33984 per request): 26 250 with sd 82.4.
/// The run's seed is fixed; a tolerance of 5 sd would be broken by fewer
/// than one seed in a million, so the test fails only for a wrong rule.
#[test]
fn an_error_share_on_the_link_thins_the_callee_calls() {
    let n = 20_000.0;
    let obs = run(
        "source a { rate 1000/s  enters api }",
        "timeout 1s  retry { attempts 3  backoff fixed 0ms }",
        "fault lossy { on api -> db  during 1ms..20s  errors 25% as 503 }",
        "20s",
    );
    assert_eq!(obs.accounting.entered as f64, n);
    let db: u32 = obs.nodes[2].calls.iter().sum();
    let (mean, sd) = (n * 0.984375, (n * 0.984375 * 0.015625_f64).sqrt());
    assert!(
        (db as f64 - mean).abs() < 5.0 * sd,
        "db saw {db}, {mean} ± {sd}"
    );
    // Calls made: the N entry calls and the tries; the link ended the
    // tries db did not see.
    let t = timed(&obs);
    let tries = (t.calls.arrived as f64) - n;
    let (mean, sd) = (n * 1.3125, (n * 0.33984375_f64).sqrt());
    assert!(
        (tries - mean).abs() < 5.0 * sd,
        "{tries} tries, {mean} ± {sd}"
    );
    assert_eq!(t.calls.link as f64, tries - db as f64);
}

/// `fail timeout` on the link loses every try: api's per-try timeout of
/// 50 ms ends each of its 3 tries (no wait between them), so the request,
/// which reaches api at 1 + 1 ms (edge's service) and api after its own
/// 2 ms, fails 1 + 2 + 3 x 50 = 153 ms after it entered; db sees nothing;
/// each lost try is dropped when its timer fires, with or without
/// `cancel`, so nothing is left in flight.
#[test]
fn a_lost_try_costs_exactly_the_timeout() {
    for cancel in ["", "cancel"] {
        let obs = run(
            "source a { at [1ms]  enters edge }",
            &format!("timeout 50ms {cancel}  retry {{ attempts 3  backoff fixed 0ms }}"),
            "fault lost { on api -> db  during 1ms..1s  fail timeout }",
            "1s",
        );
        let t = timed(&obs);
        assert_eq!(whole(t.failed.run.mean / 1e6), 153.0, "{cancel}");
        assert_eq!(t.nodes[1].run.timeouts, 3);
        assert_eq!(obs.nodes[2].calls.iter().sum::<u32>(), 0);
        assert_eq!((t.calls.link, t.calls.on_link, t.calls.lost), (3, 0, 0));
        assert_eq!(obs.accounting.in_flight, 0);
    }
}

/// A partition with a propagated deadline instead of a timeout: the one
/// try api sends at 4 ms is lost, and the deadline (100 ms after the
/// request entered at 1 ms) ends it: the request fails after 100 ms.
#[test]
fn a_partition_ends_at_the_deadline() {
    let obs = run(
        "source a { at [1ms]  enters edge  deadline 100ms propagate }",
        "",
        "fault cut { on api -> db  during 1ms..1s  partition }",
        "1s",
    );
    let t = timed(&obs);
    assert_eq!(whole(t.failed.run.mean / 1e6), 100.0);
    assert_eq!(obs.nodes[2].calls.iter().sum::<u32>(), 0);
    assert_eq!(obs.accounting.in_flight, 0);
}

/// A partition also loses answers: a try sent before it starts, answered
/// in it, is lost on the way back. Tries at 1 ms (a request of `a`
/// entering api directly) reach db at 3 ms and are answered at 8 ms, in
/// the partition from 5 ms: api's 50 ms timeout ends the try at 53 ms,
/// 52 ms after the request entered.
#[test]
fn a_partition_loses_answers_too() {
    let obs = run(
        "source a { at [1ms]  enters api }",
        "timeout 50ms",
        "fault cut { on api -> db  during 5ms..1s  partition }",
        "1s",
    );
    let t = timed(&obs);
    assert_eq!(obs.nodes[2].calls.iter().sum::<u32>(), 1);
    assert_eq!(whole(t.failed.run.mean / 1e6), 52.0);
    assert_eq!(t.nodes[1].run.timeouts, 1);
}

/// A lost try gives its limiter slot back when its timer ends it. api's
/// AIMD limiter holds one try at a time (`initial_limit`, `min_limit` and
/// `max_limit` 1): the request at 10 ms loses its one try in the partition
/// and times out at 10 + 2 + 20 = 32 ms; the request at 500 ms, after the
/// partition, must get the slot (a leaked slot would refuse it as
/// limited): db sees one call, and one request completes.
#[test]
fn a_lost_try_gives_its_limiter_slot_back() {
    for cancel in ["", "cancel"] {
        let obs = run(
            "source a { at [10ms, 500ms]  enters api }",
            &format!(
                "timeout 20ms {cancel}  limiter aimd {{ initial_limit 1  min_limit 1  max_limit 1 }}"
            ),
            "fault cut { on api -> db  during 1ms..100ms  partition }",
            "1s",
        );
        let t = timed(&obs);
        assert_eq!(obs.nodes[2].calls.iter().sum::<u32>(), 1, "{cancel}");
        assert_eq!(t.nodes[1].run.limited, 0, "{cancel}");
        assert_eq!(obs.accounting.completed, 1, "{cancel}");
        assert_eq!(whole(t.failed.run.mean / 1e6), 22.0, "{cancel}");
    }
}

/// A hedging api over a partition: both hedged tries (at 4 and 14 ms) are
/// lost, and the propagated deadline (100 ms after the request entered at
/// 1 ms) ends the call: the request fails after 100 ms, the hedge's lost
/// tries are dropped with it, nothing is left in flight.
#[test]
fn hedged_tries_lost_on_a_link_go_at_the_deadline() {
    let obs = run(
        "source a { at [1ms]  enters edge  deadline 100ms propagate }",
        "hedge grpc { max_attempts 2  hedging_delay 10ms }",
        "fault cut { on api -> db  during 1ms..1s  partition }",
        "1s",
    );
    let t = timed(&obs);
    assert_eq!(whole(t.failed.run.mean / 1e6), 100.0);
    assert_eq!(obs.nodes[2].calls.iter().sum::<u32>(), 0);
    assert_eq!((t.calls.link, t.calls.on_link, t.calls.lost), (2, 0, 0));
    assert_eq!(obs.accounting.in_flight, 0);
}

/// A periodic link fault strikes a try by the tick it is sent at, as a
/// node's periodic fault strikes a call (`every P phase F`: the ticks `t`
/// with `(t + F) % P == 0`; a try on a link is made for no field, `i = 0`).
/// `a`'s requests enter at 1, 101 and 201 ms; edge serves 1 ms and api 2
/// ms, so api sends its try to db at 4, 104 and 204 ms. `every 100ms
/// phase 96ms` strikes all three (4 + 96 = 100, ...): each request takes
/// 8 + 20 = 28 ms. `every 200ms phase 96ms` strikes only the one sent at
/// 104 ms (104 + 96 = 200; 100 and 300 are not multiples of 200): the
/// mean is (8 + 28 + 8) / 3 = 14.67 ms, 15 rounded. `b`, entering db
/// directly, is never struck (5 ms). A rule that read the arrival tick
/// (1, 101, 201) instead would strike none of them in either case.
#[test]
fn a_periodic_link_fault_strikes_by_the_tick_a_try_is_sent() {
    let all = run(
        TWO,
        "",
        "fault blips { on api -> db  every 100ms  phase 96ms  latency + 20ms }",
        "1s",
    );
    assert_eq!(means(&all, 0, 2), (28.0, 5.0));
    assert_eq!(means(&all, 1, 2), (5.0, 5.0));
    let middle = run(
        TWO,
        "",
        "fault blips { on api -> db  every 200ms  phase 96ms  latency + 20ms }",
        "1s",
    );
    assert_eq!(means(&middle, 0, 2), (15.0, 5.0));
    assert_eq!(means(&middle, 1, 2), (5.0, 5.0));
}

/// A lost try stays its caller's until the caller gives up on it, and the
/// end-of-run accounting shows it: the try api sends at 4 ms is lost, its
/// 50 ms timeout would end it at 54 ms, but the run ends at 20 ms, so the
/// try is still live at the end (`lost` 1, counted in `link` too) and its
/// request in flight. With the run long enough for the timeout (the test
/// above) `lost` is 0: a lost try its caller never dropped would show.
#[test]
fn a_lost_try_its_caller_has_not_given_up_on_is_counted_at_the_end() {
    let obs = run(
        "source a { at [1ms]  enters edge }",
        "timeout 50ms",
        "fault lost { on api -> db  during 1ms..20ms  fail timeout }",
        "20ms",
    );
    let t = timed(&obs);
    assert_eq!((t.calls.link, t.calls.on_link, t.calls.lost), (1, 0, 1));
    assert_eq!(obs.accounting.in_flight, 1);
}

/// Requests of `a` (200/s for 10 s) over a link with `errors 25% as 503`,
/// api retrying up to 3 tries after a fixed `backoff`, with or without
/// `draws common`: (requests that failed, tries db saw).
fn lossy(backoff: &str, common: bool) -> (u64, u32) {
    let draws = if common { "draws common" } else { "" };
    let obs = run(
        "source a { rate 200/s  enters edge }",
        &format!("timeout 50ms  retry {{ attempts 3  backoff fixed {backoff} }}"),
        &format!("{draws}\n  fault lossy {{ on api -> db  during 1ms..10s  errors 25% as 503 }}"),
        "10s",
    );
    let failed = obs.accounting.entered - obs.accounting.completed - obs.accounting.in_flight;
    (failed, obs.nodes[2].calls.iter().sum::<u32>())
}

/// Under `draws common` a try's draw against a link's error share comes
/// from the try's key (request, try), as its draws at a node do, so
/// whether the try errs on the link does not depend on the order tries
/// are sent. Two runs that differ only in api's backoff (0 ms or 7 ms
/// between tries: the retries interleave differently with other
/// requests' first tries) send the same tries, each meeting the same
/// draw: exactly the same requests fail all three tries, and db sees
/// exactly the same tries. Drawn in send order from the fault's stream
/// instead (without `draws common`), the 7 ms backoff reorders the sends
/// and the draws fall to other tries: with this seed the two runs fail
/// different numbers of requests (each near 2 000 x 0.25^3 = 31), which is
/// what the keyed draws remove.
#[test]
fn link_error_draws_are_keyed_by_try_under_draws_common() {
    let (a, b) = (lossy("0ms", true), lossy("7ms", true));
    assert_eq!(a, b);
    assert!(a.0 > 10 && a.0 < 60, "{a:?}");
    let (c, d) = (lossy("0ms", false), lossy("7ms", false));
    assert_ne!(c, d);
}

/// A periodic fault at a node (not on a link) strikes only the ticks of
/// its period too, with a latency or an error share as with `fail`
/// (before, a node's `latency +` and `errors` held over the whole range
/// and ignored `every`). db starts `a`'s calls at 4, 104 and 204 ms and
/// `b`'s at 1 and 101 ms; `every 200ms phase 96ms` strikes tick 104
/// alone (104 + 96 = 200). With `latency + 20ms` the struck call takes
/// 25 ms at db: `a`'s mean is (8 + 28 + 8) / 3 = 14.67 ms (15 rounded) and
/// db's mean over its five calls (5 + 25 + 5 + 5 + 5) / 5 = 9 ms. With
/// `errors 100% as 503` the one struck call fails and its request with
/// it (api makes one try): 4 of the 5 requests complete.
#[test]
fn a_periodic_node_fault_strikes_only_its_ticks() {
    let slow = run(
        TWO,
        "",
        "fault blips { on db  every 200ms  phase 96ms  latency + 20ms }",
        "1s",
    );
    assert_eq!(means(&slow, 0, 2), (15.0, 9.0));
    let failing = run(
        TWO,
        "",
        "fault blips { on db  every 200ms  phase 96ms  errors 100% as 503 }",
        "1s",
    );
    assert_eq!(failing.accounting.entered, 5);
    assert_eq!(failing.accounting.completed, 4);
}
