//! The run planner: which runs a piece of work makes, with which seed, and
//! running them. Reports, sweeps and `squall check` all plan here, so they
//! agree on what a file runs.
//!
//! # Which runs
//!
//! A [`RunPlan`] is a sorted list of [`RunKey`]s, made for one purpose:
//!
//! - [`RunPlan::report`]: what `squall run` needs. The selected variants,
//!   the run of every row of every report table (a `sweep` axis gives its
//!   points, a sweep crossed with variants gives each point on each
//!   variant), and every variant an expression names (`storm.during.db.calls`).
//!   A variant left out with `--variant` is not run, even when a line names
//!   it; the line is left out instead.
//! - [`RunPlan::sweep`]: what `squall sweep` needs for one sweep. The rows
//!   of the tables that show the sweep (or one `measure` row per point when
//!   none does), only those this shard evaluates, and the variants their
//!   columns name (every shard runs those).
//! - [`RunPlan::every`]: every run any of those could make, for
//!   `squall check`: variants, sweep points, and points crossed with
//!   variants.
//!
//! Which run a table row reads is decided by [`row_runs`], the same rule
//! the report uses to lay the rows out: a sweep point on top of a variant
//! row is a run of its own (`RunKey::Cross`).
//!
//! # Which seed
//!
//! Every run gets its own stream, `Scenario::run_seed`: derived from the
//! scenario seed and the variant's name or the point's settings (not its
//! position), so a run's numbers do not depend on the thread count, the
//! order of `--vary` values, the other runs or the shards. The planner
//! resolves every run through `Scenario::overrides`, which sets that seed;
//! nothing else in this crate writes a seed.
//!
//! # Replications
//!
//! A report with `replications N` runs every planned run N times: the
//! first with the run's own seed, the others with
//! `Scenario::replication_seed`, derived from the run's seed and the
//! replication's number alone. [`RunPlan::run`] returns them as
//! [`Finished::runs`] (the first) and [`Finished::replicas`] (the others,
//! in replication order).
//!
//! # Running
//!
//! [`RunPlan::run`] resolves every run first (so a bad `--set` value is
//! reported before any simulation), then simulates them in parallel. Each
//! run is a pure function of its model, so the results do not depend on
//! the number of threads. [`RunPlan::refusals`] resolves and builds every
//! run without simulating it, for `squall check`.

mod budget;
mod distinct;
mod observe;
#[cfg(test)]
mod observe_tests;
mod reads;
mod rows;
mod run;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;

use squall_engine::{Simulation, SimulationBuilder};
use squall_lang::{LinePart, Metric, Model, Overrides, ReportItemSpec, RunKey, Scenario, Setting};

use crate::error::StudyError;
use crate::run::Run;

pub use crate::memory::MemoryEstimate;
pub use budget::OverBudget;
pub use distinct::distinct_reads;
pub use observe::observes;
use reads::draws_breaker_state;
pub use reads::reads_ticks;
pub(crate) use reads::{expect_exprs, variants_named};
pub use rows::{row_run, row_runs, sweep_tables};

/// The runs one piece of work makes, sorted, each once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunPlan {
    keys: Vec<RunKey>,
}

/// A plan's finished runs.
#[derive(Debug, Default)]
pub struct Finished {
    /// Every run, with its own seed (the first replication).
    pub runs: BTreeMap<RunKey, Run>,
    /// With `replications N`: replications 2..=N of every run, in order
    /// (empty without replications).
    pub replicas: Vec<BTreeMap<RunKey, Run>>,
    /// Runs not made because the work was stopped (`RunOptions::stop`):
    /// 0 when every run finished.
    pub skipped: usize,
    /// Runs that started and failed (past their work budget), with their
    /// replication (0 for the first) and why, in the plan's order; the
    /// other runs went on and are in `runs`. Empty when none failed.
    pub failed: Vec<(RunKey, usize, StudyError)>,
}

