//! Replicas behind a balancer (`replicas N`, `balance ...`) against
//! queueing theory and hand-worked traces.
//!
//! The references: Poisson splitting (a Poisson stream split by
//! independent uniform draws gives N independent Poisson streams of rate
//! lambda/N, so each replica under `random` is an M/M/1 queue); the GI/M/1
//! queue for round robin (each replica sees Erlang-N interarrival times);
//! Winston (1977), join-the-shortest-queue is optimal for identical
//! exponential servers, so `least_outstanding` (which is JSQ at a leaf)
//! waits no longer than any other rule; and hand-worked counts for round
//! robin. Every run is seeded; each tolerance is justified where it is
//! asserted.

mod common;

use squall_engine::observe::histogram::RELATIVE_ERROR;
use squall_engine::Observations;
use squall_lang::{Balance, ReplicaSpec, RunKey};

const NS_PER_MS: f64 = 1e6;

/// A leaf `db` of `n` replicas, each one worker with exponential service
/// of mean 1 ms and no bound on its queue, fed by Poisson arrivals at
/// `lambda` per ms for `secs` seconds, balanced by `balance`.
fn farm(n: u32, lambda: f64, secs: u64, balance: &str, seed: u64) -> String {
    format!(
        "scenario \"farm\" {{
  clock ms
  run {secs}s
  seed {seed}
  source users {{ rate {lambda}/ms  arrivals poisson  enters db }}
  chain db
  service db {{ latency exponential mean 1ms  workers 1  queue unbounded  replicas {n}  balance {balance} }}
}}"
    )
}

/// Mean time in system at node `node` \[ms\].
fn mean_w(obs: &Observations, node: usize) -> f64 {
    obs.timed.as_ref().expect("timed").nodes[node]
        .run
        .latency
        .mean
        / NS_PER_MS
}

/// `random` over 3 replicas at lambda = 1.5/ms, mu = 1/ms: by Poisson
/// splitting each replica is an M/M/1 queue at lambda/3 = 0.5, so the
/// node's mean time in system is 1/(mu - lambda/3) = 2 ms, and each
/// replica receives a third of the calls.
///
/// Tolerance: 200 s at 1.5/ms is 300 000 calls, 100 000 per replica. The
/// mean of n successive M/M/1 times in system has variance
/// rho(2 + 5 rho - 4 rho^2 + rho^3)/(mu^2 (1 - rho)^4)/n (Blomqvist,
/// 1967) = 29/n at rho 0.5: one standard error 0.017 ms per replica, 0.01
/// ms (0.5 % of W) for the three together. 4 % is eight standard errors.
/// A replica's share is binomial: standard error sqrt(1/3 * 2/3 / 300 000)
/// = 0.00086; 0.005 is almost six.
#[test]
fn random_is_poisson_splitting_into_mm1_queues() {
    let obs = common::run_text(&farm(3, 1.5, 200, "random", 11));
    let w = mean_w(&obs, 0);
    eprintln!("random over 3 at rho 0.5: W {w} vs 2");
    assert!((w / 2.0 - 1.0).abs() < 0.04, "W {w} vs 2 ms");
    let calls = &obs.replicas[0].calls;
    let total: u64 = calls.iter().sum();
    for c in calls {
        let share = *c as f64 / total as f64;
        assert!((share - 1.0 / 3.0).abs() < 0.005, "share {share}");
    }
}

/// The root in (0, 1) of sigma = A*(mu (1 - sigma)) for a GI/M/1 queue
/// whose interarrival time is Erlang-`k` with stage rate `lambda` (its
/// Laplace-Stieltjes transform A*(s) = (lambda / (lambda + s))^k), by
/// fixed-point iteration from 0 (monotone for rho < 1).
fn gi_m1_sigma(k: i32, lambda: f64, mu: f64) -> f64 {
    let mut sigma = 0.0f64;
    for _ in 0..10_000 {
        sigma = (lambda / (lambda + mu * (1.0 - sigma))).powi(k);
    }
    sigma
}

/// Four replicas at 0.7 per replica (lambda = 2.8/ms, mu = 1/ms).
/// `random`: M/M/1 at rho 0.7, W = 1/(mu - 0.7) = 3.333 ms. `round_robin`:
/// each replica gets every fourth arrival, so Erlang-4 interarrival times
/// of stage rate 2.8; the GI/M/1 queue's time in system is exponential
/// with mean 1/(mu (1 - sigma)), sigma = A*(mu (1 - sigma)) (Kleinrock,
/// Queueing Systems I, 6.4). `least_outstanding` is JSQ at this leaf,
/// optimal for identical exponential servers (Winston, 1977): no longer
/// than any rule here. `p2c` lies between JSQ and `random` (it compares
/// two draws instead of all or none).
///
/// Tolerance: 100 s is 280 000 calls, 70 000 per replica; at rho 0.7
/// Blomqvist's variance is 336/n: one standard error 0.07 ms per replica,
/// 0.035 ms (1.0 % of W) for the four together. Erlang arrivals are less
/// variable than Poisson ones, so the same bound holds for round robin's
/// mean. 6 % is six standard errors. The orderings are between means
/// whose gaps (over 30 % of W) are many standard errors.
#[test]
fn round_robin_and_least_outstanding_beat_random() {
    let w = |balance: &str| {
        let w = mean_w(&common::run_text(&farm(4, 2.8, 100, balance, 5)), 0);
        eprintln!("{balance}: W {w}");
        w
    };
    let (random, rr, lo, p2c) = (
        w("random"),
        w("round_robin"),
        w("least_outstanding"),
        w("p2c"),
    );
    assert!((random / (1.0 / 0.3) - 1.0).abs() < 0.06, "random {random}");
    let sigma = gi_m1_sigma(4, 2.8, 1.0);
    let rr_exact = 1.0 / (1.0 - sigma);
    eprintln!("E4/M/1: sigma {sigma}, W {rr_exact}");
    assert!(
        (rr / rr_exact - 1.0).abs() < 0.06,
        "round robin {rr} vs {rr_exact}"
    );
    assert!(
        lo <= p2c && p2c <= random,
        "lo {lo}, p2c {p2c}, random {random}"
    );
    assert!(
        lo <= rr && rr <= random,
        "lo {lo}, rr {rr}, random {random}"
    );
}

