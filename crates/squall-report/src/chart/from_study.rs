//! Binned series and histograms from a [`Study`]'s runs.
//!
//! A run that takes no time counts per tick; a chart bins the ticks so
//! that its size is bounded by [`MAX_BINS`] whatever the run's length. A
//! bin is a whole number of ticks, 1, 2 or 5 times a power of ten, the
//! smallest that keeps the bins within the bound. Each bin's value is the
//! metric over the bin's ticks, as a window of the same ticks would give
//! it, except for the unique-id metrics: those add up each tick's distinct
//! ids (exact for one-tick bins, an upper bound for wider ones).
//!
//! A run that takes time counts in the bins of its series: the chart draws
//! those bins (1, 2 or 5 times a power of ten of them in one when there
//! are more than [`MAX_BINS`]), with the metrics that only a run that
//! takes time has — latency quantiles, queue length and calls in service,
//! timeouts, overflow — read from the engine's own per-bin record. Where a
//! chart bin holds several of the engine's, counts add up, means are
//! averaged, and a quantile or a maximum is the highest of them (the value
//! label says so).

use squall_engine::Observations;
use squall_lang::{Clock, Metric, RunKey};

use super::binned_series::{BinnedSeries, FaultWindow, SeriesLine};
use super::histogram::Histogram;
use crate::eval::{timed_bin, window_metric};
use crate::run::Run;
use crate::study::Study;

/// The most bins a chart draws.
pub const MAX_BINS: u64 = 1000;

/// The bin width \[ticks\] for a run of `ticks` ticks: the smallest of 1, 2,
/// 5 times a power of ten that gives at most `max_bins` bins.
pub fn bin_width(ticks: u64, max_bins: u64) -> u64 {
    let max_bins = max_bins.max(1);
    let mut p = 1u64;
    loop {
        for m in [1, 2, 5] {
            let w = p.saturating_mul(m);
            if w == u64::MAX || ticks.div_ceil(w) <= max_bins {
                return w;
            }
        }
        p = p.saturating_mul(10);
    }
}

/// The time axis' word for a clock: `rounds`, `ms`, `s`.
pub fn axis_unit(clock: Clock) -> &'static str {
    match clock {
        Clock::Round => "rounds",
        other => other.unit_name(),
    }
}

/// Under a clock finer than a second, a chart reads in seconds: time,
/// rates per second and bins, durations still in the clock's unit (a
/// latency in ms reads better than in thousandths of a second). `Some(k)`,
/// `k` ticks a second, for such a clock; `None` for rounds and seconds.
pub fn ticks_per_second(clock: Clock) -> Option<f64> {
    clock
        .tick_millis()
        .filter(|&ms| ms < 1000)
        .map(|ms| 1000.0 / ms as f64)
}

/// The metric's name in the language (`call_rate`).
pub fn metric_name(metric: Metric) -> &'static str {
    Metric::ALL
        .iter()
        .find(|(_, m)| *m == metric)
        .map_or("value", |(name, _)| name)
}

/// What a bin's value of `metric` is, with its unit: `calls per round`,
/// `calls per 5-round bin`, `success rate`.
pub fn value_label(metric: Metric, unit: &str, width: u64) -> String {
    let per_tick = |what: &str| format!("{what} per {unit}");
    match metric {
        Metric::CallRate => per_tick("calls"),
        Metric::ServedRate => per_tick("served calls"),
        Metric::UniqueRate => per_tick("unique ids"),
        Metric::EdgeRate => per_tick("new requests"),
        Metric::DroppedRate => per_tick("dropped requests"),
        Metric::Amplification => "calls per unique id".into(),
        Metric::SuccessRate => "success rate".into(),
        Metric::FirstTryRate => "first-try success rate".into(),
        Metric::CompletionRate => "completion rate".into(),
        Metric::AvgBytes => "bytes per answered response".into(),
        Metric::P50 | Metric::P90 | Metric::P99 | Metric::P999 => {
            format!("{} latency ({unit})", metric_name(metric))
        }
        Metric::LatencyMax => format!("longest latency ({unit})"),
        Metric::LatencyMean => format!("mean latency ({unit})"),
        Metric::E2eP50 => format!("end-to-end p50 ({unit})"),
        Metric::E2eP99 => format!("end-to-end p99 ({unit})"),
        Metric::E2eMean => format!("end-to-end mean ({unit})"),
        Metric::E2eFailedP50 => format!("end-to-end p50 of failed requests ({unit})"),
        Metric::E2eFailedP99 => format!("end-to-end p99 of failed requests ({unit})"),
        Metric::E2eFailedMean => format!("end-to-end mean of failed requests ({unit})"),
        Metric::QueueMean => "mean queue length (calls)".into(),
        Metric::QueueMax => "longest queue (calls)".into(),
        Metric::InService => "mean calls in service".into(),
        Metric::InServiceMax => "most calls in service".into(),
        Metric::QueueEnd => "queue length at the bin's end (calls)".into(),
        Metric::InFlight => "mean calls at the node (queued or in service)".into(),
        Metric::PWait => "share of calls that waited for a worker".into(),
        Metric::Wq => format!("mean wait in the queue ({unit})"),
        other => format!(
            "{} per {width}-{unit} bin",
            metric_name(other).replace('_', " ")
        ),
    }
}

