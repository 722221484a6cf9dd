//! One replica's metrics: `during.api[1].calls` reads the counts the
//! engine kept for replica 1 of `api` in window `during`
//! ([`ReplicaCounts::windows`](squall_engine::ReplicaCounts::windows)),
//! where the run was asked for them (the planner asks when the language
//! lists a replica read). Only the counts a replica keeps are read here
//! (`Metric::PER_REPLICA`; the language refuses the others): a replica's
//! latency or queue is not kept, and is never the service's total.

use squall_lang::Metric;

use crate::run::Run;

/// Metric `metric` of replica `r` of `node` in named window `w` of `run`:
/// a count, or a count over the window's ticks for a rate. `None` when
/// the run kept no such counts.
pub(crate) fn replica_metric(
    run: &Run,
    metric: Metric,
    w: usize,
    node: usize,
    r: u32,
) -> Option<f64> {
    let c = run
        .obs
        .replicas
        .get(node)?
        .windows
        .get(w)?
        .get(r as usize)?;
    let spec = run.model.windows.get(w)?;
    let ticks = (spec.to + 1 - spec.from) as f64;
    Some(match metric {
        Metric::Calls => c.calls as f64,
        Metric::CallRate => c.calls as f64 / ticks,
        Metric::Served => c.served as f64,
        Metric::ServedRate => c.served as f64 / ticks,
        Metric::Failed => c.failed as f64,
        Metric::Refused => c.refused as f64,
        _ => return None,
    })
}
