//! A link's steady latency (`link api -> db { latency ... }`) and the
//! jitter of a fault's added latency (`latency + D jitter J`), on the
//! timed engine, with values derived by hand: constant latencies make
//! every request's time exact, and a random one adds its mean to the
//! mean end-to-end time by linearity of expectation (no node here has a
//! worker limit, so nothing queues and the legs' times simply add).

use squall_engine::observe::TimedObservations;
use squall_engine::{Observations, Simulation};
use squall_lang::Overrides;

/// The chain `edge -> api -> db` (1, 2 and 5 ms of constant service),
/// `sources`, api's extra settings `api`, and `extra` lines.
fn run(sources: &str, api: &str, extra: &str, length: &str) -> Observations {
    let text = format!(
        r#"scenario "link latency" {{
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
    let model = squall_lang::load("link-latency.squall", &text)
        .and_then(|s| s.model(&Overrides::default()))
        .unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let obs: Observations = Simulation::builder(&model)
        .build()
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(obs.accounting.balances(), "{:?}", obs.accounting);
    assert!(timed(&obs).calls.balances(), "{:?}", timed(&obs).calls);
    obs
}

fn timed(obs: &Observations) -> TimedObservations {
    obs.timed.clone().expect("takes time")
}

/// Mean end-to-end time of source `s`'s completed requests and mean
/// latency at node `n` \[ms\] (the histograms' mean is exact up to a
/// bucket, 0.1 % of the value).
fn means(obs: &Observations, s: usize, n: usize) -> (f64, f64) {
    let t = timed(obs);
    let ms = t.units_per_tick as f64;
    (t.sources[s].run.mean / ms, t.nodes[n].run.latency.mean / ms)
}

/// `x` rounded to whole ms: every time in the constant cases is a whole
/// number of ms, and 0.1 % of the largest (40 ms) is 0.04 ms, so the
/// rounding recovers it exactly and a rule off by 1 ms fails.
fn whole((a, b): (f64, f64)) -> (f64, f64) {
    (a.round(), b.round())
}

const TWO: &str = "source a { at [1ms, 101ms, 201ms]  enters edge }
  source b { at [1ms, 101ms]  enters db }";

/// `link api -> db { latency 2ms  answer latency 2ms }`: each try api
/// sends db arrives 2 ms later and its answer comes back 2 ms later, so a
/// request of `a` takes 1 + 2 + 5 + 2 x 2 = 12 ms (S + 4 ms); db's own
/// latency stays 5 ms (it runs from the try's arrival), api's is
/// 2 + 2 + 5 + 2 = 11 ms; `b` enters db directly, over no link: 5 ms.
/// A link fault adds on top: `latency + 20ms` makes `a`'s 32 ms. Only the
/// request leg (`latency 2ms` alone): 10 ms; only the answer leg: 10 ms.
#[test]
fn constant_link_latency_adds_both_legs_exactly() {
    let both = run(
        TWO,
        "",
        "link api -> db { latency 2ms  answer latency 2ms }",
        "1s",
    );
    assert_eq!(whole(means(&both, 0, 2)), (12.0, 5.0));
    assert_eq!(whole(means(&both, 1, 2)), (5.0, 5.0));
    assert_eq!(whole(means(&both, 0, 1)), (12.0, 11.0));
    let faulted = run(
        TWO,
        "",
        "link api -> db { latency 2ms  answer latency 2ms }
  fault slow { on api -> db  during 1ms..1s  latency + 20ms }",
        "1s",
    );
    assert_eq!(whole(means(&faulted, 0, 2)), (32.0, 5.0));
    for leg in ["latency 2ms", "answer latency 2ms"] {
        let one = run(TWO, "", &format!("link api -> db {{ {leg} }}"), "1s");
        assert_eq!(whole(means(&one, 0, 2)), (10.0, 5.0), "{leg}");
    }
}

/// A Poisson source (1000/s for 20 s: N near 20 000 requests) through a
/// link with `latency exponential mean 3ms`: by linearity of expectation
/// the mean end-to-end time is 8 + 3 = 11 ms (nothing queues: no node has
/// a worker limit), and api's mean latency 2 + 3 + 5 = 10 ms. The sample
/// mean's sd is 3 / sqrt(20 000) = 0.021 ms; 0.15 ms is five of them plus
/// the histogram's 0.1 % (0.011 ms), so only a wrong rule fails. The
/// same with `answer latency exponential mean 3ms` on the answer leg.
#[test]
fn a_random_link_latency_adds_its_mean() {
    for leg in ["latency", "answer latency"] {
        let obs = run(
            "source a { rate 1000/s  arrivals poisson  enters edge }",
            "",
            &format!("link api -> db {{ {leg} exponential mean 3ms }}"),
            "20s",
        );
        let (e2e, api) = means(&obs, 0, 1);
        assert!((e2e - 11.0).abs() < 0.15, "{leg}: {e2e}");
        assert!((api - 10.0).abs() < 0.15, "{leg}: {api}");
        let completed = obs.accounting.completed as f64;
        // Poisson count over 20 s at 1000/s: sd sqrt(20 000) = 141.
        assert!((completed - 20_000.0).abs() < 800.0, "{completed}");
    }
}

/// `latency + 20ms jitter 5ms` on the link, on db itself, or `answer
/// latency + 20ms jitter 5ms` on the link: each call's added 20 ms is
/// drawn uniformly in 15..25 ms, so the mean end-to-end time shifts by D
/// = 20 ms exactly in expectation: 28 ms (db's latency 25 ms when the
/// fault is on db). 1000 requests a second, evenly spaced, for 10 s: the
/// sample mean's sd is (J / sqrt 3) / sqrt(10 000) = 0.029 ms; 0.2 ms is
/// five of them plus the histogram's 0.1 % (0.028 ms). The spread: every
/// time lies in 23..33 ms and the 90th percentile of a uniform on it is
/// 32 ms (the histogram's p90 within 0.1 %, the sample's within 0.1 ms at
/// this n: 0.25 ms covers both).
#[test]
fn jitter_shifts_the_mean_by_d_and_spreads_uniformly() {
    for (fault, at_db) in [
        (
            "on api -> db  during 1ms..10s  latency + 20ms jitter 5ms",
            5.0,
        ),
        ("on db  during 1ms..10s  latency + 20ms jitter 5ms", 25.0),
        (
            "on api -> db  during 1ms..10s  answer latency + 20ms jitter 5ms",
            5.0,
        ),
    ] {
        let obs = run(
            "source a { rate 1000/s  enters edge }",
            "",
            &format!("fault j {{ {fault} }}"),
            "10s",
        );
        let (e2e, db) = means(&obs, 0, 2);
        assert!((e2e - 28.0).abs() < 0.2, "{fault}: {e2e}");
        assert!((db - at_db).abs() < 0.2, "{fault}: {db}");
        let t = timed(&obs);
        let ms = t.units_per_tick as f64;
        let q = t.sources[0].run;
        assert!(q.max as f64 / ms <= 33.0 * 1.001, "{fault}: {}", q.max);
        assert!(
            (q.p90 as f64 / ms - 32.0).abs() < 0.25,
            "{fault}: {}",
            q.p90
        );
    }
}

/// One run of a 200/s source (sending for 9 s of the 10, so that every
/// request ends before the run does) over `link` (a link or a link fault
/// whose delay is random) with api giving each try 30 ms and 3 tries,
/// `backoff` between them, under `draws common` or not: (failed requests,
/// db's calls).
fn jittery(link: &str, backoff: &str, common: bool) -> (u64, u32) {
    let draws = if common { "draws common" } else { "" };
    let obs = run(
        "source a { rate 200/s  rate 0/s during 9s..10s  enters edge }",
        &format!("timeout 30ms  retry {{ attempts 3  backoff fixed {backoff} }}"),
        &format!("{draws}\n  {link}"),
        "10s",
    );
    let failed = obs.accounting.entered - obs.accounting.completed - obs.accounting.in_flight;
    (failed, obs.nodes[2].calls.iter().sum::<u32>())
}

/// Under `draws common` a try's jittered delay (and its draw from a
/// link's own latency) comes from the try's key (request, try), so it does
/// not depend on the order tries are sent: two runs that differ only in
/// api's backoff (0 or 7 ms: the retries interleave differently with
/// other requests' first tries) see exactly the same delays, time out the
/// same tries and fail the same requests. A try times out when db's 5 ms
/// plus its delay passes 30 ms: with `latency + 20ms jitter 15ms`
/// (uniform in 5..35 ms) when the delay passes 25 ms, p = 1/3, a request
/// failing all three with p^3 = 1/27 (67 of 1 800 expected); with the
/// link's `latency exponential mean 20ms`, p = e^-1.25 = 0.287 (p^3: 42
/// of 1 800). Drawn in
/// send order instead (no `draws common`), the 7 ms backoff moves the
/// draws to other tries and the counts differ. The inequality was checked
/// by mutation: with the key withheld from `keyed::jittered` (and from
/// the link's draw) the common runs differ too and the test fails.
#[test]
fn jittered_delays_are_keyed_by_try_under_draws_common() {
    for link in [
        "fault j { on api -> db  during 1ms..10s  latency + 20ms jitter 15ms }",
        "link api -> db { latency exponential mean 20ms }",
    ] {
        let (a, b) = (jittery(link, "0ms", true), jittery(link, "7ms", true));
        assert_eq!(a, b, "{link}");
        assert!(a.0 > 0, "{link}: {a:?}");
        let (c, d) = (jittery(link, "0ms", false), jittery(link, "7ms", false));
        assert_ne!(c, d, "{link}");
    }
}

/// The work estimate counts a link's legs. By hand, 100/s into `api ->
/// db` over ticks 1..=1000 with api's 250 ms timeout and db's 5 ms
/// (`timed_paths.rs`: 3 events per request) and a link with both legs: one
/// more event per leg (the try's arrival, the answer's return), 5 per
/// request, 500 in all. The run makes no more: its requests are sent at
/// 10, 20, ..., 1000 ms, and those near the end leave events past it (the
/// run without the link handles 274: 100 sends, 99 services ending by 1000
/// ms, 75 timers popping by then). The link adds exactly its two legs'
/// events for the 99 requests whose try arrives within the run (the one
/// sent at 1000 ms would arrive at 1002): 198. The
/// time a request spends grows by the legs' means, 5 to 8 ms, and the work
/// in flight by Little's law with it: at 1000/s (one request a tick, so
/// that neither count is cut at one request in flight) by 8/5 exactly.
#[test]
fn the_estimate_counts_a_links_legs() {
    let text = |rate: &str, link: &str| {
        format!(
            r#"scenario "estimate" {{
  clock ms
  run 1s
  source users {{ rate {rate}  enters api }}
  chain api -> db
  service api {{ timeout 250ms }}
  service db {{ latency 5ms }}
  {link}
}}
"#
        )
    };
    let model = |rate: &str, link: &str| {
        squall_lang::load("estimate.squall", &text(rate, link))
            .and_then(|s| s.model(&Overrides::default()))
            .unwrap_or_else(|d| panic!("{}", d.to_plain()))
    };
    let link = "link api -> db { latency 2ms  answer latency 1ms }";
    let estimate = |rate: &str, link: &str| squall_engine::simulation::estimate(&model(rate, link));
    let (plain, e) = (estimate("100/s", ""), estimate("100/s", link));
    assert_eq!((plain.events, e.events), (300.0, 500.0));
    let (plain, busy) = (estimate("1000/s", ""), estimate("1000/s", link));
    let ratio = busy.in_flight_bytes as f64 / plain.in_flight_bytes as f64;
    // Whole bytes: the ratio within a byte's rounding of 8/5.
    assert!((ratio - 1.6).abs() < 1e-6, "{ratio}");
    let m = model("100/s", link);
    let obs = Simulation::builder(&m)
        .build()
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("{e}"));
    let plain_obs = Simulation::builder(&model("100/s", ""))
        .build()
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(obs.events as f64 <= e.events, "{}", obs.events);
    assert_eq!(obs.events - plain_obs.events, 198);
}
