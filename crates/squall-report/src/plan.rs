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

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rayon::prelude::*;
use squall_engine::{Simulation, SimulationBuilder};
use squall_lang::{
    AxisSpec, ChartSeries, CheckSpec, Func, LinePart, Metric, Model, Overrides, RExpr,
    ReportItemSpec, RunKey, Scenario, Setting, TableSpec, ToleranceSpec,
};

use crate::error::StudyError;
use crate::refusal::Refusal;
use crate::run::Run;

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
}

/// What a plan keeps of each run as it finishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Keep {
    /// Every per-tick series: for the series CSV, charts, and callers that
    /// read the runs themselves.
    #[default]
    Everything,
    /// What the report reads: each run is reduced to its window totals
    /// ([`Run::reduce`]) unless the report reads per tick ([`reads_ticks`]).
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

/// What a plan would hold in memory at most, estimated before it runs:
/// the per-tick counters of the runs in progress (for a run that takes
/// time, the engine's estimate of its peak), and what every finished run
/// keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryEstimate {
    /// Runs (every replication counted).
    pub runs: usize,
    /// The largest run's per-tick counters (for a run that takes time, its
    /// estimated peak) \[bytes\].
    pub per_run: u64,
    /// The whole invocation at its peak \[bytes\].
    pub total: u64,
    /// Whether finished runs are reduced to their window totals.
    pub reduced: bool,
}

