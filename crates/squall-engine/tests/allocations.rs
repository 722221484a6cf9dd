//! The engine allocates for what it keeps, never per event.
//!
//! A run allocates its per-tick series once, and its per-request slab and
//! event queue grow to the most requests in flight; after that, in steady
//! state, no event allocates. So two runs of the same model that differ only
//! in length make the same number of allocations. The global allocator here
//! counts them.
//!
//! The counter is global (counting per thread needs an `unsafe` allocator,
//! which the workspace forbids), so nothing else may allocate while it
//! counts: this binary has no test harness (`harness = false` in
//! `Cargo.toml`). libtest's main thread allocated now and then while the
//! first run was counted (437 allocations instead of 433 in about half the
//! runs); here `main` is the only thread, and a warm-up run first pays for
//! whatever the process sets up once, so every count is this thread's and
//! the same on every run.

use std::alloc::System;

use squall_engine::Simulation;
use squall_lang::{Model, Overrides};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Document 000's chain, `rounds` long, its dependency browned out from
/// round 101 to `until`.
fn chain(rounds: u64, until: u64) -> Model {
    let text = format!(
        r#"scenario "chain" {{
  clock round
  run {rounds} rounds
  source users {{ rate 4/round  enters edge }}
  chain edge -> api -> worker -> db
  service edge, api, worker {{ retry {{ attempts 3  backoff fixed 4 rounds }} }}
  service db {{ capacity 12/round }}
  fault brownout {{ on db  during 101..{until}  capacity 1/round }}
  window before 1..100
  window during 101..{until}
}}"#
    );
    squall_lang::load("chain.squall", &text)
        .and_then(|s| s.model(&Overrides::default()))
        .unwrap_or_else(|d| panic!("the chain does not load: {d}"))
}

/// A chain that takes time whose edge sets a one-hour timer on every try
/// (`timeout 1h`) while the try answers in a millisecond: every timer goes
/// stale at once and would wait an hour in the event queue. `seconds`
/// long, 1 000 requests a second, in 20 bins (the bins' latency
/// quantiles are kept per bin: the same bins, the same allocations).
fn stale_timers(seconds: u64) -> Model {
    let every = seconds / 20;
    let text = format!(
        r#"scenario "stale timers" {{
  clock ms
  run {seconds}s
  series every {every}s
  source users {{ rate 1000/s  enters edge }}
  chain edge -> db
  service edge {{ timeout 1h }}
  service db {{ latency 1ms }}
}}"#
    );
    squall_lang::load("timers.squall", &text)
        .and_then(|s| s.model(&Overrides::default()))
        .unwrap_or_else(|d| panic!("the timed chain does not load: {d}"))
}

/// Allocations (and reallocations) made by building and running `model`,
/// and the events it processed.
fn allocations(model: &Model) -> (usize, u64) {
    let region = Region::new(GLOBAL);
    let obs = Simulation::builder(model)
        .build()
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("the run fails: {e}"));
    let change = region.change();
    (change.allocations + change.reallocations, obs.events)
}

fn main() {
    // Warm-up: one-time set-up (lazy statics, buffers) is not per event.
    allocations(&chain(200, 160));
    allocations(&stale_timers(20));
    for (what, short, long) in [
        // The events queue keeps the timers in flight, not every timer
        // set: 20 s and 200 s of it hold the same (a few thousand at
        // most, under the queue's compaction floor), so they allocate the
        // same. Keeping the stale timers, the longer run's queue grows
        // to 200 000 timers (more reallocations of the heap).
        ("stale timers", stale_timers(20), stale_timers(200)),
        (
            "a storm, then a healthy tail",
            chain(2_000, 160),
            chain(20_000, 160),
        ),
        (
            "a storm to the end of the run",
            chain(2_000, 2_000),
            chain(20_000, 20_000),
        ),
    ] {
        let (a_short, e_short) = allocations(&short);
        let (a_long, e_long) = allocations(&long);
        eprintln!("{what}: {a_short} allocations for {e_short} events, {a_long} for {e_long}");
        assert!(e_long > 3 * e_short, "{what}: the long run has more events");
        assert_eq!(a_short, a_long, "{what}: allocations grow with events");
    }
    eprintln!("allocations: ok");
}
