//! Constructs of the zero-time path on the timed path, by hand: a
//! breaker's trace rows, sequential sources, and a rate limit that makes
//! calls wait for a token. Each case has a few requests at known moments,
//! so every event time is worked out above the test and asserted exactly.

use squall_engine::outcome::{Answer, FailKind};
use squall_engine::policy::breaker::State;
use squall_engine::{Observations, Simulation};
use squall_lang::RunKey;

mod common;
use common::run_text;

/// `api -> db`, a breaker on api opening after 2 failures for 100 ms; db
/// takes 10 ms and fails every call at once while `down` lasts (1..25
/// ms), and takes 30 ms more while `slow` lasts (200..210 ms); api's tries
/// time out after 20 ms. Requests at 1, 5, 10, 120 and 200 ms:
///
/// - 1 ms: sent, 503 at once: Closed -> Closed (one failure);
/// - 5 ms: sent, 503: Closed -> Open (two failures);
/// - 10 ms: not sent, the breaker is open;
/// - 120 ms: past the 100 ms cooldown, the probe is sent, db answers at
///   130 ms: HalfOpen -> Closed;
/// - 200 ms: sent, db would take 40 ms; the timeout at 220 ms fails it:
///   Closed -> Closed, answer `timeout`.
#[test]
fn breaker_trace_rows_on_the_timed_path() {
    let obs = run_text(
        r#"scenario "trace in time" {
  clock ms
  series every 1ms
  run 1s
  source one { enters api  at [1ms, 5ms, 10ms, 120ms, 200ms] }
  chain api -> db
  service api { timeout 20ms  breaker { after 2 failures  cooldown 100ms  probes 1 } }
  service db { latency 10ms }
  fault down { on db  during 1ms..25ms  errors 100% as 503 }
  fault slow { on db  during 200ms..210ms  latency + 30ms }
}
"#,
    );
    let rows: Vec<(u64, bool, State, State)> = obs.traces[0]
        .iter()
        .map(|r| (r.time, r.sent, r.before, r.after))
        .collect();
    use State::{Closed, HalfOpen, Open};
    assert_eq!(
        rows,
        vec![
            (1, true, Closed, Closed),
            (5, true, Closed, Open),
            (10, false, Open, Open),
            (120, true, HalfOpen, Closed),
            (200, true, Closed, Closed),
        ]
    );
    let answers: Vec<Answer> = obs.traces[0].iter().map(|r| r.answer).collect();
    assert!(matches!(answers[0], Answer::Fail(f) if f.kind == FailKind::Status(503)));
    assert!(
        matches!(answers[2], Answer::Fail(f) if matches!(f.kind, FailKind::CircuitOpen { .. }))
    );
    assert_eq!(answers[3], Answer::Ok);
    assert!(matches!(answers[4], Answer::Fail(f) if f.kind == FailKind::Timeout));
    assert_eq!(obs.nodes[0].blocked[10], 1);
}

/// A sequential source when calls take time: `app -> server`, the server
/// takes 10 ms, app retries after a fixed 5 ms. The first operation
/// starts at tick 1; the server answers its first try 503 at 11 ms, app
/// waits 5 ms, the second try goes at 16 ms and answers 200 at 26 ms: the
/// operation ends at 26 ms after 2 tries and one wait of 5 ms. The next
/// starts at once, at 26 ms: 404 at 36 ms, not retried, 1 try.
#[test]
fn sequential_operations_follow_each_other_in_time() {
    let obs = run_text(
        r#"scenario "sequential in time" {
  clock ms
  series every 1ms
  run 1s
  chain app -> server
  service app { retry { attempts 3  backoff fixed 5ms } }
  endpoint server {
    route a GET /a { 503 x 1 then 200 }
    default { 404 }
  }
  service server { latency 10ms }
  source ui {
    enters app
    sequential {
      op "503 then 200" GET /a
      op "404" GET /b
    }
  }
}
"#,
    );
    let ops: Vec<(&str, u64, u64, u32, Vec<u64>)> = obs.ops[0]
        .iter()
        .map(|o| (o.label.as_str(), o.start, o.end, o.tries, o.waits.clone()))
        .collect();
    assert_eq!(
        ops,
        vec![
            ("503 then 200", 1, 26, 2, vec![5]),
            ("404", 26, 36, 1, vec![])
        ]
    );
    assert_eq!(obs.ops[0][0].answer, Answer::Ok);
    assert!(matches!(obs.ops[0][1].answer, Answer::Fail(f) if f.kind == FailKind::Status(404)));
    assert_eq!(obs.accounting.completed, 1);
    assert_eq!(obs.accounting.dropped, 1);
}

