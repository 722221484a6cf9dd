//! One model, both paths (issue 18): each model below takes no time, so it
//! runs on the zero-time path as written; it is run again forced through
//! the timed path ([`SimulationBuilder::force_timed`]). Both paths drive
//! the same caller side (`caller::CallerSide`: breakers, budgets, the
//! retry rule) and the same server checks, so every count the semantics
//! fixes must come out the same. Each test says why its counts are equal
//! and checks them against a hand-worked value as well, so that two paths
//! agreeing on a wrong number still fails.
//!
//! Why the timed path can agree at all: nothing takes time, so on the
//! timed path a try is answered in the moment it is sent. Two things
//! differ, neither of them the caller side's, and the tests are written
//! around them:
//!
//! * the sources: the zero-time path sends a tick's 4 requests at its
//!   start; the timed path sends one request every 1/4 ms, the first at
//!   the run's start, so both send 400 over 100 ms, but not at the same
//!   instants. The tests compare what the caller side decides (retries
//!   granted and refused, tries a breaker lets through) and the counts
//!   that follow from it per request entered;
//! * the order of events inside one tick (new requests and retries
//!   interleave on the timed path): every model here is one whose counts
//!   do not depend on that order (the dependency answers every call the
//!   same, or its capacity is per tick), which each test says.

use squall_engine::{Observations, Simulation};
use squall_lang::RunKey;

/// Runs `text`'s first variant on the path it takes as written, then
/// forced through the timed path; checks that the first is the zero-time
/// path (unless `timed_as_written`), the second the timed one, and that
/// both account for every request.
fn both(text: &str, timed_as_written: bool) -> (Observations, Observations) {
    let s = squall_lang::load("test.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let m = s.model_for(RunKey::Variant(0), &[]).unwrap();
    let run = |force: bool| {
        let b = Simulation::builder(&m);
        let b = if force { b.force_timed() } else { b };
        let obs = b
            .build()
            .and_then(|s| s.run())
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(obs.accounting.balances(), "{:?}", obs.accounting);
        obs
    };
    let (plain, timed) = (run(false), run(true));
    assert_eq!(plain.timed.is_some(), timed_as_written, "path as written");
    assert!(timed.timed.is_some(), "forced through the timed path");
    (plain, timed)
}

fn sum(v: &[u32]) -> u64 {
    v.iter().map(|&x| u64::from(x)).sum()
}

/// The requests that entered.
fn entered(obs: &Observations) -> u64 {
    obs.accounting.entered
}

/// Calls at node `i`, its tries refused by its breaker, its retries
/// refused by its budget.
fn calls(obs: &Observations, i: usize) -> u64 {
    sum(&obs.nodes[i].calls)
}
fn blocked(obs: &Observations, i: usize) -> u64 {
    sum(&obs.nodes[i].blocked)
}
fn refused(obs: &Observations, i: usize) -> u64 {
    sum(&obs.nodes[i].retries_refused)
}

/// A retry budget of 5 tokens that never refill, in front of a dependency
/// that answers 503 to every call: 400 requests (4/ms for 100 ms), each
/// failing and asking for its one retry (`attempts 2`).
///
/// The bucket grants the first 5 retries asked for and refuses every
/// other, whatever order the asks come in (every ask is the same), so
/// both paths grant 5 (db's calls beyond app's: the 5 retries go 1 ms
/// after the first asks, well inside the run) and refuse all but 5 of
/// the requests (400 - 5 = 395 on both: the timed uniform source sends
/// its first request at the start and the rest 0.25 ms apart); a
/// granted retry fails again and, its tries used up, does not ask again.
/// Every request is dropped.
#[test]
fn a_budget_grants_the_same_retries_on_both_paths() {
    let (plain, timed) = both(
        r#"scenario "budget" {
  clock ms
  run 100ms
  source users { rate 4/ms  enters app }
  chain app -> db
  service app { retry { attempts 2  backoff fixed 1ms }  budget token_bucket { size 5 } }
  endpoint db { default { 503 } }
}
"#,
        false,
    );
    assert_eq!((entered(&plain), entered(&timed)), (400, 400));
    for obs in [&plain, &timed] {
        assert_eq!(calls(obs, 1) - calls(obs, 0), 5, "retries granted");
        assert_eq!(refused(obs, 0), entered(obs) - 5, "retries refused");
        assert_eq!(obs.accounting.dropped, entered(obs));
    }
}

