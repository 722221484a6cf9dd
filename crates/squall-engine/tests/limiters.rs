//! Adaptive concurrency limits (`limiter KIND { ... }`): Envoy's gradient
//! controller worked by hand on a timeline of samples, the caller's
//! in-flight count and what each kind hears, and two runs against the
//! fixed point their rule gives in a saturated queue. The Netflix limits'
//! single-sample rules are worked by hand in their own files
//! (`src/policy/limiter/{aimd,vegas,gradient2}.rs`).

use squall_engine::policy::limiter::envoy::Envoy;
use squall_engine::policy::limiter::{Limiter, Sample};
use squall_engine::rng::Stream;
use squall_engine::time::Resolution;
use squall_engine::Simulation;
use squall_lang::{AimdSpec, EnvoySpec, LimiterSpec, RunKey};

/// Times in raw units; no jitter, so nothing is drawn.
fn controller(min_rtt_interval: u64, jitter: f64) -> Envoy {
    Envoy::new(EnvoySpec {
        update_interval: 100,
        min_rtt_interval,
        request_count: 5,
        jitter,
        min_concurrency: 3,
        buffer: 0.25,
        percentile: 0.5,
        max_limit: 1000,
    })
}

/// A try sent at `sent` answered at `now`, as the limiter tells it.
fn sample(e: &mut Envoy, s: &mut Stream, sent: u64, now: u64) {
    e.advance(now);
    e.record(now, sent, s);
}

#[test]
fn envoy_gradient_with_buffer_and_headroom_by_hand() {
    let mut s = Stream::new(1, "test");
    let mut e = controller(10_000, 0.0);
    // Created at 0: a minRTT window at once, the limit pinned at 3.
    assert!(e.in_window());
    assert_eq!(e.limit(), 3);
    // Five samples (request_count): 10, 20, 30, 40, 50. minRTT is their
    // p50, the 3rd smallest (nearest rank ceil(0.5 x 5) = 3): 30. The
    // window closes at 50 with the limit it kept aside (3); the update
    // timer starts again from 50 (due 150).
    for (sent, now) in [(0, 10), (5, 25), (0, 30), (0, 40), (0, 50)] {
        sample(&mut e, &mut s, sent, now);
    }
    assert!(!e.in_window());
    assert_eq!((e.limit(), e.rtts().0), (3, 30));
    // Three samples of 20. At 150: gradient = 30 x 1.25 / 20 = 1.875;
    // 3 x 1.875 = 5.625, + sqrt(5.625) = 2.372: trunc(7.997) = 7.
    for k in 0..3 {
        sample(&mut e, &mut s, 100 + k, 120 + k);
    }
    e.advance(149);
    assert_eq!(e.limit(), 3, "not before its timer");
    e.advance(150);
    assert_eq!((e.limit(), e.rtts().1), (7, 20));
    // Two samples of 30 (p50 = the 1st of 2): gradient 37.5 / 30 = 1.25;
    // 8.75 + 2.958 = 11.708: 11.
    sample(&mut e, &mut s, 200, 230);
    sample(&mut e, &mut s, 201, 231);
    e.advance(250);
    assert_eq!(e.limit(), 11);
    // One of 200: gradient 0.1875 held at 0.5: 5.5 + 2.345 = 7.845: 7.
    sample(&mut e, &mut s, 140, 340);
    e.advance(350);
    assert_eq!(e.limit(), 7);
    // No sample by 450: nothing changes.
    e.advance(450);
    assert_eq!(e.limit(), 7);
    // A slow sample (98: gradient 0.5) before each update: 7 -> trunc(3.5
    // + 1.871) = 5 -> trunc(2.5 + 1.581) = 4 -> trunc(2 + 1.414) = 3 ->
    // trunc(1.5 + 1.225) = 2, held at min_concurrency 3, at 850, 950,
    // 1050, 1150 and 1250: the 1st to 5th time in a row that 3 is set over
    // 3, and at the 5th a minRTT window opens at once (1250).
    for (due, want) in [
        (550, 5),
        (650, 4),
        (750, 3),
        (850, 3),
        (950, 3),
        (1050, 3),
        (1150, 3),
    ] {
        sample(&mut e, &mut s, due - 99, due - 1);
        e.advance(due);
        assert_eq!(e.limit(), want, "at {due}");
        assert!(!e.in_window(), "at {due}");
    }
    sample(&mut e, &mut s, 1151, 1249);
    e.advance(1250);
    assert!(e.in_window(), "the 5th time at the minimum");
    assert_eq!(e.limit(), 3);
    // A try sent before the window opened is not a sample; the update
    // timer due at 1350 falls inside the window and is dropped.
    sample(&mut e, &mut s, 1200, 1300);
    e.advance(1360);
    assert!(e.in_window());
    // Five tries sent inside: 10, 11, 12, 13, 14 (the one sent at 1200
    // would have closed the window at the 4th): minRTT 12.
    for k in 0..5 {
        sample(&mut e, &mut s, 1360 + k, 1370 + 2 * k);
        assert_eq!(e.in_window(), k < 4);
    }
    assert_eq!((e.limit(), e.rtts().0), (3, 12));
    // The update timer runs again from 1378: one sample of 12 gives
    // gradient 15 / 12 = 1.25 at 1478: 3.75 + 1.936 = 5.686: 5.
    sample(&mut e, &mut s, 1400, 1412);
    e.advance(1477);
    assert_eq!(e.limit(), 3);
    e.advance(1478);
    assert_eq!(e.limit(), 5);
}

