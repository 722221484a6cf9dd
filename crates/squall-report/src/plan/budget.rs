//! What `squall check` reports of a plan without simulating it: the runs
//! whose arithmetic bound on work exceeds their work budget, and the
//! engine's estimate of each timed run's work and memory.

use squall_lang::{Model, RunKey, Scenario, Setting};

use super::{resolve, RunPlan};

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

impl RunPlan {
    /// The runs whose arithmetic bound on work ([`OverBudget::bound`])
    /// exceeds their work budget (the file's, or the engine's default),
    /// with the `cli` settings (none: the file as written). Nothing is simulated; a run that does
    /// not resolve is left to [`RunPlan::refusals`].
    /// Runs with the same source and bound are listed once, at the first.
    pub fn over_budget(&self, s: &Scenario, cli: &[Setting]) -> Vec<OverBudget> {
        let budget = s.work_budget.unwrap_or(squall_engine::DEFAULT_WORK);
        let mut out: Vec<OverBudget> = Vec::new();
        for &key in &self.keys {
            let Ok((_, m)) = resolve(s, key, cli) else {
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

impl RunPlan {
    /// Each run in which calls take time, with its work budget (the file's,
    /// or the engine's default) and the engine's estimate of its work and
    /// memory ([`squall_engine::simulation::estimate`]) with the `cli`
    /// settings, for `squall check --estimate [--set ...]`. Nothing is simulated; a run that does not resolve is
    /// left to [`RunPlan::refusals`].
    pub fn estimates(
        &self,
        s: &Scenario,
        cli: &[Setting],
    ) -> Vec<(RunKey, u64, squall_engine::simulation::Estimate)> {
        let budget = s.work_budget.unwrap_or(squall_engine::DEFAULT_WORK);
        self.keys
            .iter()
            .filter_map(|&key| {
                let (_, m) = resolve(s, key, cli).ok()?;
                squall_engine::simulation::takes_time(&m)
                    .then(|| (key, budget, squall_engine::simulation::estimate(&m)))
            })
            .collect()
    }
}
