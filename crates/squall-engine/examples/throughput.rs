//! Runs the scaled retry storm once or a few times and prints what it did and
//! how fast: the squall half of `bench/compare.sh` (the other half is
//! `bench/simpy/retry_storm.py`, which prints the same summary lines).
//!
//! ```text
//! cargo run --release -p squall-engine --example throughput -- \
//!     --scale 100 --rounds 2000 --period 1000 --reps 3
//! ```
//!
//! Output: the summary (windows at `db`, recovery, accounting, calls per
//! node), then one `time:` line with the best wall time of `--reps` runs.

#[path = "../benches/common/mod.rs"]
mod common;

use std::time::Instant;

use common::Storm;
use squall_engine::Simulation;

fn main() {
    let mut storm = Storm::document();
    let mut reps = 1u32;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_default();
        let number = || {
            value.parse::<u64>().unwrap_or_else(|_| {
                eprintln!("{flag} needs a whole number, found `{value}`");
                std::process::exit(2)
            })
        };
        match flag.as_str() {
            "--scale" => storm.scale = number(),
            "--rounds" => storm.rounds = number(),
            "--period" => storm.period = number(),
            "--reps" => reps = number().max(1) as u32,
            _ => {
                eprintln!("usage: throughput [--scale K] [--rounds N] [--period P] [--reps R]");
                std::process::exit(2)
            }
        }
    }
    let model = storm.model();
    // The summary reads distinct ids at `db` alone: the run counts them
    // there only, as `squall run` asks for the nodes its report reads.
    let db = model
        .nodes
        .iter()
        .position(|n| n.name == "db")
        .expect("the storm has a `db`");
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..reps {
        let started = Instant::now();
        let obs = Simulation::builder(&model)
            .distinct_ids_at(&[db])
            .build()
            .and_then(|s| s.run())
            .unwrap_or_else(|e| {
                eprintln!("the run failed: {e}");
                std::process::exit(1)
            });
        best = best.min(started.elapsed().as_secs_f64());
        last = Some(obs);
    }
    let Some(obs) = last else { return };
    print!("{}", common::summary(&storm, &obs));
    let calls = common::total_calls(&obs);
    println!(
        "time: squall {best:.4} s  events {}  calls {calls}  events/s {:.0}  calls/s {:.0}  peak in flight {}",
        obs.events,
        obs.events as f64 / best,
        calls as f64 / best,
        obs.peak_in_flight
    );
}
