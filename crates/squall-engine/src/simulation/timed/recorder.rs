//! What a run that takes time records as it goes: latency histograms,
//! queue and service gauges, and counters, per node over the run and per
//! named window (by event time, exactly), and end-to-end latency per
//! source. [`Recorder::finish`] turns them into plain
//! [`TimedObservations`].

use crate::observe::gauge::{Bins, Gauge};
use crate::observe::histogram::LatencyHistogram;
use crate::observe::timed::{CallAccounting, Stretch, TimedNode, TimedObservations, TimedSource};
use crate::time::{Duration, Resolution, Time};

/// A counter of [`Stretch`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Count {
    Timeout,
    Overflow,
    QueueTimeout,
    Throttled,
    Cancelled,
    WastedCalls,
    WastedBusy,
}

const COUNTS: usize = 7;

#[derive(Debug, Clone)]
struct NodeRecord {
    latency: LatencyHistogram,
    window_latency: Vec<LatencyHistogram>,
    queue: Gauge,
    busy: Gauge,
    /// `[count][0]` the run, `[count][1 + w]` window `w`.
    counts: [Vec<u64>; COUNTS],
}

/// The recorder of one run.
#[derive(Debug, Clone, Default)]
pub(super) struct Recorder {
    res: Resolution,
    bin_ticks: u64,
    windows: Vec<(Time, Time)>,
    nodes: Vec<NodeRecord>,
    /// Per source, then one for all sources: the run and each window.
    sources: Vec<(LatencyHistogram, Vec<LatencyHistogram>)>,
    pub(super) calls: CallAccounting,
}

/// A bin width \[ticks\] of 1, 2 or 5 times a power of ten that keeps
/// `ticks` to at most 2000 bins.
pub fn default_bin(ticks: u64) -> u64 {
    let mut w = 1u64;
    loop {
        for m in [1, 2, 5] {
            if ticks.div_ceil(w * m) <= 2000 {
                return w * m;
            }
        }
        w = w.saturating_mul(10);
    }
}

impl Recorder {
    /// A recorder for `nodes` nodes and `sources` sources over
    /// `start..end`, with named windows `windows` (`from..to`, end excluded).
    pub(super) fn new(
        res: Resolution,
        start: Time,
        end: Time,
        bin_ticks: u64,
        windows: Vec<(Time, Time)>,
        nodes: usize,
        sources: usize,
    ) -> Self {
        let bins = Bins::new(start, end, res.ticks(bin_ticks));
        let w = windows.len();
        let node = NodeRecord {
            latency: LatencyHistogram::new(),
            window_latency: vec![LatencyHistogram::new(); w],
            queue: Gauge::new(bins, &windows),
            busy: Gauge::new(bins, &windows),
            counts: std::array::from_fn(|_| vec![0; 1 + w]),
        };
        Recorder {
            res,
            bin_ticks,
            nodes: vec![node; nodes],
            sources: vec![(LatencyHistogram::new(), vec![LatencyHistogram::new(); w]); sources + 1],
            windows,
            calls: CallAccounting::default(),
        }
    }

    /// Adds `n` to counter `what` of `node` at `now`.
    pub(super) fn count(&mut self, node: usize, what: Count, now: Time, n: u64) {
        let idx = what as usize;
        self.nodes[node].counts[idx][0] += n;
        for w in 0..self.windows.len() {
            let (from, to) = self.windows[w];
            if from <= now && now < to {
                self.nodes[node].counts[idx][1 + w] += n;
            }
        }
    }

    /// A call answered at `node` at `now` after `d` there.
    pub(super) fn latency(&mut self, node: usize, now: Time, d: Duration) {
        let r = &mut self.nodes[node];
        r.latency.record(d);
        for (w, &(from, to)) in self.windows.iter().enumerate() {
            if from <= now && now < to {
                r.window_latency[w].record(d);
            }
        }
    }

    /// A request of `source` ended at `now` after `d`.
    pub(super) fn end_to_end(&mut self, source: usize, now: Time, d: Duration) {
        let all = self.sources.len() - 1;
        for s in [source, all] {
            let r = &mut self.sources[s];
            r.0.record(d);
            for (w, &(from, to)) in self.windows.iter().enumerate() {
                if from <= now && now < to {
                    r.1[w].record(d);
                }
            }
        }
    }

    /// The queue of `node` changes by `delta` at `now`.
    pub(super) fn queue(&mut self, node: usize, now: Time, delta: i64) {
        self.nodes[node].queue.add(now, delta);
    }

    /// Calls in service at `node` change by `delta` at `now`.
    pub(super) fn busy(&mut self, node: usize, now: Time, delta: i64) {
        self.nodes[node].busy.add(now, delta);
    }

    /// The plain observations, with levels counted up to `end`.
    pub(super) fn finish(mut self, end: Time) -> TimedObservations {
        let windows = self.windows.len();
        let nodes = self
            .nodes
            .iter_mut()
            .map(|r| {
                r.queue.hold_until(end);
                r.busy.hold_until(end);
                let stretch = |i: usize, latency: &LatencyHistogram| Stretch {
                    latency: latency.quantiles(),
                    timeouts: r.counts[Count::Timeout as usize][i],
                    overflow: r.counts[Count::Overflow as usize][i],
                    queue_timeouts: r.counts[Count::QueueTimeout as usize][i],
                    throttled: r.counts[Count::Throttled as usize][i],
                    cancelled: r.counts[Count::Cancelled as usize][i],
                    wasted_calls: r.counts[Count::WastedCalls as usize][i],
                    wasted_busy: r.counts[Count::WastedBusy as usize][i],
                    queue_mean: if i == 0 {
                        r.queue.mean_until(end)
                    } else {
                        r.queue.window_mean(i - 1)
                    },
                    queue_max: if i == 0 {
                        r.queue.peak()
                    } else {
                        r.queue.window_max(i - 1)
                    },
                    in_service_mean: if i == 0 {
                        r.busy.mean_until(end)
                    } else {
                        r.busy.window_mean(i - 1)
                    },
                    in_service_max: if i == 0 {
                        r.busy.peak()
                    } else {
                        r.busy.window_max(i - 1)
                    },
                };
                let bins = r.queue.bins().count;
                TimedNode {
                    run: stretch(0, &r.latency),
                    windows: (0..windows)
                        .map(|w| stretch(1 + w, &r.window_latency[w]))
                        .collect(),
                    queue_bins: (0..bins).map(|i| r.queue.bin_mean(i)).collect(),
                    in_service_bins: (0..bins).map(|i| r.busy.bin_mean(i)).collect(),
                    queue: None,
                }
            })
            .collect();
        let mut sources: Vec<TimedSource> = self
            .sources
            .iter()
            .map(|(run, ws)| TimedSource {
                run: run.quantiles(),
                windows: ws.iter().map(LatencyHistogram::quantiles).collect(),
            })
            .collect();
        let all = sources.pop().unwrap_or_default();
        TimedObservations {
            units_per_tick: self.res.per_tick(),
            bin_ticks: self.bin_ticks,
            nodes,
            sources,
            all,
            calls: self.calls,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_bins_stay_under_2000() {
        assert_eq!(default_bin(400), 1);
        assert_eq!(default_bin(2000), 1);
        assert_eq!(default_bin(2001), 2);
        assert_eq!(default_bin(600_000), 500);
        assert_eq!(default_bin(3_600_000), 2000);
    }
}
