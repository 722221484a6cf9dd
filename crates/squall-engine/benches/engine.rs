//! Throughput of the engine, and the practical limit it is measured against.
//!
//! ```text
//! cargo bench -p squall-engine --bench engine
//! cargo bench -p squall-engine --bench engine -- --warm-up-time 1 --measurement-time 3 scaled
//! ```
//!
//! Groups:
//!
//! * `retry_storm` — `scenarios/retry-storm.squall`, variant `storm` (400
//!   rounds): build and run, as `squall run` does per variant; and end to end
//!   from the file's text (parse, resolve, build, run).
//! * `scaled_storm` — the same chain ×100 (demand 400/round, capacity
//!   1200/round, a 60-round brownout to 100/round every 1000 rounds) for
//!   10 000 rounds, in events per second. `bench/compare.sh` runs the same
//!   scenario in SimPy.
//! * `healthy` — no fault, 1 request a round, 10⁴..10⁶ rounds: time per
//!   event stays flat as the run grows (the work is linear in its length).
//! * `bare_queue` — as many events as the scaled storm, pushed and popped
//!   through [`EventQueue`] with a handler that only schedules the next event
//!   (and through a plain `BinaryHeap` for reference): the most any engine
//!   built on this queue could do.
//!
//! Run as `cargo bench`, it first prints a one-shot comparison (best of a few
//! runs each): the scaled storm's events per second, the bare queue's, and
//! their ratio.

mod common;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use common::Storm;
use criterion::{BenchmarkId, Criterion, Throughput};
use squall_engine::queue::EventQueue;
use squall_engine::{Observations, Simulation};
use squall_lang::{Model, Overrides, RunKey};

const RETRY_STORM: &str = include_str!("../../../scenarios/retry-storm.squall");

/// The scaled storm of `scaled_storm` and `bench/compare.sh`.
const SCALED: Storm = Storm {
    scale: 100,
    rounds: 10_000,
    period: 1000,
};

/// Events in the bare loop's queue at once: the scaled storm's peak of
/// requests in flight (each waits on one retry event), and a small queue.
const HELD: [usize; 2] = [1_000, 18_000];

fn run(model: &Model) -> Observations {
    let sim = Simulation::builder(model)
        .build()
        .expect("the model builds");
    sim.run().expect("the model runs")
}

fn storm_variant() -> Model {
    storm_variant_of(RETRY_STORM)
}

fn storm_variant_of(text: &str) -> Model {
    let scenario =
        squall_lang::load("scenarios/retry-storm.squall", text).expect("retry-storm.squall loads");
    let storm = scenario
        .variants
        .iter()
        .position(|v| v.name == "storm")
        .expect("retry-storm.squall has a `storm` variant");
    scenario
        .model_for(RunKey::Variant(storm), &[])
        .expect("the storm variant resolves")
}

/// No fault, 1 request a round into the document's chain.
fn healthy(rounds: u64) -> Model {
    let text = format!(
        r#"scenario "healthy" {{
  clock round
  run {rounds} rounds
  source users {{ rate 1/round  enters edge }}
  chain edge -> api -> worker -> db
  service edge, api, worker {{ retry {{ attempts 3  backoff fixed 4 rounds }} }}
  service db {{ capacity 12/round }}
  window all 1..{rounds}
}}"#
    );
    squall_lang::load("healthy.squall", &text)
        .expect("the healthy chain loads")
        .model(&Overrides::default())
        .expect("the healthy chain resolves")
}

/// Pops `events` events through an [`EventQueue`] holding `held` at once;
/// each handler schedules one event 4 ticks on (the storm's retry spacing),
/// as long as more are wanted.
fn bare_event_queue(events: u64, held: usize) -> u64 {
    let mut q: EventQueue<u32> = EventQueue::new();
    let mut scheduled = 0u64;
    for i in 0..held.min(events as usize) {
        q.schedule(1 + (i % 4) as u64, i as u32)
            .expect("in the future");
        scheduled += 1;
    }
    let mut sum = 0u64;
    while let Some((t, e)) = q.pop() {
        sum = sum.wrapping_add(u64::from(e));
        if scheduled < events {
            q.schedule(t + 4, e).expect("in the future");
            scheduled += 1;
        }
    }
    sum
}