/// Progress of a plan's runs: called with (finished, total) after each run,
/// from any thread.
pub type Progress<'a> = &'a (dyn Fn(usize, usize) + Sync);

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

    /// Resolves every run with the `cli` settings, then simulates them (each
    /// as many times as the report's `replications`) in parallel on `jobs`
    /// threads (`None`: one per core), keeping every per-tick series.
    pub fn run(
        &self,
        s: &Scenario,
        cli: &[Setting],
        jobs: Option<usize>,
        progress: Progress<'_>,
    ) -> Result<Finished, StudyError> {
        self.run_with(
            s,
            &RunOptions {
                cli,
                jobs,
                keep: Keep::Everything,
                memory_mib: None,
                progress,
                stop: None,
                call_log: None,
            },
        )
    }

    /// Resolves every run with the settings, checks the invocation's memory
    /// estimate against its budget ([`StudyError::Memory`] before anything
    /// runs), then simulates the runs in parallel, reducing each as it
    /// finishes when `keep` says so.
    pub fn run_with(&self, s: &Scenario, o: &RunOptions<'_>) -> Result<Finished, StudyError> {
        let replications = s.report.replications.map_or(1, |n| n.max(1) as usize);
        let mut models = Vec::with_capacity(self.keys.len() * replications);
        for &k in &self.keys {
            let (ov, m) = resolve(s, k, o.cli)?;
            let others = (1..replications)
                .map(|r| {
                    let mut ov = ov.clone();
                    ov.seed = Some(s.replication_seed(k, r));
                    let m = s.model(&ov).map_err(StudyError::Invalid)?;
                    Ok((k, r, ov, m))
                })
                .collect::<Result<Vec<_>, StudyError>>()?;
            models.push((k, 0, ov, m));
            models.extend(others);
        }
        // A run past the engine's own limits, or whose own memory is past
        // the budget, is refused at the declaration that causes it, before
        // the invocation's budget is weighed.
        let budget = o.memory_mib.unwrap_or(DEFAULT_MEMORY_MIB);
        for (key, _, _, m) in &models {
            builder(s, m, budget)
                .build()
                .map_err(|e| StudyError::Refused(Box::new(Refusal::locate(s, *key, e))))?;
        }
        let reduce = o.keep == Keep::Report && !reads_ticks(s);
        let threads = o.jobs.unwrap_or_else(rayon::current_num_threads).max(1);
        let log = o.call_log.map_or(0, |n| n as u64 * CALL_ROW);
        let estimate = estimate(models.iter().map(|x| &x.3), threads, reduce, log);
        if estimate.total > budget.saturating_mul(1 << 20) {
            return Err(StudyError::Memory {
                estimate,
                budget_mib: budget,
            });
        }
        let total = models.len();
        let done = AtomicUsize::new(0);
        let simulate = || -> Result<Vec<(usize, Run)>, StudyError> {
            models
                .into_par_iter()
                .filter(|_| o.stop.is_none_or(|f| !f.load(Ordering::SeqCst)))
                .map(|(key, r, overrides, model)| {
                    let mut b = builder(s, &model, budget);
                    if let Some(n) = o.call_log {
                        b = b.call_log(n);
                    }
                    let sim = b
                        .build()
                        .map_err(|e| StudyError::Refused(Box::new(Refusal::locate(s, key, e))))?;
                    let obs = sim.run()?;
                    let mut run = Run {
                        key,
                        overrides,
                        model,
                        obs,
                        kept: None,
                    };
                    if reduce {
                        run.reduce();
                    }
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    (o.progress)(n, total);
                    Ok((r, run))
                })
                .collect()
        };
        let runs = match o.jobs {
            None => simulate()?,
            Some(n) => {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(n.max(1))
                    .build()
                    .map_err(|e| StudyError::Pool(e.to_string()))?;
                pool.install(simulate)?
            }
        };
        let mut out = Finished {
            runs: BTreeMap::new(),
            replicas: (1..replications).map(|_| BTreeMap::new()).collect(),
            skipped: total - runs.len(),
        };
        for (r, run) in runs {
            let map = match r.checked_sub(1) {
                None => &mut out.runs,
                Some(i) => &mut out.replicas[i],
            };
            map.insert(run.key, run);
        }
        Ok(out)
    }

    /// What running this plan would hold in memory at most, with the `cli`
    /// settings, on `threads` threads, reducing finished runs or not.
    pub fn memory(
        &self,
        s: &Scenario,
        cli: &[Setting],
        threads: usize,
        reduce: bool,
    ) -> Result<MemoryEstimate, StudyError> {
        let replications = s.report.replications.map_or(1, |n| n.max(1) as usize);
        let mut models = Vec::with_capacity(self.keys.len());
        for &k in &self.keys {
            let (_, m) = resolve(s, k, cli)?;
            models.extend(std::iter::repeat_n(m, replications));
        }
        Ok(estimate(models.iter(), threads.max(1), reduce, 0))
    }

    /// The runs that would not start, without command-line settings: a run
    /// whose values do not resolve, or whose model the engine refuses
    /// ([`StudyError::Refused`], located; a refusal many runs share is
    /// listed once, at its first run, with their count), a run that takes
    /// time whose own estimated memory is past `memory_mib` (`None`:
    /// [`DEFAULT_MEMORY_MIB`]) among them. Nothing is simulated.
    pub fn refusals(&self, s: &Scenario, memory_mib: Option<u64>) -> Vec<(RunKey, StudyError)> {
        let budget = memory_mib.unwrap_or(DEFAULT_MEMORY_MIB);
        let mut out: Vec<(RunKey, StudyError)> = Vec::new();
        for &k in &self.keys {
            let problem = match resolve(s, k, &[]) {
                Err(e) => e,
                Ok((_, m)) => match builder(s, &m, budget).build() {
                    Ok(_) => continue,
                    Err(e) => StudyError::Refused(Box::new(Refusal::locate(s, k, e))),
                },
            };
            if let StudyError::Refused(new) = &problem {
                let same = out.iter_mut().find_map(|(_, p)| match p {
                    StudyError::Refused(old) if old.error == new.error && old.at == new.at => {
                        Some(old)
                    }
                    _ => None,
                });
                if let Some(old) = same {
                    old.runs += 1;
                    continue;
                }
            }
            out.push((k, problem));
        }
        out
    }
}

/// A run whose arithmetic bound on work exceeds its work budget: found by
/// [`RunPlan::over_budget`] for `squall check`, which warns.
#[derive(Debug, Clone, PartialEq)]
pub struct OverBudget {
    /// The run.
    pub key: RunKey,
    /// The source whose requests times the tries along its chain is largest.
    pub source: String,
    /// That bound: requests at the source's peak rate over the run, times
    /// the product of the tries of every node along its chain and of the
    /// fan-out (fields fetched) of every composite response on it.
    pub bound: f64,
    /// The run's work budget \[events\].
    pub budget: u64,
}