#[test]
fn envoy_next_min_rtt_window_after_its_jittered_interval() {
    // interval 1000, jitter 15 %: the next window opens interval + U[0,
    // ceil(150)) after the minRTT is taken, so in [1000, 1150) after it.
    for seed in 0..20 {
        let mut s = Stream::new(seed, "test");
        let mut e = controller(1000, 0.15);
        for k in 0..5 {
            sample(&mut e, &mut s, k, 10 + k);
        }
        assert!(!e.in_window());
        // The window closed at 14.
        e.advance(14 + 999);
        assert!(!e.in_window(), "seed {seed}");
        e.advance(14 + 1149);
        assert!(e.in_window(), "seed {seed}");
    }
}

#[test]
fn the_caller_counts_its_tries_and_each_kind_hears_its_own() {
    // AIMD from 2 (min 1, max 10, ratio 0.5, timeout 1000 units).
    let spec = LimiterSpec::Aimd(AimdSpec {
        initial_limit: 2,
        min_limit: 1,
        max_limit: 10,
        backoff_ratio: 0.5,
        timeout: 1000,
    });
    let mut l = Limiter::new(&spec, Resolution::TICKS, Stream::new(1, "l"));
    assert_eq!(l.acquire(0), Some(1));
    assert_eq!(l.acquire(0), Some(2));
    assert_eq!(l.acquire(0), None, "at the limit: refused, not counted");
    assert_eq!(l.inflight(), 2);
    // A success sent with 2 out (2 x 2 >= 2): 3.
    l.release(5, 0, 2, Sample::Ok);
    assert_eq!((l.limit(5), l.inflight()), (3, 1));
    // Another failure is onIgnore, a cancelled try too: no sample.
    assert_eq!(l.acquire(5), Some(2));
    l.release(6, 5, 2, Sample::Failed);
    l.release(6, 0, 1, Sample::Cancelled);
    assert_eq!((l.limit(6), l.inflight()), (3, 0));
    // A drop: trunc(3 x 0.5) = 1; a success slower than the timeout too.
    assert_eq!(l.acquire(6), Some(1));
    l.release(7, 6, 1, Sample::Dropped);
    assert_eq!(l.limit(7), 1);
    // Envoy samples a failed try too (every answer), but not a cancelled
    // one: with request_count 1 its minRTT window closes on the first
    // sample it hears.
    let spec = LimiterSpec::Envoy(EnvoySpec {
        update_interval: 100,
        min_rtt_interval: 10_000,
        request_count: 1,
        jitter: 0.0,
        min_concurrency: 3,
        buffer: 0.25,
        percentile: 0.5,
        max_limit: 1000,
    });
    let mut l = Limiter::new(&spec, Resolution::TICKS, Stream::new(1, "l"));
    let (a, b) = (l.acquire(0).unwrap(), l.acquire(0).unwrap());
    l.release(10, 0, a, Sample::Cancelled);
    l.release(20, 0, b, Sample::Failed);
    // minRTT = 20; one sample of 10 at the update (due 120): gradient
    // min(25 / 10, 2) = 2: 6 + sqrt(6) = 8.449: 8.
    let c = l.acquire(30).unwrap();
    l.release(40, 30, c, Sample::Ok);
    assert_eq!(l.limit(119), 3);
    assert_eq!(l.limit(120), 8);
}

/// The mean calls at `db` (queued + in service) and in service over the
/// window `steady`, in a run of `text`'s first variant.
fn at_db(text: &str) -> (f64, f64) {
    let t = run_first(text);
    let w = &t.nodes[1].windows[0];
    (w.queue_mean + w.in_service_mean, w.in_service_mean)
}

/// `c` workers of constant service `S` = 10 ms behind a caller with
/// `limiter`, offered twice their capacity (so every place the limit
/// frees is taken again within a fraction of a millisecond): the calls at
/// the server are the limit.
fn saturated(limiter: &str) -> String {
    format!(
        r#"scenario "saturated" {{
  clock ms
  run 10s
  source users {{ rate 4000/s  arrivals poisson  enters api }}
  chain api -> db
  service api {{ {limiter} }}
  service db {{ latency 10ms  workers 20  queue unbounded }}
  window steady 2s..10s
}}"#
    )
}