/// A node behind a rate limit of 100/s (one token per 10 ms, burst 1)
/// that waits (`wait`), in front of a `db` that takes no time.
fn limited(rate: &str, wait: &str) -> String {
    format!(
        r#"scenario "a limiter that waits" {{
  clock ms
  series every 1ms
  run 200ms
  source users {{ rate {rate}  enters api }}
  chain api -> db
  service api {{ limit 100/s burst 1 {wait} }}
}}
"#
    )
}

fn ticks_of(series: &[u32]) -> Vec<u64> {
    series
        .iter()
        .enumerate()
        .flat_map(|(t, &n)| std::iter::repeat_n(t as u64, n as usize))
        .collect()
}

/// Requests every 5 ms (200/s, the first at 5 ms: the source's first tick
/// counts at once, 0.2 of a request at 1 ms, as on the zero-time path)
/// against a token every 10 ms: request `k` arrives at `5 + 5k` and waits
/// `5k` ms (the bucket's own test works the tokens), so it is answered at
/// `5 + 10k`: waits grow linearly, 5 ms per request, the difference of the
/// two gaps. In 200 ms (ticks 1..200, up to 201 ms), requests 0..=19 are
/// answered (at 5, 15, ..., 195 ms); the other 20 of the 40 sent (200 ms x
/// 0.2/ms) still wait at the end. Nothing is refused.
#[test]
fn a_constant_arrival_above_the_rate_waits_longer_and_longer() {
    let obs = run_text(&limited("200/s", "wait"));
    let want: Vec<u64> = (0..20).map(|k| 5 + 10 * k).collect();
    assert_eq!(ticks_of(&obs.completed), want);
    assert_eq!(obs.accounting.entered, 40);
    assert_eq!(obs.accounting.in_flight, 20);
    assert_eq!(obs.accounting.dropped, 0);
    let t = obs.timed.as_ref().unwrap();
    assert_eq!(t.nodes[0].run.throttled, 0);
    assert_eq!(t.calls.queued, 20);
}

/// Below the rate (50/s: every 20 ms from 20 ms, ten in 200 ms) a token is
/// always there: every request is answered the moment it arrives.
#[test]
fn below_the_rate_nothing_waits() {
    let obs = run_text(&limited("50/s", "wait"));
    let want: Vec<u64> = (0..10).map(|k| 20 + 20 * k).collect();
    assert_eq!(ticks_of(&obs.completed), want);
    assert_eq!(ticks_of(&obs.arrivals), want);
}

/// With `wait max 12ms` the waits go 0, 5, 10 ms; the fourth request (20
/// ms) would wait 15 and is throttled at once, taking no token, so the
/// fifth (25 ms) waits 10 again (answered at 35), the sixth (30 ms) is
/// throttled, and so on: every other request from the fourth on.
#[test]
fn a_longest_wait_throttles_the_calls_that_would_wait_longer() {
    let obs = run_text(&limited("200/s", "wait max 12ms"));
    let completed = ticks_of(&obs.completed);
    assert_eq!(&completed[..5], &[5, 15, 25, 35, 45]);
    let dropped = ticks_of(&obs.dropped);
    assert_eq!(&dropped[..3], &[20, 30, 40]);
    let t = obs.timed.as_ref().unwrap();
    assert_eq!(t.nodes[0].run.throttled, obs.accounting.dropped);
}

/// `users` at `rate` into `api -> db`: api's tries time out after 250 ms,
/// db takes 5 ms.
fn estimated(rate: &str) -> squall_lang::Model {
    let text = format!(
        r#"scenario "estimate" {{
  clock ms
  series every 1ms
  run 1s
  source users {{ rate {rate}  enters api }}
  chain api -> db
  service api {{ timeout 250ms }}
  service db {{ latency 5ms }}
}}
"#
    );
    let s = squall_lang::load("test.squall", &text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    s.model_for(RunKey::Variant(0), &[]).unwrap()
}

/// By hand, at 100/s over ticks 1..=1000: 100 requests, each one event at
/// the source, one for api's timer on its try and one for db's service:
/// 300 events, and the run (which loses the requests too late to finish)
/// handles no more. Series: 1000 bins of 1 ms plus slot 0 = 1001 slots
/// x (16 system + 2 nodes x 36) bytes of counters = 88 088; per bin, each
/// node 64 (gauges) + 88 (11 counters) + 2 x 56 (quantiles, doubling room) +
/// 184 (its stretch) + 8 (queue end) = 456, twice; the source and all
/// sources, completed and failed, 4 x 2 x 56 = 448, their copies 112, one
/// node's quantiles copied 112: 1584 x 1000 bins = 1 584 000. (56 and 184
/// are `size_of` `Quantiles` and `Stretch`: 7 and 23 words of 8 bytes.)
/// Histograms: the run is 10^9 ns, 30 powers of two, 20 above the 1024
/// first values: 20 x 1024 x 8 bytes each, for 2 nodes, 1 source and all
/// sources.
#[test]
fn the_estimate_counts_a_failure_free_run_by_hand() {
    let m = estimated("100/s");
    let e = squall_engine::simulation::estimate(&m);
    assert_eq!(e.requests, 100.0);
    assert_eq!(e.events, 300.0);
    assert_eq!(e.busiest, Some(("users".to_string(), 100.0, 300.0)));
    assert_eq!(e.series_bytes, 88_088 + 1_584_000);
    assert_eq!(e.histogram_bytes, 4 * 20 * 1024 * 8);
    assert!(e.in_flight_bytes > 0);
    let obs = run_text_model(&m, None).unwrap();
    assert!(obs.events as f64 <= e.events, "{} events", obs.events);
}