/// True for a metric that is a rate per tick.
fn is_rate(metric: Metric) -> bool {
    matches!(
        metric,
        Metric::CallRate
            | Metric::ServedRate
            | Metric::UniqueRate
            | Metric::EdgeRate
            | Metric::DroppedRate
    )
}

/// [`value_label`] for a chart read in seconds (module docs of
/// [`BinnedSeries::in_seconds`]): rates per second, counts per bin of so
/// many seconds, durations in the clock's `unit`.
pub fn value_label_in_seconds(metric: Metric, unit: &str, width: u64, clock: Clock) -> String {
    if is_rate(metric) {
        return value_label(metric, "s", width);
    }
    let label = value_label(metric, unit, width);
    let bin = format!("per {width}-{unit} bin");
    match label.strip_suffix(&bin) {
        Some(what) => format!("{what}per {} bin", crate::diagnose::span(clock, width)),
        None => label,
    }
}

/// The value of `metric` over ticks `from..=to` of a run.
fn bin_value(obs: &Observations, metric: Metric, from: u64, to: u64, node: usize) -> Option<f64> {
    let unique = || {
        let s = obs.nodes.get(node)?;
        crate::observed::counted_distinct(obs, node).then(|| obs.total(&s.unique, from, to) as f64)
    };
    let node = metric.needs_node().then_some(node);
    match metric {
        Metric::Unique => unique(),
        Metric::UniqueRate => Some(unique()? / (to + 1 - from) as f64),
        Metric::Amplification => {
            let calls = window_metric(obs, Metric::Calls, from, to, usize::MAX, node)?;
            let u = unique()?;
            (u > 0.0).then(|| calls / u)
        }
        other => window_metric(obs, other, from, to, usize::MAX, node),
    }
}

/// How a metric recorded per engine bin combines over several bins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Combine {
    Sum,
    Mean,
    Highest,
    /// The last bin's (a level at a bin's end).
    Last,
}

/// A metric recorded per bin by the engine on a run that takes time (and
/// how it combines), or `None` for one counted per slot.
fn per_engine_bin(metric: Metric) -> Option<Combine> {
    Some(match metric {
        Metric::P50
        | Metric::P90
        | Metric::P99
        | Metric::P999
        | Metric::LatencyMax
        | Metric::E2eP50
        | Metric::E2eP99
        | Metric::E2eFailedP50
        | Metric::E2eFailedP99
        | Metric::QueueMax
        | Metric::InServiceMax => Combine::Highest,
        Metric::LatencyMean
        | Metric::E2eMean
        | Metric::E2eFailedMean
        | Metric::QueueMean
        | Metric::InService
        | Metric::InFlight
        | Metric::PWait
        | Metric::Wq => Combine::Mean,
        Metric::QueueEnd => Combine::Last,
        Metric::Timeouts
        | Metric::Overflow
        | Metric::QueueTimeouts
        | Metric::Throttled
        | Metric::Limited
        | Metric::Cancelled
        | Metric::Wasted
        | Metric::WastedBusy => Combine::Sum,
        _ => return None,
    })
}

/// The value of `metric` over engine bins `bins` of a run that takes time.
fn engine_bins_value(
    obs: &Observations,
    metric: Metric,
    bins: std::ops::Range<usize>,
    node: usize,
    how: Combine,
) -> Option<f64> {
    let node = metric.needs_node().then_some(node);
    if obs
        .timed
        .as_ref()
        .is_some_and(|t| !crate::observed::recorded(t, metric, true))
    {
        return None;
    }
    // A latency quantile of a bin with no answer has no value.
    let has = |b: usize| match metric {
        m if crate::eval::is_e2e(m) => obs
            .timed
            .as_ref()
            .and_then(|t| crate::eval::e2e_source(t, m).bins.get(b))
            .is_some_and(|q| q.count > 0),
        Metric::P50
        | Metric::P90
        | Metric::P99
        | Metric::P999
        | Metric::LatencyMax
        | Metric::LatencyMean => obs
            .timed
            .as_ref()
            .and_then(|t| t.nodes.get(node?)?.bins.get(b))
            .is_some_and(|s| s.latency.count > 0),
        _ => true,
    };
    let values: Vec<f64> = bins
        .filter(|&b| has(b))
        .filter_map(|b| timed_bin(obs, metric, b, node))
        .collect();
    if values.is_empty() {
        return None;
    }
    Some(match how {
        Combine::Sum => values.iter().sum(),
        Combine::Mean => values.iter().sum::<f64>() / values.len() as f64,
        Combine::Highest => values.iter().copied().fold(f64::MIN, f64::max),
        Combine::Last => values.last().copied()?,
    })
}