/// The largest arithmetic bound on a model's calls over its sources:
/// requests at peak rate over the run times the product of the tries along
/// the chain each enters, times the fan-out (the fields a composite
/// response fetches) along it. `None` without sources.
fn work_bound(m: &Model) -> Option<(String, f64)> {
    m.sources
        .iter()
        .map(|src| {
            let peak = src
                .periods
                .iter()
                .map(|p| p.rate.max(p.to_rate.unwrap_or(0.0)))
                .fold(src.rate, f64::max);
            let requests = peak * (m.ticks.saturating_sub(m.start) + 1) as f64;
            let mut tries = 1.0;
            let mut at = Some(src.entry);
            let mut seen = 0;
            while let Some(i) = at.filter(|&i| i < m.nodes.len() && seen <= m.nodes.len()) {
                let n = &m.nodes[i];
                tries *= n.retry.as_ref().map_or(1.0, |r| f64::from(r.attempts));
                // A fan-out: every call here fetches each field from its node.
                if let Some(c) = &n.composite {
                    tries *= c.fields.len().max(1) as f64;
                }
                at = n.downstream;
                seen += 1;
            }
            (src.name.clone(), requests * tries)
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

/// The engine's builder for one of `s`'s runs, with the file's (or
/// `--work-budget`'s) work budget and the invocation's memory budget: a run
/// that takes time whose own estimated peak is past it is refused at the
/// `run` (or the `sweep`) before anything starts.
fn builder<'m>(s: &Scenario, m: &'m Model, memory_mib: u64) -> SimulationBuilder<'m> {
    let b = Simulation::builder(m)
        .memory_budget(memory_mib)
        .breaker_log(draws_breaker_state(s));
    match s.work_budget {
        Some(n) => b.work_budget(n),
        None => b,
    }
}

impl RunPlan {
    /// The runs whose arithmetic bound on work ([`OverBudget::bound`])
    /// exceeds their work budget (the file's, or the engine's default),
    /// without command-line settings. Nothing is simulated; a run that does
    /// not resolve is left to [`RunPlan::refusals`].
    /// Runs with the same source and bound are listed once, at the first.
    pub fn over_budget(&self, s: &Scenario) -> Vec<OverBudget> {
        let budget = s.work_budget.unwrap_or(squall_engine::DEFAULT_WORK);
        let mut out: Vec<OverBudget> = Vec::new();
        for &key in &self.keys {
            let Ok((_, m)) = resolve(s, key, &[]) else {
                continue;
            };
            let Some((source, bound)) = work_bound(&m) else {
                continue;
            };
            let repeated = out
                .iter()
                .any(|o| o.source == source && o.bound.total_cmp(&bound).is_eq());
            if bound > budget as f64 && !repeated {
                out.push(OverBudget {
                    key,
                    source,
                    bound,
                    budget,
                });
            }
        }
        out
    }
}

/// The bytes of a model's per-tick series: 4 system counters, 7 per node
/// and 6 more for a composite response (one of them 8 bytes wide), one
/// entry per tick.
fn series_bytes(m: &Model) -> u64 {
    let per_tick: u64 = 4 * 4
        + m.nodes
            .iter()
            .map(|n| {
                if n.composite.is_some() {
                    7 * 4 + 5 * 4 + 8
                } else {
                    7 * 4
                }
            })
            .sum::<u64>();
    (m.ticks.saturating_add(1)).saturating_mul(per_tick)
}

/// The bytes one run holds while it runs, and once finished and reduced.
/// A run that takes time counts per bin, not per tick, and holds
/// histograms and work in flight: while it runs it holds the engine's own
/// estimate ([`squall_engine::simulation::estimate`], the peak `squall
/// check --estimate` prints), and reduced it still keeps its bins. A round
/// model holds its per-tick counters, and reduced its window totals.
fn run_bytes(m: &Model) -> (u64, u64) {
    if squall_engine::simulation::takes_time(m) {
        let e = squall_engine::simulation::estimate(m);
        (
            e.peak_bytes(),
            reduced_bytes(m).saturating_add(e.series_bytes),
        )
    } else {
        (series_bytes(m), reduced_bytes(m))
    }
}

/// The bytes a reduced run keeps of its counters: one set of totals per
/// window.
fn reduced_bytes(m: &Model) -> u64 {
    let per_window = 64 + 128 * m.nodes.len() as u64;
    m.windows.len() as u64 * per_window
}

/// The bytes of one row of a call log.
const CALL_ROW: u64 = std::mem::size_of::<squall_engine::observe::CallRow>() as u64;

/// The invocation's peak: without reduction every run's series at once;
/// with it, the series of the runs in progress (one per thread) and the
/// totals of every run; `log` more for every run (a full call log).
fn estimate<'m>(
    models: impl Iterator<Item = &'m Model>,
    threads: usize,
    reduce: bool,
    log: u64,
) -> MemoryEstimate {
    let mut sizes: Vec<(u64, u64)> = models
        .map(|m| {
            let (running, kept) = run_bytes(m);
            (running, kept.saturating_add(log))
        })
        .collect();
    let runs = sizes.len();
    let per_run = sizes.iter().map(|x| x.0).max().unwrap_or(0);
    let total = if reduce {
        sizes.sort_unstable_by_key(|x| std::cmp::Reverse(x.0));
        let running: u64 = sizes.iter().take(threads).map(|x| x.0).sum();
        running.saturating_add(sizes.iter().map(|x| x.1).sum())
    } else {
        sizes
            .iter()
            .map(|x| x.0.saturating_add(log))
            .fold(0u64, u64::saturating_add)
    };
    MemoryEstimate {
        runs,
        per_run,
        total,
        reduced: reduce,
    }
}