/// The same loop on a plain `BinaryHeap<Reverse<(time, seq, event)>>`.
fn bare_binary_heap(events: u64, held: usize) -> u64 {
    let mut heap = BinaryHeap::new();
    let mut seq = 0u64;
    for i in 0..held.min(events as usize) {
        heap.push(Reverse((1 + (i % 4) as u64, seq, i as u32)));
        seq += 1;
    }
    let mut sum = 0u64;
    while let Some(Reverse((t, _, e))) = heap.pop() {
        sum = sum.wrapping_add(u64::from(e));
        if seq < events {
            heap.push(Reverse((t + 4, seq, e)));
            seq += 1;
        }
    }
    sum
}

fn retry_storm(c: &mut Criterion) {
    let mut g = c.benchmark_group("retry_storm");
    let model = storm_variant();
    g.throughput(Throughput::Elements(run(&model).events));
    g.bench_function("storm_400_rounds", |b| b.iter(|| run(black_box(&model))));
    // With parsing and resolving the file as well.
    g.bench_function("storm_400_rounds_from_text", |b| {
        b.iter(|| run(&storm_variant_of(black_box(RETRY_STORM))))
    });
    g.finish();
}

fn scaled_storm(c: &mut Criterion) {
    let mut g = c.benchmark_group("scaled_storm");
    g.sample_size(20);
    let model = SCALED.model();
    g.throughput(Throughput::Elements(run(&model).events));
    g.bench_function("x100_10000_rounds", |b| b.iter(|| run(black_box(&model))));
    g.finish();
}

fn healthy_long(c: &mut Criterion) {
    let mut g = c.benchmark_group("healthy");
    g.sample_size(10);
    for rounds in [10_000u64, 100_000, 1_000_000] {
        let model = healthy(rounds);
        g.throughput(Throughput::Elements(run(&model).events));
        g.bench_with_input(BenchmarkId::from_parameter(rounds), &model, |b, m| {
            b.iter(|| run(black_box(m)))
        });
    }
    g.finish();
}

fn bare_queue(c: &mut Criterion) {
    let mut g = c.benchmark_group("bare_queue");
    g.sample_size(20);
    let events = run(&SCALED.model()).events;
    g.throughput(Throughput::Elements(events));
    for held in HELD {
        g.bench_with_input(BenchmarkId::new("EventQueue", held), &held, |b, &h| {
            b.iter(|| bare_event_queue(black_box(events), h))
        });
        g.bench_with_input(BenchmarkId::new("BinaryHeap", held), &held, |b, &h| {
            b.iter(|| bare_binary_heap(black_box(events), h))
        });
    }
    g.finish();
}

/// The best of `reps` timings of `f`.
fn best_of(reps: u32, mut f: impl FnMut()) -> Duration {
    (0..reps)
        .map(|_| {
            let started = Instant::now();
            f();
            started.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// squall against the bare queue on the scaled storm's event count, in one
/// line a reader can quote.
fn print_ratio() {
    let model = SCALED.model();
    let obs = run(&model);
    let events = obs.events;
    let calls = common::total_calls(&obs);
    let squall = best_of(5, || drop(black_box(run(&model))));
    let held = obs.peak_in_flight as usize;
    let bare = best_of(5, || {
        black_box(bare_event_queue(events, held));
    });
    let per_s = |d: Duration| events as f64 / d.as_secs_f64();
    println!(
        "scaled storm: {events} events, {calls} calls, peak {held} in flight\n\
         squall     {:>8.1} ms  {:>12.0} events/s  {:>12.0} calls/s\n\
         bare queue {:>8.1} ms  {:>12.0} events/s  (EventQueue, {held} held)\n\
         squall/bare time per event: {:.1}x\n",
        squall.as_secs_f64() * 1e3,
        per_s(squall),
        calls as f64 / squall.as_secs_f64(),
        bare.as_secs_f64() * 1e3,
        per_s(bare),
        squall.as_secs_f64() / bare.as_secs_f64(),
    );
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not, and
    // then criterion runs each benchmark once as a smoke test.
    if std::env::args().any(|a| a == "--bench") {
        print_ratio();
    }
    let mut c = Criterion::default().configure_from_args();
    retry_storm(&mut c);
    scaled_storm(&mut c);
    healthy_long(&mut c);
    bare_queue(&mut c);
    c.final_summary();
}
