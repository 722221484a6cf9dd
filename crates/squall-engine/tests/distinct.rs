//! Distinct ids counted only at some nodes
//! ([`SimulationBuilder::distinct_ids_at`]): on either path the nodes
//! asked for count exactly what a run that counts everywhere counts,
//! every other node's distinct ids stay 0 and are listed as not counted
//! (`Observations::distinct_at`), and nothing else a run records changes. The expected values are the full run's: counting an
//! id reads nothing the walk decides on, so the two runs are the same run.

use squall_engine::{Observations, Simulation};
use squall_lang::RunKey;

/// The retry storm of document 000 at its own scale: 4 requests a round
/// through four nodes, three tries per layer, a brownout at `db` in
/// rounds 101..160.
const STORM: &str = r#"scenario "distinct" {
  clock round
  run 400 rounds
  source users { rate 4/round  enters edge }
  chain edge -> api -> worker -> db
  service edge, api, worker { retry { attempts 3  backoff fixed 4 rounds } }
  service db { capacity 12/round }
  fault brownout { on db  during 101..160  capacity 1/round }
  window before 1..100
  window during 101..160
  window after 161..400
  window aftermath 101..400
}"#;

/// A composite response whose fields are fetched from two nodes (counted
/// where the walk assembles the response), one of them failing in blips.
const FIELDS: &str = r#"scenario "fields" {
  clock s
  run 60s
  source samples { rate 2/s  enters tracking }
  chain tracking -> [projection, pricing]
  service tracking {
    response {
      field status from projection core 180 B
      field fee from pricing optional 90 B
      policy skip_optional
    }
  }
  fault blips {
    on pricing
    every 20s phase 0s step 10s per field
    fail timeout
  }
  window all 1..60
  window late 31..60
}"#;

/// A chain that takes time: Poisson arrivals, exponential services, a
/// per-try timeout and retries at `edge`, so that a request is seen more
/// than once at `db` and the distinct ids there differ from the calls.
const TIMED: &str = r#"scenario "timed" {
  clock ms
  run 20s
  series every 1s
  source users { rate 200/s  arrivals poisson  enters edge }
  chain edge -> api -> db
  service edge { timeout 30ms  retry { attempts 3  backoff fixed 5ms } }
  service api { latency exponential mean 1ms  workers 8 }
  service db { latency exponential mean 4ms  workers 1  queue 50 }
  window early 1..10000
  window late 10001..20000
}"#;

/// Two paths through one chain, one from its entry and one from its
/// middle, with a node of each kind between plain ones: a capacity
/// (`gate`), a breaker (`mid`), a retry budget (`worker`), so that a
/// walk meets stretches of plain nodes (`simulation/plan.rs`,
/// `Step::bare`: their calls counted once for the stretch) of one and
/// two nodes, above and below the others, as their distinct ids are
/// counted or not.
const STRETCHES: &str = r#"scenario "stretches" {
  clock round
  run 300 rounds
  source users { rate 5/round  enters edge }
  source jobs { rate 2/round  enters api }
  chain edge -> proxy -> gate -> api -> mid -> worker -> db
  service edge, api, worker { retry { attempts 3  backoff fixed 2 rounds } }
  service gate { capacity 20/round }
  service mid { breaker { after 5 failures  cooldown 3 rounds } }
  service worker { budget aws }
  service db { capacity 6/round }
  fault brownout { on db  during 101..160  capacity 1/round }
  window before 1..100
  window during 101..160
}"#;