/// True when the report reads a run per tick, not only by window: a
/// `diagnose` item (its recovery reads bins of calls), or an expression
/// with `recovery`, `peak`, `peak_tick` or the metric `peak_to_mean`. Such a
/// study keeps every run's series.
pub fn reads_ticks(s: &Scenario) -> bool {
    fn uses(e: &RExpr) -> bool {
        match e {
            RExpr::Call(f, args) => {
                matches!(
                    f,
                    Func::Recovery { .. } | Func::Peak { .. } | Func::PeakTick { .. }
                ) || args.iter().any(uses)
            }
            RExpr::Neg(x) => uses(x),
            RExpr::Binary(_, a, b) => uses(a) || uses(b),
            RExpr::Metric { metric, .. } => *metric == Metric::PeakToMean,
            RExpr::Measure { .. } | RExpr::Number(_) | RExpr::Param(_) | RExpr::Sending { .. } => {
                false
            }
        }
    }
    let mut exprs: Vec<&RExpr> = Vec::new();
    for item in &s.report.items {
        match item {
            ReportItemSpec::Table(t) => exprs.extend(t.columns.iter().map(|c| &c.expr)),
            ReportItemSpec::Line(parts, _) => exprs.extend(parts.iter().filter_map(|p| match p {
                LinePart::Value(e, _) => Some(e),
                _ => None,
            })),
            ReportItemSpec::Diagnose(_) => return true,
            _ => {}
        }
    }
    exprs.extend(s.report.measures.iter().map(|m| &m.expr));
    for e in &s.report.expects {
        exprs.extend(expect_exprs(e));
    }
    exprs.into_iter().any(uses)
}

/// Whether a `chart` item of `s` draws a node's breaker state over time,
/// which only the engine's breaker log
/// ([`SimulationBuilder::breaker_log`]) can tell: a run keeps that log only
/// then.
fn draws_breaker_state(s: &Scenario) -> bool {
    s.report.items.iter().any(|i| {
        matches!(
            i,
            ReportItemSpec::Chart(c) if matches!(
                c.series,
                Some(ChartSeries::BreakerState | ChartSeries::BreakerOpen | ChartSeries::BreakerHalfOpen)
            )
        )
    })
}