fn run_text_model(m: &squall_lang::Model, budget: Option<u64>) -> Result<Observations, String> {
    let mut b = Simulation::builder(m);
    if let Some(n) = budget {
        b = b.work_budget(n);
    }
    b.build().and_then(|s| s.run()).map_err(|e| e.to_string())
}

/// At 10 000/s the failure-free estimate is 30 000 events; a work budget
/// of 1000 (2000 with the engine's allowance of one event per source and
/// tick) refuses the run before it starts, saying why.
#[test]
fn a_run_past_its_budget_is_refused_before_it_starts() {
    let m = estimated("10000/s");
    let err = run_text_model(&m, Some(1000)).unwrap_err();
    assert_eq!(
        err,
        "source `users` makes about 30000 events even if nothing fails (10000 requests x 3.0 events each), \
         more than the work budget of 2000 events (raise `work_budget`, shorten the run, or lower the rate)"
    );
    // Within the budget it runs.
    assert!(run_text_model(&m, Some(40_000)).is_ok());
}

/// `layers` hedging nodes of `tries` tries each (all at once, no delay)
/// above a leaf that takes 10 ms, one request a second for 1 s.
fn cascade(layers: usize, tries: u32) -> squall_lang::Model {
    let names: Vec<String> = (0..=layers).map(|i| format!("n{i}")).collect();
    let hedges: String = names[..layers]
        .iter()
        .map(|n| {
            format!(
                "  service {n} {{ hedge grpc {{ max_attempts {tries}  hedging_delay 0ms }} }}\n"
            )
        })
        .collect();
    let text = format!(
        "scenario \"cascade\" {{\n  clock ms\n  run 1s\n  source users {{ rate 1/s  enters n0 }}\n  chain {}\n{hedges}  service n{layers} {{ latency 10ms }}\n}}\n",
        names.join(" -> ")
    );
    let s =
        squall_lang::load("cascade.squall", &text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    s.model_for(RunKey::Variant(0), &[]).unwrap()
}

/// Issue 20: a cascade of hedges (10 layers of 5 took 4.2 GB) grew without
/// bound before the work budget stopped it, while the estimate saw one call
/// per node (20 events, 2.5 MiB). Each hedge is a live call, so the growth
/// is the work itself: the estimate now counts it. By hand, 3 layers of 2
/// tries sent at once: calls per request 1 + 2 + 4 + 8 = 15; events per
/// request 1 at the source + 8 at the leaf's latency = 9 (no timers: the
/// tries go at once). The run (1 request) handles no more: its 8 leaf
/// calls each end once, and cancelling the losers costs no event.
#[test]
fn the_estimate_counts_the_calls_of_a_cascade_of_hedges() {
    let m = cascade(3, 2);
    let e = squall_engine::simulation::estimate(&m);
    assert_eq!(e.requests, 1.0);
    assert_eq!(e.calls, 15.0);
    assert_eq!(e.events, 9.0);
    let obs = run_text_model(&m, None).unwrap();
    assert!(obs.events as f64 <= e.events, "{} events", obs.events);
}

/// The 10 layers of 5 of the issue: about 12.2 million calls in flight
/// for its one request (1 + 5 + ... + 5^10), each a record and a pending
/// event: past a memory budget of 1 GiB, so the run is refused before it
/// starts with the estimate's parts; on dcfb46c it was estimated at
/// 2.5 MiB and ran to 4.2 GB.
#[test]
fn a_cascade_of_hedges_is_refused_by_its_memory_before_it_runs() {
    let m = cascade(10, 5);
    let e = squall_engine::simulation::estimate(&m);
    let calls: f64 = (0..=10).map(|k| 5f64.powi(k)).sum();
    assert_eq!(e.calls, calls);
    assert!(e.in_flight_bytes as f64 >= calls * 32.0, "{e:?}");
    let Err(err) = Simulation::builder(&m).memory_budget(1024).build() else {
        panic!("the cascade is not refused")
    };
    assert!(
        matches!(err, squall_engine::SimError::MemoryOverBudget { in_flight, .. } if in_flight > 1024.0),
        "{err}"
    );
}

/// A closed loop's clients send one request per cycle of their think time
/// and the request's time: 10 clients thinking 9 ms before a call of
/// 1 ms, over 1000 ms, send 10 x 1000 / 10 = 1000 requests (by hand;
/// the estimate saw none on dcfb46c, so a zero-think loop's work was
/// invisible before it ran). The run sends about as many: each client
/// sends its first after a think, then one per 10 ms, 100 each at most.
#[test]
fn the_estimate_counts_a_closed_loops_requests() {
    let text = r#"scenario "loop" {
  clock ms
  run 1s
  source loop { clients 10  think 9ms  enters app }
  chain app
  service app { latency 1ms }
}
"#;
    let s = squall_lang::load("loop.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let m = s.model_for(RunKey::Variant(0), &[]).unwrap();
    let e = squall_engine::simulation::estimate(&m);
    assert_eq!(e.requests, 1000.0);
    let obs = run_text_model(&m, None).unwrap();
    assert!(
        (990..=1000).contains(&obs.accounting.entered),
        "{:?}",
        obs.accounting
    );
}

/// Issue 23: `check --estimate` counts retries. When every try fails and
/// nothing lowers the count, each layer makes all its tries for every call
/// it gets: by hand, `api` (3 tries) over `mid` (4 tries) over a `db` that
/// answers 503 to everything gives 1 + 3 + 3 x 4 = 16 calls a request
/// (the estimate's bound), against 3 when nothing fails. 10 requests (sent
/// at given times; each ends within 16 x (1 ms + 1 ms) = 32 ms, so the
/// last, sent at 950 ms, ends inside the fault and the run) make exactly 160
/// calls: the bound is met, not only respected, because no budget,
/// breaker or deadline stops a try.
#[test]
fn the_estimate_bounds_the_calls_when_every_try_fails() {
    let text = r#"scenario "odometer" {
  clock ms
  run 1s
  source users { at [100ms, 200ms, 300ms, 400ms, 500ms, 600ms, 700ms, 800ms, 900ms, 950ms]  enters api }
  chain api -> mid -> db
  service api { retry { attempts 3  backoff fixed 1ms } }
  service mid { retry { attempts 4  backoff fixed 1ms } }
  service db { latency 1ms }
  fault down { on db  during 1ms..1s  errors 100% as 503 }
}
"#;
    let s =
        squall_lang::load("odometer.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let m = s.model_for(RunKey::Variant(0), &[]).unwrap();
    let e = squall_engine::simulation::estimate(&m);
    assert_eq!(e.requests, 10.0);
    assert_eq!(e.calls, 30.0);
    assert_eq!(e.calls_if_all_fail, 160.0);
    let obs = run_text_model(&m, None).unwrap();
    let calls: u64 = obs
        .nodes
        .iter()
        .flat_map(|n| n.calls.iter().map(|&c| u64::from(c)))
        .sum();
    assert_eq!(obs.accounting.entered, 10);
    assert_eq!(calls, 160);
}

/// A uniform rate during a window sends `rate x window` requests on the
/// timed path, as it does on the round path, and a window that opens
/// again starts from nothing. Worked from `arrivals.rs`'s rule: `rate
/// 5/ms` opening at 1 ms counts its first request at once (credit 1), so
/// it sends at 1.0 ms, then 0.2 ms apart: 1.2, 1.4, 1.6, 1.8 ms. The next
/// gap ends at 2.0 ms, where the window closes (`during 1ms..1ms` is
/// tick 1, inclusive), so that request is decided by the rate from then
/// on, 0: five, not the six this sent before. A second window at 5 ms
/// gets five more, not a sixth from the credit the first made up at its
/// close.
#[test]
fn a_uniform_rate_during_a_window_sends_rate_times_window() {
    let entered = |during: &str| {
        let text = format!(
            "scenario \"window\" {{\n  clock ms\n  run 20ms\n  source users {{ rate 0/ms  {during}  enters api }}\n  chain api\n  service api {{ latency 1ms }}\n}}\n"
        );
        run_text(&text).accounting.entered
    };
    assert_eq!(entered("rate 5/ms during 1ms..1ms"), 5);
    // Ticks 1, 2 and 3: 15; ticks 1 and 2: 10.
    assert_eq!(entered("rate 5/ms during 1ms..3ms"), 15);
    assert_eq!(entered("rate 5/ms during 1ms..<3ms"), 10);
    assert_eq!(
        entered("rate 5/ms during 1ms..1ms  rate 5/ms during 5ms..5ms"),
        10
    );
}