/// The same budget kept per client: 4 clients picked in turn (uniform
/// arrivals), each with its own bucket of 5 tokens. Each client sends 100
/// requests, far more than 5, so each of the 4 buckets grants 5 retries:
/// 20 retries reach db and the other requests' are refused, on both
/// paths (the client of a request is picked in turn on both, and the
/// grants do not depend on the order of the asks). A budget shared by the
/// node would grant 5.
#[test]
fn a_per_client_budget_is_per_client_on_both_paths() {
    let (plain, timed) = both(
        r#"scenario "client budgets" {
  clock ms
  run 100ms
  source users { rate 4/ms  clients 4  enters app }
  chain app -> db
  service app { retry { attempts 2  backoff fixed 1ms }  budget token_bucket { size 5 } }
  endpoint db { default { 503 } }
}
"#,
        false,
    );
    for obs in [&plain, &timed] {
        assert_eq!(calls(obs, 1) - calls(obs, 0), 20, "retries granted");
        assert_eq!(refused(obs, 0), entered(obs) - 20, "retries refused");
    }
}

/// A consecutive-failure breaker per client (4 clients in turn), opening
/// after 3 failures for 1 s (past the run), in front of a db that answers
/// 503 to every call; no retry. Each client's breaker lets its first 3
/// tries through and refuses the rest, so db sees 4 x 3 = 12 calls and
/// every other try is refused, on both paths: every call fails the same,
/// so the order of the clients' tries does not matter. One breaker for
/// the node would let 3 through.
#[test]
fn a_per_client_breaker_opens_the_same_on_both_paths() {
    let (plain, timed) = both(
        r#"scenario "client breakers" {
  clock ms
  run 100ms
  source users { rate 4/ms  clients 4  enters app }
  chain app -> db
  service app { breaker { after 3 failures  cooldown 1s  probes 1 } }
  endpoint db { default { 503 } }
}
"#,
        false,
    );
    for obs in [&plain, &timed] {
        assert_eq!(calls(obs, 1), 12, "db calls");
        assert_eq!(blocked(obs, 0), entered(obs) - 12, "tries refused");
    }
}

/// Rate-window breakers: resilience4j over the last 20 calls with at
/// least 10, opening at 50 % failures, and Polly over 10 s with at least
/// 10 calls, opening at a failure ratio of 0.5; both stay open 60 s (past
/// the run). db answers 503 to every call, so each opens at its 10th
/// recorded failure (the failure rate is 100 % from the first call, and
/// the minimum of 10 calls is what holds it closed until then): 10 calls
/// reach each db and every other try is refused, on both paths.
#[test]
fn rate_window_breakers_open_the_same_on_both_paths() {
    let (plain, timed) = both(
        r#"scenario "rate windows" {
  clock ms
  run 100ms
  source a { rate 4/ms  enters r4j }
  source b { rate 4/ms  enters polly }
  chain r4j -> db1
  chain polly -> db2
  service r4j { breaker resilience4j { window_calls 20  minimum_calls 10  failure_rate 50  wait_open 60s } }
  service polly { breaker polly { failure_ratio 0.5  minimum_throughput 10  sampling 10s  break_duration 60s } }
  endpoint db1 { default { 503 } }
  endpoint db2 { default { 503 } }
}
"#,
        false,
    );
    for obs in [&plain, &timed] {
        let per_source = entered(obs) / 2;
        for (breaker, db) in [(0, 1), (2, 3)] {
            assert_eq!(calls(obs, db), 10, "{}", obs.nodes[db].name);
            assert_eq!(blocked(obs, breaker), per_source - 10);
        }
    }
}

/// resilience4j's slow-call rule, when nothing takes time: a call is slow
/// iff it took longer than `slow_call_duration`, and a try answered in
/// the moment it is sent took 0 on both paths (the timed path now tells
/// the breaker each try's real duration, which is 0 here). So the rule
/// never trips and every call reaches db, on both paths; db answers 200.
#[test]
fn a_slow_call_rule_sees_no_slow_call_on_both_paths() {
    let (plain, timed) = both(
        r#"scenario "slow calls" {
  clock ms
  run 100ms
  source users { rate 4/ms  enters app }
  chain app -> db
  service app { breaker resilience4j { window_calls 20  minimum_calls 10  failure_rate 100  slow_call_rate 50  slow_call_duration 1ms  wait_open 60s } }
}
"#,
        false,
    );
    for obs in [&plain, &timed] {
        assert_eq!(calls(obs, 1), entered(obs), "db calls");
        assert_eq!(blocked(obs, 0), 0);
        assert_eq!(obs.accounting.completed, entered(obs));
    }
}