/// The expressions of an `expect` line: its left side, and its bound,
/// range or target and tolerance.
pub(crate) fn expect_exprs(e: &squall_lang::ExpectSpec) -> Vec<&RExpr> {
    let mut exprs = vec![&e.lhs];
    match &e.check {
        CheckSpec::Compare(_, b) => exprs.push(b),
        CheckSpec::Range(lo, hi) => exprs.extend([lo, hi]),
        CheckSpec::Near(x, tol) => {
            exprs.push(x);
            if let ToleranceSpec::Absolute(t) = tol {
                exprs.push(t);
            }
        }
    }
    exprs
}

/// A run's overrides and model; the overrides carry the run's seed.
fn resolve(s: &Scenario, key: RunKey, cli: &[Setting]) -> Result<(Overrides, Model), StudyError> {
    let o = s.overrides(key, cli);
    let m = s.model(&o).map_err(StudyError::Invalid)?;
    Ok((o, m))
}

/// The run of each row of a table, in row order (`None`: no axis gives the
/// row a run; it reads the report's default run). `includes` says which
/// variants a `variants` axis keeps.
pub fn row_runs(
    s: &Scenario,
    t: &TableSpec,
    includes: &dyn Fn(usize) -> bool,
) -> Vec<Option<RunKey>> {
    let mut rows: Vec<Option<RunKey>> = vec![None];
    for axis in &t.rows {
        let entries: Vec<Option<RunKey>> = match axis {
            AxisSpec::Variants(vs) => vs
                .iter()
                .filter(|&&v| includes(v))
                .map(|&v| Some(RunKey::Variant(v)))
                .collect(),
            AxisSpec::Windows(ws) => vec![None; ws.len()],
            AxisSpec::Sweep(i) => (0..s.sweeps[*i].point_count())
                .map(|p| Some(RunKey::Point(*i, p)))
                .collect(),
        };
        rows = rows
            .iter()
            .flat_map(|&run| entries.iter().map(move |&e| row_run(run, e)))
            .collect();
    }
    rows
}

/// The run of a row after one more axis: a sweep point on top of a variant
/// row is a run of its own; otherwise the later axis wins.
pub fn row_run(run: Option<RunKey>, axis: Option<RunKey>) -> Option<RunKey> {
    match (run, axis) {
        (Some(RunKey::Variant(v)), Some(RunKey::Point(s, p)))
        | (Some(RunKey::Point(s, p)), Some(RunKey::Variant(v))) => Some(RunKey::Cross(v, s, p)),
        (a, b) => b.or(a),
    }
}

/// The tables a sweep fills: the report's tables whose rows show sweep `s`.
pub fn sweep_tables(scenario: &Scenario, s: usize) -> Vec<&TableSpec> {
    scenario
        .report
        .items
        .iter()
        .filter_map(|item| match item {
            ReportItemSpec::Table(t) if t.rows.contains(&AxisSpec::Sweep(s)) => Some(t),
            _ => None,
        })
        .collect()
}

/// Every variant `e` names explicitly (`storm.during.db.calls`).
pub(crate) fn variants_named(e: &RExpr, out: &mut Vec<usize>) {
    match e {
        RExpr::Metric { variant, .. }
        | RExpr::Measure { variant, .. }
        | RExpr::Sending { variant, .. } => out.extend(*variant),
        RExpr::Call(_, args) => args.iter().for_each(|a| variants_named(a, out)),
        RExpr::Neg(x) => variants_named(x, out),
        RExpr::Binary(_, a, b) => {
            variants_named(a, out);
            variants_named(b, out);
        }
        RExpr::Number(_) | RExpr::Param(_) => {}
    }
}