/// Round robin with fixed service, worked by hand: one arrival every 1 ms
/// (the uniform accumulator at 1/ms), two replicas of one worker and 1.5
/// ms of service each. Replica 0 takes the arrivals at 1, 3, 5 ... ms and
/// replica 1 those at 2, 4, 6 ...: each is busy 1.5 ms of every 2, so no
/// call ever waits and every call takes exactly 1.5 ms; the replicas
/// split the calls evenly. `random` over the same two replicas sends two
/// arrivals in a row to one replica about half the time, and the second
/// of them waits 0.5 ms.
#[test]
fn round_robin_with_fixed_service_never_queues() {
    let text = |balance: &str| {
        format!(
            "scenario \"pair\" {{
  clock ms
  run 10s
  source users {{ rate 1/ms  enters db }}
  chain db
  service db {{ latency 1.5ms  workers 1  queue unbounded  replicas 2  balance {balance} }}
}}"
        )
    };
    let obs = common::run_text(&text("round_robin"));
    let run = &obs.timed.as_ref().expect("timed").nodes[0].run;
    assert_eq!(run.waited, 0, "no call waits");
    assert!(run.admitted > 9_000, "{}", run.admitted);
    // The histogram keeps a value in a bucket no wider than 1/1024 of it
    // and reports the bucket's top (`RELATIVE_ERROR`), so the longest of
    // calls that all take 1.5 ms reads between 1.5 ms and 1.5 (1 + 1/1024).
    let max = run.latency.max as f64;
    assert!(
        (1_500_000.0..=1_500_000.0 * (1.0 + RELATIVE_ERROR)).contains(&max),
        "every call takes 1.5 ms: {max}"
    );
    let calls = &obs.replicas[0].calls;
    assert!(calls[0].abs_diff(calls[1]) <= 1, "{calls:?}");
    let obs = common::run_text(&text("random"));
    assert!(obs.timed.as_ref().expect("timed").nodes[0].run.waited > 0);
}

/// A fault on one replica, worked by hand on the zero-time path: one
/// request per round into `edge`, which calls `api` (3 replicas, round
/// robin) with two tries and no wait; replica 1 fails every call. The
/// picks go 0, 1, 2, 0, 1, 2, ...: request 1 gets replica 0; request 2
/// gets replica 1, fails, and its retry gets replica 2; request 3 gets
/// replica 0 again, and so on. Over 100 requests: every request succeeds,
/// replica 0 takes the 50 odd requests, replica 1 the 50 even ones (all
/// refused), replica 2 their 50 retries: 150 calls at `api`.
#[test]
fn a_fault_on_one_replica_is_retried_onto_the_next() {
    let obs = common::run_text_any(
        "scenario \"one bad replica\" {
  clock round
  run 100 rounds
  source users { rate 1/round  enters edge }
  chain edge -> api
  service edge { retry { attempts 2  backoff fixed 0 rounds } }
  service api { replicas 3 }
  fault bad { on api[1]  during 1..100  fail 503 }
}",
    );
    let api = &obs.replicas[1];
    assert_eq!(api.calls, vec![50, 50, 50]);
    assert_eq!(api.refused, vec![0, 50, 0]);
    let calls: u32 = obs.nodes[1].calls.iter().sum();
    assert_eq!(calls, 150);
    let failed: u32 = obs.nodes[0].failed.iter().sum();
    assert_eq!(failed, 0, "every request succeeds at the edge");
}

/// `replicas 1` is the model without the line: on every scenario of the
/// repository, the first variant run with each node given one replica
/// (with a balancer that would draw, `random`) observes exactly what it
/// observes without, apart from the per-replica counts themselves. A
/// single replica is picked without a draw and keeps the node's streams.
#[test]
fn one_replica_observes_the_same_as_none() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("scenarios/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "squall"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "{files:?}");
    for path in files {
        let text = std::fs::read_to_string(&path).expect("read");
        let s = squall_lang::load(&path.display().to_string(), &text)
            .unwrap_or_else(|d| panic!("{}", d.to_plain()));
        let m = s.model_for(RunKey::Variant(0), &[]).expect("model");
        let mut one = m.clone();
        for n in &mut one.nodes {
            if n.replicas.is_none() {
                n.replicas = Some(ReplicaSpec {
                    count: 1,
                    balance: Balance::Random,
                });
            }
        }
        // A scenario that has replicas already (replicas.squall) keeps
        // them; the per-replica counts are compared on the others' nodes.
        let mut plain = common::run_model(&m, None);
        let mut with = common::run_model(&one, None);
        assert_eq!(with.replicas.len(), m.nodes.len());
        if !plain.replicas.is_empty() {
            assert_eq!(plain.replicas, with.replicas, "{}", path.display());
        }
        plain.replicas.clear();
        with.replicas.clear();
        assert!(plain == with, "{} differs with replicas 1", path.display());
    }
}
