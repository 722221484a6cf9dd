//! The continuous-time engine against queueing theory, and deadline and
//! timeout arithmetic by hand.
//!
//! The closed forms are the independent reference: M/M/1 mean time in
//! system `1 / (mu - lambda)` and mean number in system `rho / (1 - rho)`,
//! M/M/c waiting probability (Erlang C), M/D/1 mean wait
//! (Pollaczek–Khinchine), Little's law, and retries with failure
//! probability `p` and `k` tries (success `1 - p^k`, calls per request
//! `1 + p + ... + p^(k-1)`). Every run is seeded; each tolerance is
//! justified where it is asserted.

mod common;

use squall_engine::observe::TimedObservations;
use squall_engine::Observations;
use squall_lang::{
    Arrivals, Backoff, CallerSpec, Clock, DeadlineSpec, FaultSpec, LatencySpec, Model, NodeSpec,
    RetrySpec, Schedule, ServerSpec, SourceSpec, TimedFault,
};

const NS_PER_MS: f64 = 1e6;

fn station(name: &str, latency: LatencySpec, workers: Option<u32>, queue: Option<u64>) -> NodeSpec {
    NodeSpec {
        name: name.into(),
        server: Some(ServerSpec {
            latency: Some(latency),
            workers,
            queue,
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn poisson(rate: f64, entry: usize) -> SourceSpec {
    SourceSpec {
        name: "arrivals".into(),
        entry,
        arrivals: Arrivals::Poisson,
        rate,
        ..Default::default()
    }
}

fn model(ticks: u64, seed: u64, nodes: Vec<NodeSpec>, sources: Vec<SourceSpec>) -> Model {
    Model {
        name: "queueing".into(),
        clock: Clock::Ms,
        start: 1,
        ticks,
        seed,
        nodes,
        sources,
        ..Default::default()
    }
}

/// Runs a model; checks that every request and every call is accounted for.
fn run(m: &Model) -> (Observations, TimedObservations) {
    let obs = common::run_model(m, None);
    let timed = obs.timed.clone().expect("a run that takes time");
    (obs, timed)
}

/// Mean time in system at node 0 \[ms\], mean number in system (queue +
/// service), arrival rate \[per ms\].
fn station_means(obs: &Observations, t: &TimedObservations, ticks: u64) -> (f64, f64, f64) {
    let n = &t.nodes[0].run;
    let w = n.latency.mean / NS_PER_MS;
    let l = n.queue_mean + n.in_service_mean;
    let lambda = obs.accounting.entered as f64 / ticks as f64;
    (w, l, lambda)
}

/// M/M/1 at rho = 0.5 and 0.8: W = 1 / (mu - lambda), L = rho / (1 - rho),
/// and Little's law L = lambda W on the same run.
///
/// Tolerance: 400 s at lambda = 0.5/ms is 200 000 customers, 1 000 s at
/// 0.8/ms 800 000. The mean of n successive M/M/1 waits has variance about
/// rho (2 + 5 rho - 4 rho^2 + rho^3) / (mu^2 (1 - rho)^4) / n (Blomqvist,
/// 1967): 29 / n at rho 0.5 and 1976 / n at rho 0.8, one standard error
/// 0.6 % and 1.0 % of W. The bounds (4 % and 10 %) are over six standard
/// errors; the run lands within 0.4 % and 0.2 %. Little's law holds on a
/// single run up to the requests in flight at the end (a few in hundreds
/// of thousands), so it is checked to 1 %.
#[test]
fn mm1_matches_its_closed_forms() {
    for (lambda, ticks, tol) in [(0.5, 400_000u64, 0.04), (0.8, 1_000_000, 0.10)] {
        let mu = 1.0;
        let m = model(
            ticks,
            7,
            vec![station(
                "server",
                LatencySpec::Exponential { mean: 1.0 / mu },
                Some(1),
                Some(1_000_000),
            )],
            vec![poisson(lambda, 0)],
        );
        let (obs, t) = run(&m);
        let (w, l, lam) = station_means(&obs, &t, ticks);
        let rho: f64 = lambda / mu;
        let w_exact = 1.0 / (mu - lambda);
        let l_exact = rho / (1.0 - rho);
        eprintln!("M/M/1 rho {rho}: W {w} vs {w_exact}, L {l} vs {l_exact}, lambda {lam}");
        assert!(
            (w / w_exact - 1.0).abs() < tol,
            "rho {rho}: W {w} vs {w_exact}"
        );
        assert!(
            (l / l_exact - 1.0).abs() < tol,
            "rho {rho}: L {l} vs {l_exact}"
        );
        assert!(
            (l / (lam * w) - 1.0).abs() < 0.01,
            "Little: {l} vs {}",
            lam * w
        );
        // The server is busy a share rho of the time.
        let busy = t.nodes[0].run.in_service_mean;
        assert!((busy / rho - 1.0).abs() < tol / 2.0, "busy {busy} vs {rho}");
    }
}

/// Erlang C: the probability that an arrival waits in an M/M/c queue with
/// offered load `a = lambda / mu`.
fn erlang_c(c: u32, a: f64) -> f64 {
    let mut term = 1.0;
    let mut sum = 0.0;
    for k in 0..c {
        if k > 0 {
            term *= a / f64::from(k);
        }
        sum += term;
    }
    let top = term * a / f64::from(c) * f64::from(c) / (f64::from(c) - a);
    top / (sum + top)
}

/// M/M/4 at lambda = 3/ms, mu = 1/ms (rho 0.75): Erlang C gives the
/// waiting probability 0.509; mean wait `C / (c mu - lambda)` and mean
/// queue length `lambda Wq`.
///
/// Tolerance: 400 s is 1.2 million customers; the queue's relaxation time
/// at rho 0.75 over 4 servers is a few tens of service times, so the
/// relative standard error of the mean wait is near 2 %; 6 % is three of
/// those. W includes the service time, so it is checked tighter (3 %).
#[test]
fn mmc_matches_erlang_c() {
    let (c, lambda, mu, ticks) = (4u32, 3.0, 1.0, 400_000u64);
    let m = model(
        ticks,
        11,
        vec![station(
            "pool",
            LatencySpec::Exponential { mean: 1.0 / mu },
            Some(c),
            Some(1_000_000),
        )],
        vec![poisson(lambda, 0)],
    );
    let (obs, t) = run(&m);
    let (w, _, lam) = station_means(&obs, &t, ticks);
    let pw = erlang_c(c, lambda / mu);
    assert!((pw - 0.509_4).abs() < 1e-3, "Erlang C {pw}");
    let wq = pw / (f64::from(c) * mu - lambda);
    let lq = t.nodes[0].run.queue_mean;
    eprintln!("M/M/4: W {w} vs {}, Lq {lq} vs {}", wq + 1.0 / mu, lam * wq);
    assert!((w / (wq + 1.0 / mu) - 1.0).abs() < 0.03, "W {w}");
    assert!((lq / (lambda * wq) - 1.0).abs() < 0.06, "Lq {lq}");
    // Little's law on the queue alone: Lq = lambda Wq, Wq from the run.
    assert!((lq / (lam * (w - 1.0 / mu)) - 1.0).abs() < 0.03);
}

/// M/D/1 at lambda = 0.5/ms, service 1 ms: Pollaczek–Khinchine gives the
/// mean wait `rho D / (2 (1 - rho))` = 0.5 ms, so W = 1.5 ms and
/// Lq = 0.25. Half the M/M/1 wait: the variance of service matters.
///
/// Tolerance: 400 s, 200 000 customers; deterministic service halves the
/// wait's variance against M/M/1, so 4 % is well over three standard
/// errors.
#[test]
fn md1_matches_pollaczek_khinchine() {
    let (lambda, d, ticks) = (0.5, 1.0, 400_000u64);
    let m = model(
        ticks,
        3,
        vec![station(
            "server",
            LatencySpec::Constant(d),
            Some(1),
            Some(1_000_000),
        )],
        vec![poisson(lambda, 0)],
    );
    let (obs, t) = run(&m);
    let (w, l, lam) = station_means(&obs, &t, ticks);
    let rho = lambda * d;
    let wq = rho * d / (2.0 * (1.0 - rho));
    eprintln!("M/D/1: W {w} vs {}, L {l}", wq + d);
    assert!((w / (wq + d) - 1.0).abs() < 0.04, "W {w}");
    assert!((t.nodes[0].run.queue_mean / (lambda * wq) - 1.0).abs() < 0.08);
    assert!(
        (l / (lam * w) - 1.0).abs() < 0.01,
        "Little: {l} vs {}",
        lam * w
    );
}

/// A chain `api -> db` where db fails a share `p` of calls (an error
/// fault over the whole run) and api makes up to `k` tries with no wait:
/// a request succeeds with probability `1 - p^k` and makes
/// `1 + p + ... + p^(k-1)` calls at db.
///
/// Tolerance: 100 000 requests per case. The success share is binomial
/// (standard error at most 0.0016); the calls per request have variance
/// below `k^2 / 4`, so their mean's standard error is below 0.005 for
/// k = 3. Bounds of 0.008 and 1 % are over three standard errors.
#[test]
fn retries_with_failure_probability_p() {
    for (p, k) in [(0.1, 3u32), (0.3, 3), (0.5, 2), (0.5, 4)] {
        let ticks = 100_000;
        let api = NodeSpec {
            name: "api".into(),
            downstream: Some(1),
            retry: Some(RetrySpec::new(k, Backoff::Fixed { wait: 0 })),
            ..Default::default()
        };
        let db = station("db", LatencySpec::Constant(0.1), None, None);
        let mut m = model(ticks, 5, vec![api, db], vec![poisson(1.0, 0)]);
        m.faults = vec![FaultSpec {
            name: "errors".into(),
            node: 1,
            from: 1,
            to: ticks,
            timed: TimedFault {
                errors: Some((p, 503)),
                ..Default::default()
            },
            ..Default::default()
        }];
        let (obs, _) = run(&m);
        let a = obs.accounting;
        let n = (a.completed + a.dropped) as f64;
        let success = a.completed as f64 / n;
        let calls: u64 = obs.nodes[1].calls.iter().map(|&c| u64::from(c)).sum();
        let load = calls as f64 / a.entered as f64;
        let want_success = 1.0 - p.powi(k as i32);
        let want_load: f64 = (0..k).map(|i| p.powi(i as i32)).sum();
        assert!(
            (success - want_success).abs() < 0.008,
            "p {p} k {k}: {success}"
        );
        assert!((load / want_load - 1.0).abs() < 0.01, "p {p} k {k}: {load}");
    }
}

/// One request at 1 ms into `api -> db`; db takes 10 ms; api's tries time
/// out after 4 ms and it waits 1 ms between its 3 tries.
fn timeout_chain(cancel: bool, deadline: Option<DeadlineSpec>) -> Model {
    let api = NodeSpec {
        name: "api".into(),
        downstream: Some(1),
        retry: Some(RetrySpec::new(3, Backoff::Fixed { wait: 1 })),
        caller: CallerSpec {
            timeout: Some(4.0),
            cancel,
        },
        ..Default::default()
    };
    let db = station("db", LatencySpec::Constant(10.0), None, None);
    let source = SourceSpec {
        name: "one".into(),
        entry: 0,
        schedule: Schedule::At(vec![1]),
        deadline,
        ..Default::default()
    };
    model(40, 1, vec![api, db], vec![source])
}

const MS: u64 = 1_000_000;

/// By hand: tries at 1, 6 and 11 ms time out at 5, 10 and 15 ms; the
/// request is dropped at 15 ms (14 ms end to end). db keeps working on
/// every try: three wasted calls, each busy 6 ms after its caller gave
/// up (answers at 11, 16, 21 ms).
#[test]
fn timeouts_leave_orphans_that_waste_work() {
    let (obs, t) = run(&timeout_chain(false, None));
    assert_eq!(obs.accounting.dropped, 1);
    assert_eq!(
        obs.nodes[1].calls[1] + obs.nodes[1].calls[6] + obs.nodes[1].calls[11],
        3
    );
    let (api, db) = (&t.nodes[0].run, &t.nodes[1].run);
    assert_eq!(api.timeouts, 3);
    assert_eq!(db.wasted_calls, 3);
    assert_eq!(db.wasted_busy, 18 * MS);
    assert_eq!(db.cancelled, 0);
    // Answers at 11, 16 and 21 ms, counted in their ticks.
    assert_eq!(
        (
            obs.nodes[1].ok[11],
            obs.nodes[1].ok[16],
            obs.nodes[1].ok[21]
        ),
        (1, 1, 1)
    );
    // The request was dropped: its end-to-end time is with the failed
    // requests' (completed requests' latency is kept apart from them).
    let e2e = t.failed.run;
    assert_eq!(e2e.count, 1);
    assert!(
        (e2e.max as f64 / (14 * MS) as f64 - 1.0).abs() < 1e-3,
        "{e2e:?}"
    );
    // At the end nothing is held: every call answered.
    assert_eq!(t.calls.answered, t.calls.arrived);
}

/// Orphans keep working among themselves: `edge -> mid -> db`, edge's
/// tries time out after 4 ms (2 tries, 1 ms apart), mid has no timeout,
/// db takes 10 ms. Each orphaned mid call still gets db's answer (at 11
/// and 16 ms) and answers, to nobody: two wasted calls at mid and at db,
/// and every call answered by the end.
#[test]
fn orphans_answer_the_orphans_above_them() {
    let edge = NodeSpec {
        name: "edge".into(),
        downstream: Some(1),
        retry: Some(RetrySpec::new(2, Backoff::Fixed { wait: 1 })),
        caller: CallerSpec {
            timeout: Some(4.0),
            cancel: false,
        },
        ..Default::default()
    };
    let mid = NodeSpec {
        name: "mid".into(),
        downstream: Some(2),
        ..Default::default()
    };
    let db = station("db", LatencySpec::Constant(10.0), None, None);
    let source = SourceSpec {
        name: "one".into(),
        entry: 0,
        schedule: Schedule::At(vec![1]),
        ..Default::default()
    };
    let (obs, t) = run(&model(30, 1, vec![edge, mid, db], vec![source]));
    assert_eq!(obs.dropped[10], 1);
    assert_eq!((obs.nodes[1].ok[11], obs.nodes[1].ok[16]), (1, 1));
    assert_eq!(
        (t.nodes[1].run.wasted_calls, t.nodes[2].run.wasted_calls),
        (2, 2)
    );
    assert_eq!(t.calls.answered, t.calls.arrived);
}

/// With cancellation each timed-out try stops at db at once: no wasted
/// work, three cancelled calls, no worker held at the end.
#[test]
fn cancellation_frees_the_worker() {
    let (obs, t) = run(&timeout_chain(true, None));
    assert_eq!(obs.accounting.dropped, 1);
    let db = &t.nodes[1].run;
    assert_eq!((db.wasted_calls, db.wasted_busy, db.cancelled), (0, 0, 3));
    assert_eq!(obs.nodes[1].ok.iter().sum::<u32>(), 0);
    // db was busy 4 ms per try, 12 ms in all, over a 40 ms run.
    assert!(
        (db.in_service_mean - 12.0 / 40.0).abs() < 1e-9,
        "{}",
        db.in_service_mean
    );
    assert_eq!(t.calls.cancelled, 3);
}

/// A 12 ms deadline from the source (at 1 ms: ends at 13 ms). The third
/// try starts at 11 ms with 2 ms left, so its timer is cut to 2 ms; at
/// 13 ms no wait can end before the deadline, and the request is dropped
/// 12 ms after it entered. Not propagated, db finishes all three tries
/// (busy for nobody 5..11, 10..16 and 13..21 ms: 20 ms). Propagated, db
/// stops at 13 ms whatever it holds: the first try had finished at 11 ms
/// (wasted, 6 ms), the second stops at the deadline (3 ms wasted), the
/// third is cancelled by api's timeout at the same moment.
#[test]
fn a_deadline_cuts_the_last_try_and_propagation_stops_the_callee() {
    for propagate in [false, true] {
        let (obs, t) = run(&timeout_chain(
            false,
            Some(DeadlineSpec {
                after: 12.0,
                propagate,
            }),
        ));
        assert_eq!(obs.accounting.dropped, 1);
        assert_eq!(obs.dropped[13], 1);
        // The request was dropped: its end-to-end time is with the failed
        // requests' (completed requests' latency is kept apart from them).
        let e2e = t.failed.run;
        assert!(
            (e2e.max as f64 / (12 * MS) as f64 - 1.0).abs() < 1e-3,
            "{e2e:?}"
        );
        let db = &t.nodes[1].run;
        assert_eq!(t.nodes[0].run.timeouts, 3);
        if propagate {
            assert_eq!(
                (db.wasted_calls, db.cancelled, db.wasted_busy),
                (1, 2, 9 * MS)
            );
        } else {
            assert_eq!(
                (db.wasted_calls, db.cancelled, db.wasted_busy),
                (3, 0, 20 * MS)
            );
        }
    }
}

/// A node with a downstream holds its worker while it waits: api has one
/// worker, db takes 10 ms; two requests at 1 ms. The second waits in
/// api's queue until the first is answered at 11 ms, and is answered at
/// 21 ms: 20 ms at api.
#[test]
fn a_waiting_node_holds_its_worker() {
    let api = NodeSpec {
        name: "api".into(),
        downstream: Some(1),
        server: Some(ServerSpec {
            workers: Some(1),
            queue: Some(10),
            ..Default::default()
        }),
        ..Default::default()
    };
    let db = station("db", LatencySpec::Constant(10.0), None, None);
    let source = SourceSpec {
        name: "two".into(),
        entry: 0,
        schedule: Schedule::At(vec![1, 1]),
        ..Default::default()
    };
    let (obs, t) = run(&model(30, 1, vec![api, db], vec![source]));
    assert_eq!((obs.completed[11], obs.completed[21]), (1, 1));
    let api = &t.nodes[0].run;
    assert!((api.latency.max as f64 / (20 * MS) as f64 - 1.0).abs() < 1e-3);
    assert_eq!((api.queue_max, api.in_service_max), (1, 1));
    // In service 1..21 ms of a 30 ms run; queued 1..11 ms.
    assert!((api.in_service_mean - 20.0 / 30.0).abs() < 1e-9);
    assert!((api.queue_mean - 10.0 / 30.0).abs() < 1e-9);
}

/// Overflow: one worker, no queue; a second call while the first is
/// served is refused with its own outcome.
#[test]
fn a_full_pool_refuses_with_overflow() {
    let db = station("db", LatencySpec::Constant(5.0), Some(1), Some(0));
    let source = SourceSpec {
        name: "two".into(),
        entry: 0,
        schedule: Schedule::At(vec![1, 2, 7]),
        ..Default::default()
    };
    let (obs, t) = run(&model(20, 1, vec![db], vec![source]));
    assert_eq!(t.nodes[0].run.overflow, 1);
    assert_eq!((obs.accounting.completed, obs.accounting.dropped), (2, 1));
}

/// Same model, same seed: the same observations; another seed: others.
#[test]
fn runs_are_deterministic() {
    let m = model(
        20_000,
        9,
        vec![station(
            "server",
            LatencySpec::LogNormal { p50: 1.0, p99: 8.0 },
            Some(2),
            Some(50),
        )],
        vec![poisson(1.5, 0)],
    );
    let (a, _) = run(&m);
    let (b, _) = run(&m);
    assert_eq!(a, b);
    let mut other = m.clone();
    other.seed = 10;
    let (c, _) = run(&other);
    assert_ne!(a.timed, c.timed);
}
