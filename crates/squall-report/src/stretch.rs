//! A node's timed metrics over one stretch of time (a named window, a
//! bin of the series): latency quantiles and mean, timed counts and
//! time-weighted levels, from a [`Stretch`] the engine recorded. The
//! service's metrics (`eval.rs`) and one replica's (`replica.rs`, from a
//! stretch of the replica's latency) are read by this one rule.

use squall_engine::observe::timed::Stretch;
use squall_lang::Metric;

/// A node's timed metric over one stretch of time, `span` ticks long.
pub(crate) fn stretch_metric(s: &Stretch, metric: Metric, per_tick: u64, span: f64) -> Option<f64> {
    let per = per_tick as f64;
    let ticks = |units: u64| units as f64 / per;
    let l = &s.latency;
    // Latency of no served call is n/a, not 0 (see `eval::quantile_metric`).
    let served = l.count > 0;
    Some(match metric {
        Metric::P50
        | Metric::P90
        | Metric::P99
        | Metric::P999
        | Metric::LatencyMax
        | Metric::LatencyMean
            if !served =>
        {
            return None
        }
        Metric::P50 => ticks(l.p50),
        Metric::P90 => ticks(l.p90),
        Metric::P99 => ticks(l.p99),
        Metric::P999 => ticks(l.p999),
        Metric::LatencyMax => ticks(l.max),
        Metric::LatencyMean => l.mean / per,
        Metric::Timeouts => s.timeouts as f64,
        Metric::Overflow => s.overflow as f64,
        Metric::QueueTimeouts => s.queue_timeouts as f64,
        Metric::Throttled => s.throttled as f64,
        Metric::Limited => s.limited as f64,
        Metric::Cancelled => s.cancelled as f64,
        Metric::Wasted => s.wasted_calls as f64,
        Metric::WastedBusy => ticks(s.wasted_busy),
        Metric::QueueMean => s.queue_mean,
        Metric::QueueMax => s.queue_max as f64,
        Metric::InService => s.in_service_mean,
        Metric::InServiceMax => s.in_service_max as f64,
        Metric::QueueEnd => s.queue_end as f64,
        Metric::InFlight => s.queue_mean + s.in_service_mean,
        // No call reached the workers: no share, no wait.
        Metric::PWait if s.admitted == 0 => return None,
        Metric::PWait => s.waited as f64 / s.admitted as f64,
        // Little's law: the queue's area (mean length x span) per call
        // that reached the workers.
        Metric::Wq if s.admitted == 0 => return None,
        Metric::Wq => s.queue_mean * span / s.admitted as f64,
        _ => return None,
    })
}