/// Buckets a latency histogram draws over `0..=p99.9`.
const LATENCY_BUCKETS: f64 = 50.0;

/// The smallest of 1, 2 or 5 times a power of ten at or above `x > 0`.
fn nice_width(x: f64) -> f64 {
    let p = 10f64.powf(x.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|&w| w >= x)
        .unwrap_or(10.0 * p)
}

impl Study<'_> {
    /// The distribution of `node`'s latency over run `key` (a run that
    /// takes time), in ticks of the file's clock: equal buckets of 1, 2 or
    /// 5 times a power of ten up to the run's p99.9, about
    /// [`LATENCY_BUCKETS`] of them; the answers slower than the p99.9 are
    /// left out, and the count label says how many.
    pub fn latency_histogram(
        &self,
        key: RunKey,
        node: Option<usize>,
        title: Option<&str>,
    ) -> Option<Histogram> {
        let run = self.runs.get(&key)?;
        let node = node?;
        let t = run.obs.timed.as_ref()?;
        if !crate::observed::recorded(t, Metric::P999, false) {
            return None;
        }
        let n = t.nodes.get(node)?;
        let per = t.units_per_tick.max(1) as f64;
        let top = n.run.latency.p999 as f64 / per;
        if n.run.latency.count == 0 || top <= 0.0 {
            return None;
        }
        let width = nice_width(top / LATENCY_BUCKETS);
        let count = (top / width).floor() as usize + 1;
        // Bucket starts rounded to the width's digits (0.6, not 0.6000000000000001).
        let start = |i: usize| ((i as f64 * width) * 1e9).round() / 1e9;
        let mut buckets: Vec<(f64, u64)> = (0..count).map(|i| (start(i), 0)).collect();
        let mut above = 0u64;
        for &(value, c) in &n.distribution {
            let v = value as f64 / per;
            if v > top {
                above += c;
                continue;
            }
            let i = ((v / width).floor() as usize).min(count - 1);
            buckets[i].1 += c;
        }
        let unit = self.scenario.clock.unit_name();
        let name = self
            .scenario
            .nodes
            .get(node)
            .map_or("?", |n| n.name.as_str());
        let label = self.run_label(key);
        let title = match title {
            Some(t) => format!("{t}: {label}"),
            None => format!("{}: latency at `{name}`, {label}", self.scenario.name),
        };
        Some(Histogram {
            title,
            value_label: format!("latency at `{name}` ({unit})"),
            count_label: format!("answers ({above} above the p99.9 not drawn)"),
            bucket_width: width,
            buckets,
        })
    }

    /// The variant runs of the study, in order (sweep points are left out).
    pub fn variant_runs(&self) -> Vec<RunKey> {
        self.runs
            .keys()
            .copied()
            .filter(|k| matches!(k, RunKey::Variant(v) if self.includes_variant(*v)))
            .collect()
    }

    /// The variant runs a chart draws, in order.
    pub(super) fn chart_runs(&self) -> Vec<&Run> {
        self.variant_runs()
            .into_iter()
            .filter_map(|k| self.runs.get(&k))
            .collect()
    }

    /// `metric` at `node` (ignored for a system metric) per bin, one line
    /// per variant run, every one-off fault window of the runs shaded. The
    /// bins are as wide as needed to keep at most `max_bins` of them.
    pub fn binned(&self, metric: Metric, node: usize, max_bins: u64) -> BinnedSeries {
        let runs = self.chart_runs();
        let grid = Grid::of(&runs, max_bins);
        let how = per_engine_bin(metric);
        let lines = runs
            .iter()
            .map(|r| SeriesLine {
                label: self.run_label(r.key),
                values: (0..grid.bins)
                    .map(|b| {
                        let (from, to) = grid.ticks(b, r.model.ticks)?;
                        match how {
                            Some(how) if r.obs.timed.is_some() => {
                                let first = (b * grid.per) as usize;
                                let n = r.obs.slots.bins().max(1);
                                let last = (first + grid.per as usize).min(n);
                                engine_bins_value(&r.obs, metric, first..last, node, how)
                            }
                            _ => bin_value(&r.obs, metric, from, to, node),
                        }
                    })
                    .collect(),
            })
            .collect();
        let clock = self.scenario.clock;
        let per_second = ticks_per_second(clock);
        let unit = clock.unit_name();
        let mut what = match per_second {
            Some(_) => value_label_in_seconds(metric, unit, grid.width, clock),
            None => value_label(metric, unit, grid.width),
        };
        if grid.per > 1 && per_engine_bin(metric) == Some(Combine::Highest) {
            let engine = match per_second {
                Some(_) => crate::diagnose::span(clock, grid.engine),
                None => format!("{} {unit}", grid.engine),
            };
            what = format!("{what}, highest of {} bins of {engine}", grid.per);
        }
        let title = if metric.needs_node() {
            format!(
                "{}: {what} at `{}`",
                self.scenario.name,
                self.node_name(node)
            )
        } else {
            format!("{}: {what}", self.scenario.name)
        };
        let series = grid.series(title, what, axis_unit(clock), lines, fault_windows(&runs));
        match per_second {
            Some(k) => series.in_seconds(k, is_rate(metric)),
            None => series,
        }
    }

    /// The name of node `node` (`?` for none).
    pub(super) fn node_name(&self, node: usize) -> &str {
        self.scenario
            .nodes
            .get(node)
            .map_or("?", |n| n.name.as_str())
    }
}

