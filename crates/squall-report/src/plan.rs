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
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;
use squall_engine::{Simulation, SimulationBuilder};
use squall_lang::{
    AxisSpec, CheckSpec, LinePart, Model, Overrides, RExpr, ReportItemSpec, RunKey, Scenario,
    Setting, TableSpec, ToleranceSpec,
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
            variants_named(&e.lhs, &mut named);
            match &e.check {
                CheckSpec::Compare(_, b) => variants_named(b, &mut named),
                CheckSpec::Range(lo, hi) => {
                    variants_named(lo, &mut named);
                    variants_named(hi, &mut named);
                }
                CheckSpec::Near(x, tol) => {
                    variants_named(x, &mut named);
                    if let ToleranceSpec::Absolute(t) = tol {
                        variants_named(t, &mut named);
                    }
                }
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
    /// threads (`None`: one per core).
    pub fn run(
        &self,
        s: &Scenario,
        cli: &[Setting],
        jobs: Option<usize>,
        progress: Progress<'_>,
    ) -> Result<Finished, StudyError> {
        let replications = s.report.replications.map_or(1, |n| n.max(1) as usize);
        let mut models = Vec::with_capacity(self.keys.len() * replications);
        for &k in &self.keys {
            let (o, m) = resolve(s, k, cli)?;
            let others = (1..replications)
                .map(|r| {
                    let mut o = o.clone();
                    o.seed = Some(s.replication_seed(k, r));
                    let m = s.model(&o).map_err(StudyError::Invalid)?;
                    Ok((k, r, o, m))
                })
                .collect::<Result<Vec<_>, StudyError>>()?;
            models.push((k, 0, o, m));
            models.extend(others);
        }
        let total = models.len();
        let done = AtomicUsize::new(0);
        let simulate = || -> Result<Vec<(usize, Run)>, StudyError> {
            models
                .into_par_iter()
                .map(|(key, r, overrides, model)| {
                    let sim = builder(s, &model)
                        .build()
                        .map_err(|e| StudyError::Refused(Box::new(Refusal::locate(s, key, e))))?;
                    let obs = sim.run()?;
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    progress(n, total);
                    Ok((
                        r,
                        Run {
                            key,
                            overrides,
                            model,
                            obs,
                        },
                    ))
                })
                .collect()
        };
        let runs = match jobs {
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

    /// The runs that would not start, without command-line settings: a run
    /// whose values do not resolve, or whose model the engine refuses
    /// ([`StudyError::Refused`], located; a refusal many runs share is
    /// listed once, at its first run, with their count). Nothing is
    /// simulated.
    pub fn refusals(&self, s: &Scenario) -> Vec<(RunKey, StudyError)> {
        let mut out: Vec<(RunKey, StudyError)> = Vec::new();
        for &k in &self.keys {
            let problem = match resolve(s, k, &[]) {
                Err(e) => e,
                Ok((_, m)) => match builder(s, &m).build() {
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
    /// the product of the tries of every node along its chain.
    pub bound: f64,
    /// The run's work budget \[events\].
    pub budget: u64,
}

/// The largest arithmetic bound on a model's calls over its sources:
/// requests at peak rate over the run times the product of the tries along
/// the chain each enters. `None` without sources.
fn work_bound(m: &Model) -> Option<(String, f64)> {
    m.sources
        .iter()
        .map(|src| {
            let peak = src.periods.iter().map(|p| p.rate).fold(src.rate, f64::max);
            let requests = peak * (m.ticks.saturating_sub(m.start) + 1) as f64;
            let mut tries = 1.0;
            let mut at = Some(src.entry);
            let mut seen = 0;
            while let Some(i) = at.filter(|&i| i < m.nodes.len() && seen <= m.nodes.len()) {
                let n = &m.nodes[i];
                tries *= n.retry.as_ref().map_or(1.0, |r| f64::from(r.attempts));
                at = n.downstream;
                seen += 1;
            }
            (src.name.clone(), requests * tries)
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

/// The engine's builder for one of `s`'s runs, with the file's (or
/// `--work-budget`'s) work budget.
fn builder<'m>(s: &Scenario, m: &'m Model) -> SimulationBuilder<'m> {
    let b = Simulation::builder(m);
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
        assert!(RunPlan::every(&s).refusals(&s).is_empty());
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
}