impl Finished {
    /// The first failed run's error (in the plan's order), if any run
    /// failed: for callers that need every run.
    pub fn first_failure(&mut self) -> Option<StudyError> {
        (!self.failed.is_empty()).then(|| self.failed.swap_remove(0).2)
    }
}

/// What a plan keeps of each run as it finishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Keep {
    /// Every per-tick series: for the series CSV, charts, and callers that
    /// read the runs themselves.
    #[default]
    Everything,
    /// What the report reads: each run is reduced to its window totals
    /// ([`Run::reduce`]) unless the report reads per tick ([`reads_ticks`]);
    /// a reduced run records only the timed measures the report reads
    /// ([`observes`]). Every run counts distinct ids only at the nodes
    /// the report reads them at ([`distinct_reads`]).
    Report,
}

/// The whole invocation's memory budget by default \[MiB\]: what the
/// finished runs and the runs in progress may hold at once (`--memory-budget`
/// sets another).
pub const DEFAULT_MEMORY_MIB: u64 = 4096;

/// How a plan runs.
#[derive(Clone, Copy)]
pub struct RunOptions<'a> {
    /// `--set` settings.
    pub cli: &'a [Setting],
    /// Threads; `None` for one per core.
    pub jobs: Option<usize>,
    /// What to keep of each run.
    pub keep: Keep,
    /// The memory budget \[MiB\]; `None` for [`DEFAULT_MEMORY_MIB`].
    pub memory_mib: Option<u64>,
    /// Called after each run.
    pub progress: Progress<'a>,
    /// When set (by Ctrl-C, or a test), no further run starts; the finished
    /// ones are returned, the others counted in [`Finished::skipped`].
    pub stop: Option<&'a AtomicBool>,
    /// Keep every run's answered calls, at most this many a run
    /// (`squall run --events`).
    pub call_log: Option<usize>,
}

/// Progress of a plan's runs: called with (0, total) before the first run
/// starts and with (finished, total) after each run, from any thread.
pub type Progress<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// No progress to show.
fn no_progress(_finished: usize, _total: usize) {}

impl RunOptions<'_> {
    /// Runs that keep `keep`, and nothing else asked: no settings, one
    /// thread per core, the default memory budget, no progress, nothing to
    /// stop them, no call log. The other fields are set with struct update
    /// (`RunOptions { jobs: Some(1), ..RunOptions::keeping(keep) }`).
    pub fn keeping(keep: Keep) -> Self {
        RunOptions {
            cli: &[],
            jobs: None,
            keep,
            memory_mib: None,
            progress: &no_progress,
            stop: None,
            call_log: None,
        }
    }
}

impl RunPlan {
    fn new(mut keys: Vec<RunKey>) -> RunPlan {
        keys.sort_unstable();
        keys.dedup();
        RunPlan { keys }
    }

    /// Every run a report needs: the selected variants (`None`: all), the
    /// run of every table row, and any variant an expression names.
    pub fn report(s: &Scenario, selected: Option<&[usize]>) -> RunPlan {
        let includes = |v: usize| selected.is_none_or(|sel| sel.contains(&v));
        let mut keys: Vec<RunKey> = (0..s.variants.len())
            .filter(|&v| includes(v))
            .map(RunKey::Variant)
            .collect();
        let mut named = Vec::new();
        for item in &s.report.items {
            match item {
                ReportItemSpec::Table(t) => {
                    keys.extend(row_runs(s, t, &includes).into_iter().flatten());
                    for c in &t.columns {
                        variants_named(&c.expr, &mut named);
                    }
                }
                ReportItemSpec::Line(parts, variant) => {
                    named.extend(*variant);
                    for p in parts {
                        if let LinePart::Value(e, _) = p {
                            variants_named(e, &mut named);
                        }
                    }
                }
                ReportItemSpec::Diagnose(d) => named.extend(d.against),
                ReportItemSpec::Isolation(iso) => named.extend(iso.variants.iter().copied()),
                ReportItemSpec::Waits(_)
                | ReportItemSpec::Herd(_)
                | ReportItemSpec::Operations { .. }
                | ReportItemSpec::Trace { .. }
                | ReportItemSpec::Chart(_) => {}
            }
        }
        for m in &s.report.measures {
            variants_named(&m.expr, &mut named);
        }
        for e in &s.report.expects {
            for x in expect_exprs(e) {
                variants_named(x, &mut named);
            }
        }
        keys.extend(
            named
                .into_iter()
                .filter(|&v| includes(v))
                .map(RunKey::Variant),
        );
        RunPlan::new(keys)
    }

