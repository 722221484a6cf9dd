//! The planner's tests: which runs a plan makes, their seeds, what a run
//! keeps, and the memory budget.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use squall_lang::{RunKey, Scenario};

use super::{reads_ticks, resolve, Finished, Keep, RunOptions, RunPlan};
use crate::error::StudyError;
use crate::memory::series_bytes;
use crate::run::Run;

const CROSSED: &str = r#"scenario "crossed" {
  run 10 rounds
  source users { rate 1/round  enters api }
  chain api -> db
  param n = 1
  window all 1..10
  variant a "a" { }
  variant b "b" { }
  sweep s "s" { n in [1, 2] }
  report {
    table "grid" {
      rows variants [b] x sweep s
      at db
      label "case", "n"
      column "calls" = all.calls :.0
    }
  }
}"#;

#[test]
fn reports_and_check_plan_the_crossed_runs_of_a_table() {
    let s = squall_lang::load("crossed.squall", CROSSED).unwrap_or_else(|e| panic!("{e:?}"));
    let (a, b) = (RunKey::Variant(0), RunKey::Variant(1));
    let cross = |p| RunKey::Cross(1, 0, p);
    assert_eq!(RunPlan::report(&s, None).keys(), [a, b, cross(0), cross(1)]);
    // `--variant a` leaves out b's rows, and so their runs.
    assert_eq!(RunPlan::report(&s, Some(&[0])).keys(), [a]);
    // A sweep runs only the rows of its table, and a shard only its own.
    assert_eq!(
        RunPlan::sweep(&s, 0, &|_| true).keys(),
        [cross(0), cross(1)]
    );
    assert_eq!(RunPlan::sweep(&s, 0, &|k| k == cross(1)).keys(), [cross(1)]);
    let points = [RunKey::Point(0, 0), RunKey::Point(0, 1)];
    assert_eq!(
        RunPlan::every(&s).keys(),
        [a, b, points[0], points[1], cross(0), cross(1)]
    );
    assert!(RunPlan::every(&s).refusals(&s, &[], None).is_empty());
}

#[test]
fn every_run_gets_the_seed_of_its_settings() {
    let s = squall_lang::load("crossed.squall", CROSSED).unwrap_or_else(|e| panic!("{e:?}"));
    let plan = RunPlan::every(&s);
    for &k in plan.keys() {
        let (_, model) = resolve(&s, k, &[]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(model.seed, s.run_seed(k), "{k:?}");
    }
}

/// A two-variant scenario of `rounds` rounds whose report reads only
/// window totals.
fn long(rounds: u64) -> String {
    format!(
        r#"scenario "long" {{
  run {rounds} rounds
  source users {{ rate 2/round  enters api }}
  chain api -> db
  service db {{ capacity 3/round }}
  fault slow {{ on db  during 10..20  capacity 1/round }}
  window all 1..{rounds}
  window early 1..30
  variant a "a" {{ }}
  variant b "b" {{ }}
  report {{
    table "load" {{
      rows variants [a, b] x windows
      at db
      column "calls" = calls :.0
      column "peak" = peak_calls :.0
      column "last" = last_answered :.0
      column "saturated" = saturated_ticks :.0
      column "success" = success_rate :.3
    }}
  }}
}}"#
    )
}

fn finished(s: &Scenario, keep: Keep, memory_mib: Option<u64>) -> Result<Finished, StudyError> {
    RunPlan::report(s, None).run_with(
        s,
        &RunOptions {
            jobs: Some(1),
            memory_mib,
            ..RunOptions::keeping(keep)
        },
    )
}