/// A hedge always takes time, so its model runs on the timed path as
/// written. With a dependency that answers in the moment it is called,
/// gRFC A6 hedging is a retry loop with no wait: a non-fatal failure sends
/// the next try at once while tries are left, and a success answers
/// before the hedging delay ends. So `hedge grpc { max_attempts 3 }`
/// against a db answering 503 makes 3 tries per request, like `retry {
/// attempts 3  backoff fixed 0ms }`, on either path: 3 calls per request
/// reach db, every request is dropped, and 2 per request are hedges
/// (every try beyond a call's first).
#[test]
fn a_hedge_against_an_instant_dependency_is_a_retry_loop_without_wait() {
    let model = |policy: &str| {
        format!(
            r#"scenario "hedge" {{
  clock ms
  run 100ms
  source users {{ rate 4/ms  enters app }}
  chain app -> db
  service app {{ {policy} }}
  endpoint db {{ default {{ 503 }} }}
}}
"#
        )
    };
    let (_, hedged) = both(
        &model("hedge grpc { max_attempts 3  hedging_delay 5ms }"),
        true,
    );
    let (retried, forced) = both(&model("retry { attempts 3  backoff fixed 0ms }"), false);
    assert_eq!(sum(&hedged.nodes[0].hedged), 2 * entered(&hedged));
    for obs in [&hedged, &retried, &forced] {
        assert_eq!(calls(obs, 1), 3 * entered(obs), "db calls");
        assert_eq!(obs.accounting.dropped, entered(obs));
    }
}

/// A capacity fault: db serves 3 calls a millisecond, 1 during the
/// brownout over 20..40 ms (21 ticks); 4 requests a millisecond and no
/// retry. Capacity is a per-tick window on both paths, so each tick
/// serves min(its requests, capacity) and refuses the rest whatever the
/// order: 79 x 3 + 21 x 1 = 258 completed on both paths, tick by tick
/// the same (the timed path's first tick has 3 requests, no fewer than
/// its capacity), and the rest dropped.
#[test]
fn a_capacity_fault_cuts_the_same_calls_on_both_paths() {
    let (plain, timed) = both(
        r#"scenario "brownout" {
  clock ms
  run 100ms
  source users { rate 4/ms  enters app }
  chain app -> db
  service db { capacity 3/ms }
  fault brownout { on db  during 20ms..40ms  capacity 1/ms }
}
"#,
        false,
    );
    assert_eq!(plain.nodes[1].ok, timed.nodes[1].ok, "served per tick");
    for obs in [&plain, &timed] {
        assert_eq!(obs.accounting.completed, 258);
        assert_eq!(obs.accounting.dropped, entered(obs) - 258);
    }
}

/// Two sources on two chains: `users` (4/ms for 100 ms: 400 requests)
/// through `app -> db`, whose db answers 503 to every call, and `other`
/// (2/ms: 200 requests) into `cache`, which answers every call with
/// success; nobody retries. Every request of `users` is dropped and every
/// request of `other` completes, on both paths (each dependency answers
/// every call the same, so the order of events inside a tick does not
/// matter): the per-source counters (`source_ends`, what recovery reads
/// for the requests through a node) hold (0, 400) and (200, 0), and per
/// slot they add up to the system's `completed` and `dropped` (counts: no
/// tolerance).
#[test]
fn requests_are_counted_per_source_on_both_paths() {
    let (plain, timed) = both(
        r#"scenario "two sources" {
  clock ms
  run 100ms
  source users { rate 4/ms  enters app }
  source other { rate 2/ms  enters cache }
  chain app -> db
  chain cache
  endpoint db { default { 503 } }
  endpoint cache { default { 200 } }
}
"#,
        false,
    );
    for obs in [&plain, &timed] {
        let totals: Vec<(u64, u64)> = obs
            .source_ends
            .iter()
            .map(|(c, d)| (sum(c), sum(d)))
            .collect();
        assert_eq!(totals, vec![(0, 400), (200, 0)]);
        for i in 0..obs.completed.len() {
            let (c, d) = obs
                .source_ends
                .iter()
                .fold((0, 0), |(c, d), s| (c + s.0[i], d + s.1[i]));
            assert_eq!((c, d), (obs.completed[i], obs.dropped[i]), "slot {i}");
        }
    }
}

/// With one source the system's counters are that source's: no
/// per-source counters are kept (the memory estimate counts none).
#[test]
fn one_source_keeps_no_per_source_counters() {
    let (plain, timed) = both(
        r#"scenario "one source" {
  clock ms
  run 10ms
  source users { rate 1/ms  enters db }
  chain db
  endpoint db { default { 200 } }
}
"#,
        false,
    );
    assert!(plain.source_ends.is_empty() && timed.source_ends.is_empty());
    // 1/ms for 10 ms: 10 requests, all completed, on both paths.
    assert_eq!(plain.accounting.completed, 10);
    assert_eq!(timed.accounting.completed, 10);
}