impl RunPlan {
    /// Each run in which calls take time, with its work budget (the file's,
    /// or the engine's default) and the engine's estimate of its work and
    /// memory ([`squall_engine::simulation::estimate`]), for `squall check
    /// --estimate`. Nothing is simulated; a run that does not resolve is
    /// left to [`RunPlan::refusals`].
    pub fn estimates(
        &self,
        s: &Scenario,
    ) -> Vec<(RunKey, u64, squall_engine::simulation::Estimate)> {
        let budget = s.work_budget.unwrap_or(squall_engine::DEFAULT_WORK);
        self.keys
            .iter()
            .filter_map(|&key| {
                let (_, m) = resolve(s, key, &[]).ok()?;
                squall_engine::simulation::takes_time(&m)
                    .then(|| (key, budget, squall_engine::simulation::estimate(&m)))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(RunPlan::every(&s).refusals(&s, None).is_empty());
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
                cli: &[],
                jobs: Some(1),
                keep,
                memory_mib,
                progress: &|_, _| {},
                stop: None,
                call_log: None,
            },
        )
    }

    #[test]
    fn a_reduced_run_keeps_the_same_bytes_however_long_it_ran() {
        let mut kept = Vec::new();
        for rounds in [1_000, 20_000] {
            let s =
                squall_lang::load("long.squall", &long(rounds)).unwrap_or_else(|e| panic!("{e:?}"));
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
        // Two runs of 50 001 ticks, 4 + 2 x 7 counters of 4 bytes a tick.
        let full = plan
            .memory(&s, &[], 1, false)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(full.runs, 2);
        assert_eq!(full.per_run, 50_001 * 72);
        assert_eq!(full.total, 2 * 50_001 * 72);
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
            "this invocation would hold about 7 MiB for 2 runs (every run keeps all its counters, for the series, charts or per-tick measures; the largest run's estimated peak is 4 MiB), more than the memory budget of 5 MiB: run fewer variants or points (`--variant`, `--shard`), a shorter `run` or fewer `--jobs`, or raise `--memory-budget`"
        );
        // Reducing each run as it finishes brings the same plan under it.
        assert!(finished(&s, Keep::Report, Some(5)).is_ok());
    }

    /// A run that takes time: 100 000 requests a second held 1 s each at
    /// `db`, so about 100 000 requests in flight (the engine estimates
    /// some 46 MiB), over a 10 s run at `clock ms` (10 bins of 1 s).
    const IN_FLIGHT: &str = r#"scenario "in flight" {
  clock ms
  run 10s

  source users { rate 100000/s  enters api }

  chain api -> db

  service db { latency 1s  workers 200000 }
}"#;

    #[test]
    fn the_invocation_estimate_of_a_timed_run_is_the_engines_own() {
        let s =
            squall_lang::load("in-flight.squall", IN_FLIGHT).unwrap_or_else(|e| panic!("{e:?}"));
        let (_, m) = resolve(&s, RunKey::Variant(0), &[]).unwrap_or_else(|e| panic!("{e}"));
        let engine = squall_engine::simulation::estimate(&m);
        let plan = RunPlan::report(&s, None);
        let full = plan
            .memory(&s, &[], 1, false)
            .unwrap_or_else(|e| panic!("{e}"));
        // Not the 10 001 ticks x (4 + 2 x 7) counters of a round model: the
        // engine's estimated peak, the one `squall check --estimate` prints.
        assert_eq!(full.per_run, engine.peak_bytes());
        assert_ne!(full.per_run, series_bytes(&m));
        assert!(engine.in_flight_bytes > 40 << 20, "{engine:?}");
    }

    #[test]
    fn a_timed_run_over_the_memory_budget_on_its_own_is_refused_at_its_run() {
        let s =
            squall_lang::load("in-flight.squall", IN_FLIGHT).unwrap_or_else(|e| panic!("{e:?}"));
        // About 48 MiB is over 20: refused before it starts, at `run 10s` (its value), with
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
        let refused = RunPlan::every(&s).refusals(&s, Some(20));
        assert_eq!(refused.len(), 1);
        assert_eq!(refused[0].1.to_string(), text);
        assert!(RunPlan::every(&s).refusals(&s, None).is_empty());
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
                    cli: &[],
                    jobs: Some(1),
                    keep: Keep::Report,
                    memory_mib: None,
                    progress: &progress,
                    stop: Some(&stop),
                    call_log: None,
                },
            )
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            ran.runs.keys().copied().collect::<Vec<_>>(),
            [RunKey::Variant(0), RunKey::Variant(1)]
        );
        assert_eq!(ran.skipped, 2);
    }
}