#[test]
fn a_reduced_run_keeps_the_same_bytes_however_long_it_ran() {
    let mut kept = Vec::new();
    for rounds in [1_000, 20_000] {
        let s = squall_lang::load("long.squall", &long(rounds)).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(!reads_ticks(&s));
        let full = finished(&s, Keep::Everything, None).unwrap_or_else(|e| panic!("{e}"));
        let reduced = finished(&s, Keep::Report, None).unwrap_or_else(|e| panic!("{e}"));
        // Every report byte is the same.
        let report = |runs: BTreeMap<RunKey, Run>| {
            let study = crate::Study {
                sending: Vec::new(),
                scenario: &s,
                cli: Vec::new(),
                selected: None,
                runs,
                replicas: Vec::new(),
            };
            study.report().to_text()
        };
        let (a, b) = (full.runs.clone(), reduced.runs.clone());
        assert_eq!(report(a), report(b), "{rounds} rounds");
        for (k, r) in &reduced.runs {
            let whole = full.runs[k].retained_bytes();
            // Four u32 series for the system and seven per node, one
            // entry per tick, are gone.
            assert!(whole >= (rounds as usize + 1) * 4 * (4 + 7 * 2), "{whole}");
            assert!(r.kept.is_some());
            kept.push(r.retained_bytes());
        }
    }
    // The same scenario 20 times longer keeps exactly as many bytes per
    // run: its window totals, not its ticks.
    assert_eq!(kept.len(), 4);
    assert_eq!(kept[0], kept[2], "{kept:?}");
    assert_eq!(kept[1], kept[3], "{kept:?}");
    assert!(kept.iter().all(|&b| b < 8_192), "{kept:?}");
}

#[test]
fn an_invocation_over_its_memory_budget_is_refused_before_it_runs() {
    let s = squall_lang::load("long.squall", &long(50_000)).unwrap_or_else(|e| panic!("{e:?}"));
    let plan = RunPlan::report(&s, None);
    // Two runs of 50 001 ticks, 4 + 2 x 7 counters of 4 bytes a tick, and
    // what each holds besides (its record, model and observations).
    let full = plan
        .memory(&s, &[], 1, false)
        .unwrap_or_else(|e| panic!("{e}"));
    let (_, m) = resolve(&s, RunKey::Variant(0), &[]).unwrap_or_else(|e| panic!("{e}"));
    let held = crate::memory::held_bytes(&m);
    assert_eq!(full.runs, 2);
    assert_eq!(full.per_run, 50_001 * 72 + held);
    assert_eq!(full.total, 2 * (50_001 * 72 + held));
    // Reduced on one thread: one run's counters at a time, plus totals.
    let reduced = plan
        .memory(&s, &[], 1, true)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(reduced.total < full.total && reduced.total > full.per_run);
    let err = finished(&s, Keep::Everything, Some(5))
        .map(|_| ())
        .unwrap_err();
    let StudyError::Memory {
        estimate,
        budget_mib,
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!((*estimate, *budget_mib), (full, 5));
    assert_eq!(
            err.to_string(),
            "this invocation would hold about 7 MiB for 2 runs (every run keeps all its counters, for the series, charts or per-tick measures; the largest run's estimated peak is 4 MiB), more than the memory budget of 5 MiB: run fewer variants or points, a shorter `run` or fewer at once, or raise the budget"
        );
    // Reducing each run as it finishes brings the same plan under it.
    assert!(finished(&s, Keep::Report, Some(5)).is_ok());
}

/// A run that takes time: 100 000 requests a second held 1 s each at
/// `db`, so about 100 000 requests in flight (the engine estimates
/// some 100 MiB: about 50 live and room for as much again as its slabs
/// grow by doubling), over a 10 s run at `clock ms` (10 bins of 1 s).
const IN_FLIGHT: &str = r#"scenario "in flight" {
  clock ms
  run 10s

  source users { rate 100000/s  enters api }

  chain api -> db

  service db { latency 1s  workers 200000 }
}"#;

#[test]
fn the_invocation_estimate_of_a_timed_run_is_the_engines_own() {
    let s = squall_lang::load("in-flight.squall", IN_FLIGHT).unwrap_or_else(|e| panic!("{e:?}"));
    let (_, m) = resolve(&s, RunKey::Variant(0), &[]).unwrap_or_else(|e| panic!("{e}"));
    let engine = squall_engine::simulation::estimate(&m);
    let plan = RunPlan::report(&s, None);
    let full = plan
        .memory(&s, &[], 1, false)
        .unwrap_or_else(|e| panic!("{e}"));
    // Not the 10 001 ticks x (4 + 2 x 7) counters of a round model: the
    // engine's estimated peak, the one `squall check --estimate` prints.
    assert_eq!(
        full.per_run,
        engine.peak_bytes() + crate::memory::held_bytes(&m)
    );
    assert_ne!(full.per_run, series_bytes(&m));
    assert!(engine.in_flight_bytes > 40 << 20, "{engine:?}");
}

