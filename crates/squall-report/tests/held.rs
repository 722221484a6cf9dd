//! What a study's finished runs hold, against the memory estimate that
//! weighs them before they run (issue 20: a study of millions of short
//! runs was estimated by their counters alone and aborted at 6 GB).
//!
//! The global allocator here counts bytes; with nothing else running (no
//! test harness: `harness = false`), the bytes that dropping a plan's
//! finished runs frees are what they held. The estimate must be at least
//! that (it is a bound the budget relies on) and not far above it (a bound
//! that refuses what fits is no use either). Before this estimate counted
//! each run's record, model and observations (`memory::held_bytes`), it
//! saw only the window totals: about a seventh of what 1 000 short runs
//! hold. A second check: what timed runs leave behind once dropped does not
//! grow with their number.

use std::alloc::System;

use squall_lang::Scenario;
use squall_report::plan::{Keep, RunOptions, RunPlan};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// A four-node chain swept over `points` demands, `replications` each:
/// short runs, reduced as they finish (nothing is read per tick).
fn study(points: usize, replications: usize) -> Scenario {
    let demands: Vec<String> = (1..=points).map(|d| format!("{d}/round")).collect();
    let text = format!(
        r#"scenario "many short runs" {{
  run 20 rounds
  param demand = 1/round
  source users {{ rate $demand  enters edge }}
  chain edge -> api -> worker -> db
  service edge, api, worker {{ retry {{ attempts 3  backoff fixed 1 rounds }} }}
  service db {{ capacity 12/round }}
  window before 1..10
  window after 11..20
  sweep demand "demand" {{ demand in [{}] }}
  report {{
    replications {replications}
    table "t" {{
      rows sweep demand
      at db
      column "calls" = after.calls :.0
    }}
  }}
}}"#,
        demands.join(", ")
    );
    squall_lang::load("many.squall", &text).unwrap_or_else(|d| panic!("{d:?}"))
}

/// A timed chain swept over `points` rates: short runs in which calls
/// take time, reduced as they finish.
fn timed_study(points: usize) -> Scenario {
    let rates: Vec<String> = (1..=points).map(|d| format!("{}/s", 10 * d)).collect();
    let text = format!(
        r#"scenario "many timed runs" {{
  clock ms
  run 2s
  param rate = 10/s
  source users {{ rate $rate  enters api }}
  chain api -> db
  service api {{ timeout 100ms }}
  service db {{ latency 5ms }}
  window all 1..2000
  sweep rate "rate" {{ rate in [{}] }}
  report {{
    table "t" {{
      rows sweep rate
      at db
      column "calls" = all.calls :.0
    }}
  }}
}}"#,
        rates.join(", ")
    );
    squall_lang::load("timed.squall", &text).unwrap_or_else(|d| panic!("{d:?}"))
}

/// Issue 20 (last session's note: "about 32 kB per run retained after
/// `run_with`"): nothing a run makes outlives its [`Finished`]. The bytes
/// in use after a study and after dropping what it returned (`stats_alloc`
/// counts a reallocation's growth as allocated and its shrinking as freed,
/// so allocated less freed is the whole; adding `bytes_reallocated` again,
/// as that note's measure likely did, counts every growth twice and made
/// 640 kB a run appear here) are the same few kB for 2 runs and for 100:
/// the process's one-time set-up (the thread pool's), not a share per run.
/// The finished timed runs hold what their report reads (9 kB a run
/// here), under the estimate.
fn timed_runs_leave_nothing_behind() {
    for points in [2, 100] {
        let s = timed_study(points);
        let plan = RunPlan::sweep(&s, 0, &|_| true);
        let estimate = plan
            .memory(&s, &[], 1, true)
            .unwrap_or_else(|e| panic!("{e}"));
        let region = Region::new(GLOBAL);
        let finished = plan
            .run_with(
                &s,
                &RunOptions {
                    jobs: Some(1),
                    ..RunOptions::keeping(Keep::Report)
                },
            )
            .unwrap_or_else(|e| panic!("{e}"));
        let dropping = Region::new(GLOBAL);
        drop(finished);
        let held = dropping.change().bytes_deallocated as u64;
        let c = region.change();
        let after = c.bytes_allocated as i64 - c.bytes_deallocated as i64;
        eprintln!(
            "{points} timed runs hold {held} bytes ({} a run), estimated {} ({} a run); {after} bytes left once dropped",
            held / points as u64,
            estimate.total,
            estimate.total / points as u64
        );
        assert!(
            estimate.total >= held,
            "estimate {} < held {held}",
            estimate.total
        );
        // A fixed few kB is left once the result is dropped, however many
        // runs there were. What is left is not a fixed number (the same
        // plan run twice left 12 040 and 9 328 bytes, and 100 runs 4 376:
        // the allocator's and the pool's own bookkeeping), so it is
        // bounded, not compared run to run. The bound was one run's held
        // bytes while a run held 63 kB; since a run records only what its
        // report reads it holds 9 kB, no more than the bookkeeping, so the
        // bound is now fixed: 32 kB. A study that kept 1 % of each run's
        // estimated working memory (1.9 kB of 186 kB here) would leave
        // 186 kB after 100 runs, and one that kept a whole run's result
        // 920 kB.
        const LEFT: i64 = 32 * 1024;
        assert!(
            after < LEFT,
            "{after} bytes left after {points} runs, more than the {LEFT} bytes of set-up"
        );
    }
}

fn main() {
    timed_runs_leave_nothing_behind();
    // The first plan pays for what the process sets up once (lazy statics,
    // the thread pool): a warm-up, not weighed.
    for (points, replications) in [(2, 2), (50, 4), (200, 5)] {
        let s = study(points, replications);
        let plan = RunPlan::sweep(&s, 0, &|_| true);
        let estimate = plan
            .memory(&s, &[], 1, true)
            .unwrap_or_else(|e| panic!("{e}"));
        let finished = plan
            .run_with(
                &s,
                &RunOptions {
                    jobs: Some(1),
                    ..RunOptions::keeping(Keep::Report)
                },
            )
            .unwrap_or_else(|e| panic!("{e}"));
        let runs = finished.runs.len() + finished.replicas.iter().map(|r| r.len()).sum::<usize>();
        assert_eq!(runs, points * replications);
        // What the finished runs hold: what dropping them frees.
        let region = Region::new(GLOBAL);
        drop(finished);
        let held = region.change().bytes_deallocated as u64;
        if points == 2 {
            continue;
        }
        eprintln!(
            "{runs} runs: the finished runs hold {held} bytes ({} a run), estimated {} ({} a run)",
            held / runs as u64,
            estimate.total,
            estimate.total / runs as u64
        );
        // The bound: every byte held was counted (the estimate also counts
        // the one run in progress, a few kB here).
        assert!(
            estimate.total >= held,
            "estimate {} < held {held}",
            estimate.total
        );
        // Not far above: within twice what is held.
        assert!(
            estimate.total <= 2 * held,
            "estimate {} > 2 x held {held}",
            estimate.total
        );
    }
    eprintln!("held: ok");
}