fn run(text: &str, at: Option<&[usize]>) -> Observations {
    let s =
        squall_lang::load("distinct.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let m = s
        .model_for(RunKey::Variant(0), &[])
        .unwrap_or_else(|e| panic!("{e:?}"));
    let b = Simulation::builder(&m);
    let b = match at {
        Some(nodes) => b.distinct_ids_at(nodes),
        None => b,
    };
    b.build()
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_storm_counts_where_asked_as_the_full_run_does() {
    let full = run(STORM, None);
    // Before the brownout every request reaches `db` once: 4 a round for
    // 100 rounds are 400 distinct ids there, one a call.
    let db = 3;
    assert_eq!(full.window_unique[0][db], 400);
    for at in [&[][..], &[db], &[1, db], &[0, 1, 2, 3]] {
        same_but_distinct(&full, &run(STORM, Some(at)), at);
    }
}

#[test]
fn stretches_of_plain_nodes_count_as_the_full_run_does() {
    // The full run counts distinct ids at every node, so that no node is
    // bare and the walk counts each call at its node: the general way.
    let full = run(STRETCHES, None);
    // The two sources send 7 requests a round and `db` serves 6: it
    // refuses at least one call every round, so failures reach the entry
    // node of each path, and the comparison sees failed calls on both.
    let failed = |n: usize| {
        full.nodes[n]
            .failed
            .iter()
            .map(|&c| u64::from(c))
            .sum::<u64>()
    };
    assert!(
        failed(0) > 0 && failed(3) > 0,
        "{} {}",
        failed(0),
        failed(3)
    );
    let (edge, proxy, gate, api, mid, worker, db) = (0, 1, 2, 3, 4, 5, 6);
    for at in [
        &[][..],
        &[db],
        &[proxy, db],
        &[gate, worker],
        &[edge, api, mid],
    ] {
        same_but_distinct(&full, &run(STRETCHES, Some(at)), at);
    }
}

#[test]
fn a_composite_counts_its_fields_where_asked() {
    let full = run(FIELDS, None);
    // Every request fetches both fields once: 2 a second for 60 seconds
    // are 120 distinct ids at each field's node.
    assert_eq!(full.window_unique[0][1..], [120, 120]);
    for at in [&[][..], &[1], &[0, 2], &[0, 1, 2]] {
        same_but_distinct(&full, &run(FIELDS, Some(at)), at);
    }
}

#[test]
fn a_timed_chain_counts_where_asked_as_the_full_run_does() {
    let full = run(TIMED, None);
    assert!(full.timed.is_some(), "the chain takes time");
    // db is busy (ρ = 200 × 4 ms = 0.8) and edge's 30 ms timeout retries
    // some requests, so db sees some requests twice: more calls there
    // than distinct ids, and the comparison below sees both counts.
    let db = 2;
    let calls: u64 = full.nodes[db].calls.iter().map(|&c| u64::from(c)).sum();
    let unique = full.window_unique[0][db] + full.window_unique[1][db];
    assert!(
        unique > 1000 && calls > unique,
        "{calls} calls, {unique} ids"
    );
    for at in [&[][..], &[db], &[0, db], &[0, 1, 2]] {
        same_but_distinct(&full, &run(TIMED, Some(at)), at);
    }
}

/// `part`, counting distinct ids `at` those nodes, recorded what `full`
/// did, but no distinct ids elsewhere, and says where it counted them.
fn same_but_distinct(full: &Observations, part: &Observations, at: &[usize]) {
    assert_eq!(full.distinct_at, None);
    assert_eq!(part.distinct_at.as_deref(), Some(at));
    for (n, (p, f)) in part.nodes.iter().zip(&full.nodes).enumerate() {
        assert_eq!(p.calls, f.calls, "calls at node {n}");
        assert_eq!(p.ok, f.ok, "served at node {n}");
        assert_eq!(p.failed, f.failed, "failed at node {n}");
        assert_eq!(p.refused, f.refused, "refused at node {n}");
        if at.contains(&n) {
            assert_eq!(p.unique, f.unique, "unique at node {n}, counting {at:?}");
        } else {
            assert!(
                p.unique.iter().all(|&u| u == 0),
                "node {n}, counting {at:?}"
            );
        }
    }
    for (w, (p, f)) in part
        .window_unique
        .iter()
        .zip(&full.window_unique)
        .enumerate()
    {
        for n in 0..f.len() {
            let want = if at.contains(&n) { f[n] } else { 0 };
            assert_eq!(p[n], want, "window {w}, node {n}, counting {at:?}");
        }
    }
    assert_eq!(part.accounting, full.accounting);
    assert_eq!(part.arrivals, full.arrivals);
    assert_eq!(part.events, full.events);
}