#[test]
fn a_timed_run_over_the_memory_budget_on_its_own_is_refused_at_its_run() {
    let s = squall_lang::load("in-flight.squall", IN_FLIGHT).unwrap_or_else(|e| panic!("{e:?}"));
    // About 100 MiB is over 20: refused before it starts, at `run 10s` (its value), with
    // the estimate's parts; the invocation's sum is not what refuses.
    let err = finished(&s, Keep::Report, Some(20))
        .map(|_| ())
        .unwrap_err();
    let StudyError::Refused(r) = &err else {
        panic!("{err}")
    };
    let squall_engine::SimError::MemoryOverBudget {
        mib,
        in_flight,
        budget,
        ..
    } = r.error
    else {
        panic!("{err}")
    };
    assert!(mib > 40.0 && in_flight > 40.0 && budget == 20, "{err}");
    assert_eq!(r.place(), "in-flight.squall:3:7");
    let text = err.to_string();
    // The figure is the engine's estimate (it moves with the engine's
    // structures, e.g. the timed event calendar), printed to 0.1 MiB.
    assert!(
        text.starts_with(&format!(
            "in-flight.squall:3:7: this run would hold about {mib:.1} MiB"
        )),
        "{text}"
    );
    assert!(
        text.contains("more than the memory budget of 20 MiB"),
        "{text}"
    );
    // `squall check` lists it with the same budget, and passes it at the
    // default budget, which the run is well under.
    let refused = RunPlan::every(&s).refusals(&s, &[], Some(20));
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].1.to_string(), text);
    assert!(RunPlan::every(&s).refusals(&s, &[], None).is_empty());
}

#[test]
fn a_stop_flag_set_after_k_runs_keeps_the_k_finished_runs() {
    let s = squall_lang::load("crossed.squall", CROSSED).unwrap_or_else(|e| panic!("{e:?}"));
    let stop = AtomicBool::new(false);
    let progress = |done: usize, _total: usize| {
        if done >= 2 {
            stop.store(true, Ordering::SeqCst);
        }
    };
    let ran = RunPlan::report(&s, None)
        .run_with(
            &s,
            &RunOptions {
                jobs: Some(1),
                progress: &progress,
                stop: Some(&stop),
                ..RunOptions::keeping(Keep::Report)
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        ran.runs.keys().copied().collect::<Vec<_>>(),
        [RunKey::Variant(0), RunKey::Variant(1)]
    );
    assert_eq!(ran.skipped, 2);
}

/// Issue 20: the events log was weighed at `--events-limit` rows whatever
/// the run, so a short run with a large limit was refused (a 536 k-call
/// run as 18 GB). It is weighed at the calls the run answers without a
/// failure, capped by the limit. `long(100)` has two variants of 100
/// rounds, 2 requests a round through `api -> db`: 200 requests x 2 calls
/// = 400 calls each (hand-worked), whose rows take 512 (the next power of
/// two, `Vec`'s doubling) x the row's bytes; with a limit of 10 rows, 16.
/// A limit of 10^8 rows (4 GB at the old rule, past a 100 MiB budget)
/// then runs, and both variants log all their 400 calls or fewer: the
/// failure-free count is the estimate, and the fault only loses calls.
#[test]
fn the_events_log_is_weighed_by_the_runs_calls_capped_by_the_limit() {
    let s = squall_lang::load("long.squall", &long(100)).unwrap_or_else(|e| panic!("{e:?}"));
    let (_, m) = resolve(&s, RunKey::Variant(0), &[]).unwrap_or_else(|e| panic!("{e}"));
    let row = std::mem::size_of::<squall_engine::observe::CallRow>() as u64;
    assert_eq!(crate::memory::call_log_bytes(&m, 100_000_000), 512 * row);
    assert_eq!(crate::memory::call_log_bytes(&m, 10), 16 * row);
    let ran = RunPlan::report(&s, None)
        .run_with(
            &s,
            &RunOptions {
                jobs: Some(1),
                memory_mib: Some(100),
                call_log: Some(100_000_000),
                ..RunOptions::keeping(Keep::Report)
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
    for run in ran.runs.values() {
        let log = run.obs.call_log.as_ref().expect("a call log");
        assert!(
            !log.rows.is_empty() && log.rows.len() <= 400,
            "{}",
            log.rows.len()
        );
    }
}
