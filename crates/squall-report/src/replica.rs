//! One replica's metrics: `during.api[1].calls` reads the counts the
//! engine kept for replica 1 of `api` in window `during`
//! ([`ReplicaCounts::windows`](squall_engine::ReplicaCounts::windows)),
//! and `during.api[1].p99` the latency it recorded for the replica
//! ([`ReplicaCounts::latency`](squall_engine::ReplicaCounts::latency)),
//! and `during.api[1].queue_mean` its queue
//! ([`ReplicaCounts::queue`](squall_engine::ReplicaCounts::queue)),
//! where the run was asked for them (the planner asks when the language
//! lists a replica read, and for latency or the queue when one reads
//! them). Only the metrics a replica keeps are read here
//! (`Metric::PER_REPLICA`; the language refuses the others): a replica's
//! distinct ids and calls in service are not kept, and are never the
//! service's total.
//!
//! Each is computed as the service's is from the same kind of record:
//! the latency and queue metrics by the service's own rule from the
//! replica's quantiles and queue levels ([`stretch_metric`]: latency n/a
//! when the replica served nothing in the window), `success_rate` as the service's (on a run that takes time
//! the answers with success to the window's calls, over its calls; else
//! `served` over `calls`; n/a without calls).

use squall_engine::observe::timed::Stretch;
use squall_lang::Metric;

use crate::run::Run;
use crate::stretch::stretch_metric;

/// Metric `metric` of replica `r` of `node` in named window `w` of `run`:
/// a count, a count over the window's ticks for a rate, a share, or a
/// latency in ticks. `None` when the run kept no such record, or for a
/// share or latency of nothing.
pub(crate) fn replica_metric(
    run: &Run,
    metric: Metric,
    w: usize,
    node: usize,
    r: u32,
) -> Option<f64> {
    let kept = run.obs.replicas.get(node)?;
    let spec = run.model.windows.get(w)?;
    let ticks = (spec.to + 1 - spec.from) as f64;
    if Metric::REPLICA_LATENCY.contains(&metric) {
        let t = run.obs.timed.as_ref()?;
        let stretch = Stretch {
            latency: *kept.latency.get(w)?.get(r as usize)?,
            ..Stretch::default()
        };
        return stretch_metric(&stretch, metric, t.units_per_tick, ticks);
    }
    if Metric::REPLICA_QUEUE.contains(&metric) {
        let t = run.obs.timed.as_ref()?;
        let q = kept.queue.get(w)?.get(r as usize)?;
        let stretch = Stretch {
            queue_mean: q.mean,
            queue_max: q.max,
            queue_end: q.end,
            ..Stretch::default()
        };
        return stretch_metric(&stretch, metric, t.units_per_tick, ticks);
    }
    let c = kept.windows.get(w)?.get(r as usize)?;
    Some(match metric {
        Metric::Calls => c.calls as f64,
        Metric::CallRate => c.calls as f64 / ticks,
        Metric::Served => c.served as f64,
        Metric::ServedRate => c.served as f64 / ticks,
        Metric::Failed => c.failed as f64,
        Metric::Refused => c.refused as f64,
        Metric::SuccessRate if c.calls == 0 => return None,
        Metric::SuccessRate => {
            let ok = match run.obs.timed {
                Some(_) => c.answered_ok,
                None => c.served,
            };
            ok as f64 / c.calls as f64
        }
        _ => return None,
    })
}