#[test]
fn envoy_settles_at_its_fixed_point_in_a_saturated_queue() {
    // minRTT is measured at concurrency 3 < c = 20: every try is served
    // at once, so minRTT = S. Above c, L tries out at the server keep its
    // c workers busy and by Little's law a try's round trip is L S / c.
    // The update then gives L' = trunc(L g + sqrt(L g)) with L g = 1.25 S
    // / (L S / c) x L = 1.25 c = 25 whatever L: L' = trunc(25 + 5) = 30,
    // reached at the first update over c and kept. Under c the gradient is
    // 1.25 and L grows (3, 5, 8, 13, 19, 26 -> 30 within a second).
    //
    // Tolerance: a try's round trip in a 100 ms update is the p50 of about
    // 200 samples, not the mean L S / c, and a freed place waits for the
    // next arrival (0.25 ms at 4000/s against a 15 ms round trip, about
    // 2 %): the calls at the server are taken at 30 +- 1.5, and the
    // workers as all busy, 20 +- 0.5.
    let (calls, busy) = at_db(&saturated(
        "limiter envoy { concurrency_update_interval 100ms  interval 60s }",
    ));
    assert!((calls - 30.0).abs() < 1.5, "calls at db {calls}");
    assert!((busy - 20.0).abs() < 0.5, "in service {busy}");
}

#[test]
fn gradient2_drifts_to_its_maximum_in_a_steady_queue() {
    // Gradient2's long average follows a steady round trip, so once the
    // queue stops growing the gradient is min(1, 1.5 x long / short) = 1
    // and each sample adds smoothing x queue_size = 0.2 x 4 = 0.8: the
    // limit climbs to max_concurrency (here 60) and stays, with 40 calls
    // queued behind the 20 workers (3 times the unloaded latency). It
    // reads no drop and no absolute latency: only a rising round trip
    // holds it back.
    //
    // Tolerance: as above, the calls at the server are the limit less
    // about 2 % for the places waiting for the next arrival: 60 - 1.5.
    let (calls, busy) = at_db(&saturated("limiter gradient2 { max_concurrency 60 }"));
    assert!(calls > 58.5 && calls <= 60.0, "calls at db {calls}");
    assert!((busy - 20.0).abs() < 0.5, "in service {busy}");
}

/// `users` at `rate` (with `clients`, when given) into `api -> db`, api's
/// tries bounded by `limiter aimd { initial_limit 4  min_limit 1
/// backoff_ratio 0.5 }` and timed out after 9 ms by a db that takes 50:
/// every try fails, and a timeout is a drop to AIMD.
fn timing_out(rate: &str, clients: &str) -> u64 {
    let text = format!(
        r#"scenario "per client" {{
  clock ms
  run 100ms
  source users {{ rate {rate}  {clients}  enters api }}
  chain api -> db
  service api {{ timeout 9ms  limiter aimd {{ initial_limit 4  min_limit 1  backoff_ratio 0.5 }} }}
  service db {{ latency 50ms }}
}}"#
    );
    run_first(&text).nodes[0].run.limited
}

/// What a run of `text`'s first variant measured in time, every request
/// accounted for.
fn run_first(text: &str) -> squall_engine::observe::TimedObservations {
    let s = squall_lang::load("test.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let m = s.model_for(RunKey::Variant(0), &[]).unwrap();
    let obs = Simulation::builder(&m)
        .build()
        .and_then(|s| s.run())
        .unwrap();
    assert!(obs.accounting.balances());
    obs.timed.expect("timed")
}

#[test]
fn each_client_keeps_its_own_aimd_limit() {
    // One client's tries every 2 ms (500/s, uniform: 2, 4, ..., 100 ms,
    // 50 of them), each timing out 9 ms after it went (an odd ms, so no
    // answer meets a send). With L = 4: 2, 4, 6, 8 go; 10 finds 4 out and
    // is limited; at 11 the first drop: L = trunc(4 x 0.5) = 2, 3 out; 12
    // limited; 13: L = 1, 2 out; 14 limited; 15: L = max(trunc(0.5), 1)
    // = 1, 1 out; 16 limited; 17: 0 out, so 18 goes; from then on one try
    // is out for 9 ms at a time and L stays 1: 18, 28, ..., 98 go (9
    // tries), the four in between each limited. 4 + 9 = 13 go, 37 limited.
    // Exact: the clock is whole ms and nothing is drawn.
    assert_eq!(timing_out("500/s", ""), 37, "the node's own limiter");
    assert_eq!(timing_out("500/s", "clients 1"), 37, "one client's");
    // Two clients at 1000/s (uniform: in turn) are two such streams, one
    // ms apart; each with its own limit, each has exactly the trace above
    // whatever the other does: 2 x 37.
    assert_eq!(
        timing_out("1000/s", "clients 2"),
        74,
        "two clients, independent"
    );
    // One limit shared by the same 100 tries (no `clients`): after the
    // first 4 go, L is 1 from the third drop on and a try holds the one
    // place for 9 ms, so at most ceil(88 / 9) = 10 more go in 13..100: at
    // least 100 - 14 = 86 limited, against 74 when each client has its own.
    assert!(timing_out("1000/s", "") >= 86);
}
