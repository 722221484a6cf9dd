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

use squall_engine::observe::TimedObservations;
use squall_engine::{Observations, Simulation};
use squall_lang::{Arrivals, Clock, LatencySpec, Model, NodeSpec, ServerSpec, SourceSpec};

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
    let obs = Simulation::builder(m)
        .build()
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(obs.accounting.balances(), "{:?}", obs.accounting);
    let timed = obs.timed.clone().expect("a run that takes time");
    assert!(timed.calls.balances(), "{:?}", timed.calls);
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
/// Tolerance: 400 s at lambda = 0.5/ms is 200 000 customers. The sojourn
/// times of an M/M/1 queue are correlated; the variance of their mean is
/// about `W^2 (1 + rho)... / n` inflated by the relaxation time
/// `1 / (mu (1 - sqrt rho)^2)`, about 12 mean service times at rho = 0.5
/// and 105 at rho = 0.8. That gives a relative standard error near 1 % at
/// rho = 0.5 and 3 % at rho = 0.8 for the run lengths below; the bounds
/// (4 % and 10 %) are three to four of those. Little's law holds on a
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
