//! Each replica's counts per named window (`SimulationBuilder::replica_windows`),
//! what a report's `api[1].calls` reads: hand-counted round robin, the
//! binomial law of `random`, a fault on one replica, and the identity that
//! the replicas of a node add up to the node, on both paths.

mod common;

use squall_engine::{Observations, Simulation};
use squall_lang::{Model, RunKey};

/// The first variant of `text`, resolved.
fn model(text: &str) -> Model {
    let s = squall_lang::load("test.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    s.model_for(RunKey::Variant(0), &[]).unwrap()
}

/// Runs `m` keeping each replica's counts per window.
fn run(m: &Model) -> Observations {
    let obs = Simulation::builder(m)
        .replica_windows(true)
        .build()
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(obs.accounting.balances(), "{:?}", obs.accounting);
    obs
}

/// Every replicated node's replicas add up to the node in every window,
/// count by count, exactly: each is counted where the node's series
/// counts it, at the same tick.
fn assert_replicas_add_up(m: &Model, obs: &Observations) {
    for (n, rc) in obs.replicas.iter().enumerate() {
        if m.nodes[n].replicas.is_none() {
            assert!(rc.windows.is_empty());
            continue;
        }
        assert_eq!(rc.windows.len(), m.windows.len());
        let s = &obs.nodes[n];
        for (w, spec) in m.windows.iter().enumerate() {
            let node = |v: &[u32]| obs.total(v, spec.from, spec.to);
            let sum = |f: fn(&squall_engine::ReplicaWindow) -> u64| -> u64 {
                rc.windows[w].iter().map(f).sum()
            };
            let name = &m.nodes[n].name;
            assert_eq!(sum(|c| c.calls), node(&s.calls), "{name} calls, window {w}");
            assert_eq!(sum(|c| c.served), node(&s.ok), "{name} served, window {w}");
            assert_eq!(
                sum(|c| c.failed),
                node(&s.failed),
                "{name} failed, window {w}"
            );
            assert_eq!(
                sum(|c| c.refused),
                node(&s.refused),
                "{name} refused, window {w}"
            );
        }
    }
}

/// Round robin over 4 replicas at 4 calls a round for 100 rounds: the
/// picks go 0, 1, 2, 3 in every round, so each replica receives exactly
/// 1 call a round: 100 in `all` (1..100) and 20 in `mid` (41..60). With
/// capacity to spare every call is served. Exact: no draw is made.
#[test]
fn round_robin_gives_each_replica_a_quarter_exactly() {
    let m = model(
        "scenario \"rr\" {
  clock round
  run 100 rounds
  source users { rate 4/round  enters api }
  chain api
  service api { capacity 10/round  replicas 4 }
  window all 1..100
  window mid 41..60
}",
    );
    let obs = run(&m);
    let w = &obs.replicas[0].windows;
    assert_eq!(w[0].len(), 4);
    for (r, (all, mid)) in w[0].iter().zip(&w[1]).enumerate() {
        assert_eq!(all.calls, 100, "replica {r}");
        assert_eq!(all.served, 100, "replica {r}");
        assert_eq!(mid.calls, 20, "replica {r}");
        assert_eq!((all.failed, all.refused), (0, 0));
    }
    assert_replicas_add_up(&m, &obs);
}

/// The same on the timed path (1 ms calls at a leaf of 4 workers, 4
/// calls/ms over 1 000 ms, arrivals evenly spaced): round robin still
/// sends every fourth call to each replica, so each receives exactly
/// 1 000 of the 4 000 calls of `all` (1..1000, the whole run).
#[test]
fn round_robin_on_the_timed_path_is_exact_too() {
    let m = model(
        "scenario \"rr\" {
  clock ms
  run 1000ms
  source users { rate 4/ms  enters api }
  chain api
  service api { latency 1ms  workers 4  queue unbounded  replicas 4 }
  window all 1..1000
}",
    );
    let obs = run(&m);
    let w = &obs.replicas[0].windows[0];
    let total: u64 = w.iter().map(|c| c.calls).sum();
    assert_eq!(total, 4000);
    for (r, c) in w.iter().enumerate() {
        assert_eq!(c.calls, 1000, "replica {r}");
    }
    assert_replicas_add_up(&m, &obs);
}

