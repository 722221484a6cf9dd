//! Running the runs a report needs.
//!
//! A [`Study`] is a scenario with every run its report refers to (variants
//! and sweep points), each simulated independently and in parallel. Each run
//! is a pure function of its model, so the results do not depend on the
//! number of threads.

use std::collections::BTreeMap;

use rayon::prelude::*;
use squall_engine::{Observations, SimError, Simulation};
use squall_lang::{
    AxisSpec, Diagnostics, Model, Overrides, RExpr, ReportItemSpec, RunKey, Scenario, Setting,
};

/// One finished run.
#[derive(Debug, Clone)]
pub struct Run {
    /// Which run.
    pub key: RunKey,
    /// Its overrides.
    pub overrides: Overrides,
    /// The model it ran.
    pub model: Model,
    /// What it measured.
    pub obs: Observations,
}

/// A problem running a study.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    /// A run's values do not resolve (e.g. a `--set` value that does not fit).
    #[error("the scenario is invalid")]
    Invalid(Diagnostics),
    /// The engine refused a model.
    #[error("simulation failed: {0}")]
    Sim(#[from] SimError),
    /// The thread pool for `--jobs` could not start.
    #[error("cannot start the worker threads: {0}")]
    Pool(String),
}

/// A scenario and its finished runs.
#[derive(Debug)]
pub struct Study<'s> {
    /// The scenario.
    pub scenario: &'s Scenario,
    /// Settings from the command line.
    pub cli: Vec<Setting>,
    /// Variants the user asked for (`None`: all).
    pub selected: Option<Vec<usize>>,
    /// Finished runs.
    pub runs: BTreeMap<RunKey, Run>,
}

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct StudyOptions {
    /// `--set` settings.
    pub cli: Vec<Setting>,
    /// Only these variants (by index); `None` for all.
    pub variants: Option<Vec<usize>>,
}

impl<'s> Study<'s> {
    /// Runs everything the scenario's report refers to.
    pub fn run(scenario: &'s Scenario, options: StudyOptions) -> Result<Study<'s>, StudyError> {
        let keys = needed_runs(scenario, options.variants.as_deref());
        let models: Vec<(RunKey, Overrides, Model)> = keys
            .iter()
            .map(|&k| {
                let o = scenario.overrides(k, &options.cli);
                let mut m = scenario.model(&o).map_err(StudyError::Invalid)?;
                // Sweep points get their own stream (see `crate::sweep`).
                m.seed = crate::sweep::run_seed(scenario, k);
                Ok::<_, StudyError>((k, o, m))
            })
            .collect::<Result<_, _>>()?;
        let runs: Vec<Run> = models
            .into_par_iter()
            .map(|(key, overrides, model)| {
                let obs = Simulation::builder(&model).build()?.run()?;
                Ok(Run {
                    key,
                    overrides,
                    model,
                    obs,
                })
            })
            .collect::<Result<_, SimError>>()?;
        Ok(Study {
            scenario,
            cli: options.cli,
            selected: options.variants,
            runs: runs.into_iter().map(|r| (r.key, r)).collect(),
        })
    }

    /// True when the variant is part of this study.
    pub fn includes_variant(&self, v: usize) -> bool {
        self.selected.as_ref().is_none_or(|s| s.contains(&v))
    }
}

/// Every run the report needs: the selected variants, the sweeps its tables
/// use, and any variant an expression names.
fn needed_runs(s: &Scenario, selected: Option<&[usize]>) -> Vec<RunKey> {
    let mut keys: Vec<RunKey> = (0..s.variants.len())
        .filter(|v| selected.is_none_or(|sel| sel.contains(v)))
        .map(RunKey::Variant)
        .collect();
    let mut named = Vec::new();
    for item in &s.report.items {
        match item {
            ReportItemSpec::Table(t) => {
                let variants: Option<&Vec<usize>> = t.rows.iter().find_map(|a| match a {
                    AxisSpec::Variants(vs) => Some(vs),
                    _ => None,
                });
                for axis in &t.rows {
                    if let AxisSpec::Sweep(i) = axis {
                        for p in 0..s.sweeps[*i].len() {
                            match variants {
                                // Each variant row with each point.
                                Some(vs) => keys.extend(
                                    vs.iter()
                                        .filter(|v| selected.is_none_or(|sel| sel.contains(v)))
                                        .map(|&v| RunKey::Cross(v, *i, p)),
                                ),
                                None => keys.push(RunKey::Point(*i, p)),
                            }
                        }
                    }
                }
                for c in &t.columns {
                    variants_named(&c.expr, &mut named);
                }
            }
            ReportItemSpec::Line(parts, variant) => {
                named.extend(*variant);
                for p in parts {
                    if let squall_lang::LinePart::Value(e, _) = p {
                        variants_named(e, &mut named);
                    }
                }
            }
            ReportItemSpec::Diagnose(d) => named.extend(d.against),
            ReportItemSpec::Isolation(iso) => named.extend(iso.variants.iter().copied()),
            ReportItemSpec::Waits(_)
            | ReportItemSpec::Herd(_)
            | ReportItemSpec::Operations { .. }
            | ReportItemSpec::Trace { .. } => {}
        }
    }
    for m in &s.report.measures {
        variants_named(&m.expr, &mut named);
    }
    for e in &s.report.expects {
        variants_named(&e.lhs, &mut named);
        match &e.check {
            squall_lang::CheckSpec::Compare(_, b) => variants_named(b, &mut named),
            squall_lang::CheckSpec::Range(lo, hi) => {
                variants_named(lo, &mut named);
                variants_named(hi, &mut named);
            }
            squall_lang::CheckSpec::Near(x, tol) => {
                variants_named(x, &mut named);
                if let squall_lang::ToleranceSpec::Absolute(t) = tol {
                    variants_named(t, &mut named);
                }
            }
        }
    }
    // A variant the user left out with `--variant` is not run for a line
    // that names it; the line is left out instead.
    keys.extend(
        named
            .into_iter()
            .filter(|v| selected.is_none_or(|sel| sel.contains(v)))
            .map(RunKey::Variant),
    );
    keys.sort();
    keys.dedup();
    keys
}

/// Every variant `e` names explicitly (`storm.during.db.calls`).
pub(crate) fn variants_named(e: &RExpr, out: &mut Vec<usize>) {
    match e {
        RExpr::Metric { variant, .. } | RExpr::Measure { variant, .. } => out.extend(*variant),
        RExpr::Call(_, args) => args.iter().for_each(|a| variants_named(a, out)),
        RExpr::Neg(x) => variants_named(x, out),
        RExpr::Binary(_, a, b) => {
            variants_named(a, out);
            variants_named(b, out);
        }
        RExpr::Number(_) | RExpr::Param(_) => {}
    }
}