/// The time axis of a chart of some runs: bins of whole ticks from the
/// runs' first tick to the longest one's last.
#[derive(Debug, Clone, Copy)]
pub(super) struct Grid {
    /// The first tick of the first bin.
    pub start: u64,
    /// Ticks per bin.
    pub width: u64,
    /// How many bins.
    pub bins: u64,
    /// On a run that takes time, ticks per engine bin (1 otherwise).
    pub engine: u64,
    /// Engine bins per chart bin.
    pub per: u64,
}

impl Grid {
    /// The grid for `runs`, at most `max_bins` bins. On a run that takes
    /// time a bin is a whole number of the engine's bins.
    pub fn of(runs: &[&Run], max_bins: u64) -> Grid {
        // From the run's first tick (tick 0 for `run 0..b`), where the
        // engine's bins start too.
        let start = runs.first().map_or(1, |r| r.model.start);
        let end = runs.iter().map(|r| r.model.ticks).max().unwrap_or(start);
        let end = end.max(start);
        let engine = runs
            .iter()
            .map(|r| r.obs.slots.bin)
            .find(|&b| b > 1)
            .unwrap_or(1);
        let per = bin_width((end + 1 - start).div_ceil(engine), max_bins);
        let width = if engine > 1 {
            engine * per
        } else {
            bin_width(end + 1 - start, max_bins)
        };
        Grid {
            start,
            width,
            bins: (end + 1 - start).div_ceil(width),
            engine,
            per,
        }
    }

    /// The ticks `from..=to` of bin `b` in a run of `ticks` ticks (`None`
    /// past its end).
    pub fn ticks(&self, b: u64, ticks: u64) -> Option<(u64, u64)> {
        let from = self.start + b * self.width;
        let to = (from + self.width - 1).min(ticks);
        (from <= to).then_some((from, to))
    }

    /// A series on this grid (a tick `t` spans the time from `t - 1` to `t`).
    pub fn series(
        &self,
        title: String,
        value_label: String,
        time_unit: &str,
        lines: Vec<SeriesLine>,
        faults: Vec<FaultWindow>,
    ) -> BinnedSeries {
        BinnedSeries {
            title,
            value_label,
            time_unit: time_unit.to_string(),
            start: self.start as f64 - 1.0,
            bin_width: self.width as f64,
            lines,
            faults,
            levels: Vec::new(),
        }
    }
}

/// Every one-off fault window of `runs`, once each (a tick `t` spans the
/// time from `t - 1` to `t`).
pub(super) fn fault_windows(runs: &[&Run]) -> Vec<FaultWindow> {
    let mut faults: Vec<FaultWindow> = Vec::new();
    for r in runs {
        for f in r.model.faults.iter().filter(|f| f.periodic.is_none()) {
            let w = FaultWindow {
                start: f.from as f64 - 1.0,
                end: f.to as f64,
                label: f.name.clone(),
            };
            if !faults.contains(&w) {
                faults.push(w);
            }
        }
    }
    faults
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_buckets_are_round() {
        assert_eq!(nice_width(0.3), 0.5);
        assert_eq!(nice_width(1.0), 1.0);
        assert_eq!(nice_width(1.6), 2.0);
        assert_eq!(nice_width(7.0), 10.0);
        assert_eq!(nice_width(30.0), 50.0);
    }

    #[test]
    fn bin_widths_are_round_and_bounded() {
        assert_eq!(bin_width(400, 1000), 1);
        assert_eq!(bin_width(1000, 1000), 1);
        assert_eq!(bin_width(1001, 1000), 2);
        assert_eq!(bin_width(300_000, 1000), 500);
        assert_eq!(bin_width(0, 1000), 1);
        assert_eq!(bin_width(u64::MAX, 1), u64::MAX);
    }
}