/// `random` over 4 replicas: each pick is one uniform draw, so a
/// replica's calls over n = 8 000 calls are Binomial(n, 1/4): mean 2 000,
/// standard deviation sqrt(n 1/4 3/4) = 38.7. Each replica within 4
/// standard deviations (155 calls): a false alarm has odds below 1 in
/// 10 000 per replica, and the run is seeded.
#[test]
fn random_gives_each_replica_a_binomial_share() {
    let m = model(
        "scenario \"random\" {
  clock round
  run 200 rounds
  source users { rate 40/round  enters api }
  chain api
  service api { capacity 100/round  replicas 4  balance random }
  window all 1..200
}",
    );
    let obs = run(&m);
    let w = &obs.replicas[0].windows[0];
    let n: u64 = w.iter().map(|c| c.calls).sum();
    assert_eq!(n, 8000);
    let sd = (n as f64 * 0.25 * 0.75).sqrt();
    for (r, c) in w.iter().enumerate() {
        let dev = (c.calls as f64 - n as f64 / 4.0).abs();
        assert!(
            dev <= 4.0 * sd,
            "replica {r}: {} calls, {dev} from 2000",
            c.calls
        );
    }
    assert_replicas_add_up(&m, &obs);
}

/// A `fail 503` fault on replica 1 over rounds 41..60, round robin at 4
/// calls a round: replica 1 receives 1 call a round and fails each in
/// the fault, 20 failures in `fault`, none before; the others fail
/// nothing. A capacity fault of 0 on replica 2 over the same rounds
/// refuses its 20 calls there, and only its. The entry's single try
/// makes every failure a dropped request: 40 in all.
#[test]
fn a_fault_on_one_replica_shows_only_on_it() {
    let m = model(
        "scenario \"fault\" {
  clock round
  run 100 rounds
  source users { rate 4/round  enters api }
  chain api
  service api { capacity 10/round  replicas 4 }
  fault down { on api[1]  during 41..60  fail 503 }
  fault full { on api[2]  during 41..60  capacity 0/round }
  window before 1..40
  window fault 41..60
}",
    );
    let obs = run(&m);
    let w = &obs.replicas[0].windows;
    assert_eq!(w[1][1].failed, 20);
    assert_eq!(w[1][1].refused, 0);
    assert_eq!(w[1][2].refused, 20);
    assert_eq!(w[1][2].failed, 20, "a refusal is a failed answer too");
    for r in [0, 3] {
        assert_eq!((w[1][r].failed, w[1][r].refused), (0, 0), "replica {r}");
        assert_eq!(w[1][r].served, 20, "replica {r}");
    }
    for (r, before) in w[0].iter().enumerate() {
        let counts = (before.failed, before.refused);
        assert_eq!(counts, (0, 0), "before, replica {r}");
    }
    assert_eq!(obs.accounting.dropped, 40);
    assert_replicas_add_up(&m, &obs);
}

/// A replicated service in the middle of a chain, whose answers come up
/// from below after its retries: on the zero-time path the balancer
/// remembers each request's replica until the answer; the replicas still
/// add up to the node in every window, served and failed included. The
/// database fails every call in rounds 41..60 and `api` tries 3 times.
#[test]
fn a_replicated_node_mid_chain_adds_up_on_both_paths() {
    let round = "scenario \"mid\" {
  clock round
  run 100 rounds
  source users { rate 6/round  enters edge }
  chain edge -> api -> db
  service api { replicas 3  balance random  retry { attempts 3  backoff fixed 2 rounds } }
  service db { capacity 100/round }
  fault down { on db  during 41..60  fail 503 }
  window before 1..40
  window fault 41..60
  window after 61..100
}";
    let m = model(round);
    let obs = run(&m);
    let w = &obs.replicas[1].windows;
    assert!(w[1].iter().map(|c| c.failed).sum::<u64>() > 0);
    assert_replicas_add_up(&m, &obs);

    let timed = "scenario \"mid\" {
  clock ms
  run 2000ms
  source users { rate 3/ms  arrivals poisson  enters edge }
  chain edge -> api -> db
  service api { latency 1ms  workers 8  replicas 3  balance p2c
                retry { attempts 3  backoff fixed 2ms } }
  service db { latency exponential mean 1ms  workers 8  queue 4 }
  fault down { on db  during 500ms..1000ms  errors 50% as 503 }
  window before 1..499
  window fault 500..1000
  window after 1001..2000
}";
    let m = model(timed);
    let obs = run(&m);
    assert!(obs.timed.is_some());
    assert_replicas_add_up(&m, &obs);
}

/// A run not asked for them keeps no counts per window (the default): a
/// report that reads no replica pays nothing.
#[test]
fn counts_per_window_are_kept_only_when_asked_for() {
    let m = model(
        "scenario \"rr\" {
  clock round
  run 10 rounds
  source users { rate 4/round  enters api }
  chain api
  service api { replicas 4 }
  window all 1..10
}",
    );
    let obs = common::run_model(&m, None);
    assert_eq!(obs.replicas[0].calls, vec![10; 4]);
    assert!(obs.replicas[0].windows.is_empty());
}