    /// Every run sweep `sweep` needs: the runs of the rows of the tables
    /// that show it (one row per point when none does) that `evaluates`
    /// keeps, and the variants their columns (or the measures) name.
    pub fn sweep(s: &Scenario, sweep: usize, evaluates: &dyn Fn(RunKey) -> bool) -> RunPlan {
        let tables = sweep_tables(s, sweep);
        let mut named = Vec::new();
        let mut keys = Vec::new();
        if tables.is_empty() {
            for m in &s.report.measures {
                variants_named(&m.expr, &mut named);
            }
            keys.extend(
                (0..s.sweeps[sweep].point_count())
                    .map(|p| RunKey::Point(sweep, p))
                    .filter(|&k| evaluates(k)),
            );
        }
        for t in &tables {
            for c in &t.columns {
                variants_named(&c.expr, &mut named);
            }
            keys.extend(
                row_runs(s, t, &|_| true)
                    .into_iter()
                    .flatten()
                    .filter(|&k| evaluates(k)),
            );
        }
        keys.extend(named.into_iter().map(RunKey::Variant));
        RunPlan::new(keys)
    }

    /// Every run the file can make without command-line settings: its
    /// variants, its sweeps' points, and the points its tables cross with
    /// variants.
    pub fn every(s: &Scenario) -> RunPlan {
        let mut keys = s.all_runs();
        keys.extend(RunPlan::report(s, None).keys);
        for sweep in 0..s.sweeps.len() {
            keys.extend(RunPlan::sweep(s, sweep, &|_| true).keys);
        }
        RunPlan::new(keys)
    }

    /// The runs, sorted.
    pub fn keys(&self) -> &[RunKey] {
        &self.keys
    }
}

/// The engine's builder for one of `s`'s runs, with the file's (or
/// `--work-budget`'s) work budget and the invocation's memory budget: a run
/// that takes time whose own estimated peak is past it is refused at the
/// `run` (or the `sweep`) before anything starts.
fn builder<'m>(s: &Scenario, m: &'m Model, memory_mib: u64) -> SimulationBuilder<'m> {
    // A replica's counts per window are kept only when an expression
    // reads one (`api[1].calls`), its latency and queue only when one
    // reads them (`api[1].p99`, `api[1].queue_mean`): the language lists
    // every such read.
    let reads = |of: &[Metric]| s.replica_reads.iter().any(|r| of.contains(&r.3));
    let b = Simulation::builder(m)
        .memory_budget(memory_mib)
        .breaker_log(draws_breaker_state(s))
        .replica_windows(!s.replica_reads.is_empty())
        .replica_latency(reads(&Metric::REPLICA_LATENCY))
        .replica_queue(reads(&Metric::REPLICA_QUEUE));
    match s.work_budget {
        Some(n) => b.work_budget(n),
        None => b,
    }
}

/// A run's overrides and model; the overrides carry the run's seed.
fn resolve(s: &Scenario, key: RunKey, cli: &[Setting]) -> Result<(Overrides, Model), StudyError> {
    let o = s.overrides(key, cli);
    let m = s.model(&o).map_err(StudyError::Invalid)?;
    Ok((o, m))
}
