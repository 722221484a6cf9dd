//! What a run that takes time records as it goes: counters per node over
//! the run and per named window (by event time, exactly), and, as its
//! [`Observe`] asks, latency histograms and queue and service gauges per
//! node, end-to-end latency per source, and all of these per bin of the
//! run's series. What is not asked for is not recorded: no memory is
//! kept for it and no work is done per call (a test of its flag in the
//! recorder's [`Observe`], before any lookup of the node's record);
//! [`Recorder::finish`] leaves it empty in the plain
//! [`TimedObservations`], whose `observed` says what was recorded.

use crate::observe::binned_latency::BinnedLatency;
use crate::observe::gauge::{BinCursor, Bins, Gauge};
use crate::observe::histogram::{LatencyHistogram, Quantiles};
use crate::observe::timed::{CallAccounting, Stretch, TimedNode, TimedObservations, TimedSource};
use crate::observe::Observe;
use crate::time::{Duration, Resolution, Time};

/// A counter of [`Stretch`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Count {
    Timeout,
    Overflow,
    QueueTimeout,
    Throttled,
    /// A try its caller's concurrency limiter did not send.
    Limited,
    Cancelled,
    WastedCalls,
    WastedBusy,
    /// Counted at the call's arrival, not at its answer: an answer with
    /// success to a call that arrived then ([`Recorder::answered_ok`]).
    AnsweredOk,
    /// A call reached the node's workers (served at once or queued).
    Admitted,
    /// A call that reached them waited in the queue.
    Waited,
}

/// How many [`Count`]s a node keeps per window and per bin.
pub(super) const COUNTS: usize = 11;

/// A node's response times, when observed ([`Observe::node_latency`]).
#[derive(Debug, Clone)]
struct NodeLatency {
    run: LatencyHistogram,
    /// Per window (or the samples outside it: [`Recorder::outside`]).
    windows: Vec<LatencyHistogram>,
    /// Quantiles per bin, when bins are observed.
    bins: Option<BinnedLatency>,
}

/// A node's queue length and calls in service, when observed
/// ([`Observe::gauges`]).
#[derive(Debug, Clone)]
struct Levels {
    queue: Gauge,
    busy: Gauge,
}

#[derive(Debug, Clone)]
struct NodeRecord {
    latency: Option<NodeLatency>,
    levels: Option<Levels>,
    /// `[count][0]` the run, `[count][1 + w]` window `w`.
    counts: [Vec<u64>; COUNTS],
    /// `[count][b]`: bin `b` (empty when bins are not observed).
    bin_counts: [Vec<u64>; COUNTS],
}

/// End-to-end latency of one source's requests (or every source's), when
/// observed ([`Observe::e2e_latency`]): the run, each window (or the
/// samples outside it), and each bin when bins are observed.
#[derive(Debug, Clone)]
struct SourceRecord {
    run: LatencyHistogram,
    windows: Vec<LatencyHistogram>,
    bins: Option<BinnedLatency>,
}

/// The recorder of one run. It records what its [`Observe`] asks for:
/// the counters over the run and per window always; latency histograms,
/// gauges, end-to-end latency and per-bin stretches only when asked, and
/// nothing (no memory, no work per call) for the others.
#[derive(Debug, Clone, Default)]
pub(super) struct Recorder {
    res: Resolution,
    bin_ticks: u64,
    /// The series bins, when observed.
    bins: Option<Bins>,
    /// The bin of the last count (most counts fall in it).
    cursor: BinCursor,
    windows: Vec<(Time, Time)>,
    /// Per window: its histograms hold the samples outside it instead
    /// (`record_windows`).
    outside: Vec<bool>,
    nodes: Vec<NodeRecord>,
    /// Per source, then one for all sources; completed requests' first,
    /// then failed requests'. With one source, "all" is that source's and
    /// is not recorded twice. Empty when end-to-end latency is not
    /// observed.
    sources: Vec<SourceRecord>,
    /// How many sources the run has.
    source_count: usize,
    observe: Observe,
    pub(super) calls: CallAccounting,
}

impl Recorder {
    /// A recorder for `nodes` nodes and `sources` sources over
    /// `start..end`, with named windows `windows` (`from..to`, end
    /// excluded), recording what `observe` asks for.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        res: Resolution,
        start: Time,
        end: Time,
        bin_ticks: u64,
        windows: Vec<(Time, Time)>,
        nodes: usize,
        sources: usize,
        observe: Observe,
    ) -> Self {
        let series = Bins::new(start, end, res.ticks(bin_ticks));
        let bins = observe.bins.then_some(series);
        // Gauges without bins keep one bin over the whole run, which no
        // one reads: their run and window levels are exact either way.
        let gauge_bins = bins.unwrap_or(Bins::new(start, end, end.since(start)));
        let w = windows.len();
        // A window over half the run or more keeps the samples outside it.
        let span = end.since(start).units();
        let outside: Vec<bool> = windows
            .iter()
            .map(|&(from, to)| to.since(from).units().saturating_mul(2) >= span)
            .collect();
        let node = NodeRecord {
            latency: observe.node_latency.then(|| NodeLatency {
                run: LatencyHistogram::new(),
                windows: vec![LatencyHistogram::new(); w],
                bins: bins.map(BinnedLatency::new),
            }),
            levels: observe.gauges.then(|| Levels {
                queue: Gauge::new(gauge_bins, &windows),
                busy: Gauge::new(gauge_bins, &windows),
            }),
            counts: std::array::from_fn(|_| vec![0; 1 + w]),
            bin_counts: std::array::from_fn(|_| vec![0; bins.map_or(0, |b| b.count)]),
        };
        let source = SourceRecord {
            run: LatencyHistogram::new(),
            windows: vec![LatencyHistogram::new(); w],
            bins: bins.map(BinnedLatency::new),
        };
        let source_records = if observe.e2e_latency {
            vec![source; 2 * (sources + 1)]
        } else {
            Vec::new()
        };
        Recorder {
            res,
            bin_ticks,
            bins,
            cursor: BinCursor::default(),
            nodes: vec![node; nodes],
            sources: source_records,
            source_count: sources,
            windows,
            outside,
            observe,
            calls: CallAccounting::default(),
        }
    }

    /// Adds `n` to counter `what` of `node` at `now`. Inlined, its bin
    /// found by a cursor: it runs for every call (at its admission and
    /// its answer). `inline(always)`: with plain `#[inline]` the compiler
    /// kept it a call, about 20 M instructions of call overhead on the
    /// continuous benchmark (bench/instructions.sh).
    #[inline(always)]
    pub(super) fn count(&mut self, node: usize, what: Count, now: Time, n: u64) {
        let idx = what as usize;
        let r = &mut self.nodes[node];
        let Some((run, windows)) = r.counts[idx].split_first_mut() else {
            return;
        };
        *run += n;
        if let Some(bins) = &self.bins {
            r.bin_counts[idx][self.cursor.index(bins, now)] += n;
        }
        for (count, &(from, to)) in windows.iter_mut().zip(&self.windows) {
            if from <= now && now < to {
                *count += n;
            }
        }
    }

    /// A call answered at `node` at `now` after `d` there.
    #[inline]
    pub(super) fn latency(&mut self, node: usize, now: Time, d: Duration) {
        if !self.observe.node_latency {
            return;
        }
        let Some(l) = &mut self.nodes[node].latency else {
            return;
        };
        record_windows(&self.windows, &self.outside, &mut l.windows, now, d);
        l.run.record(d);
        if let Some(b) = &mut l.bins {
            b.record(now, d);
        }
    }

    /// A call that arrived at `node` at `arrived` was answered with
    /// success (now, or later): counted in the window and bin of its
    /// arrival, so that the answers counted in a stretch answer calls
    /// counted in it, and a share of them cannot exceed 1.
    #[inline]
    pub(super) fn answered_ok(&mut self, node: usize, arrived: Time) {
        if self.observe.shares {
            self.count(node, Count::AnsweredOk, arrived, 1);
        }
    }

    /// A call reached the workers of `node` at `now`: served at once, or
    /// `queued` because every worker was busy (for P(wait)).
    #[inline]
    pub(super) fn admitted(&mut self, node: usize, now: Time, queued: bool) {
        if !self.observe.shares {
            return;
        }
        self.count(node, Count::Admitted, now, 1);
        if queued {
            self.count(node, Count::Waited, now, 1);
        }
    }

    /// A request of `source` ended at `now` after `d`, completed (`ok`) or
    /// failed: the two are kept apart, since a failed request's latency is
    /// often the deadline it waited out, not a time to an answer.
    pub(super) fn end_to_end(&mut self, source: usize, now: Time, d: Duration, ok: bool) {
        if self.sources.is_empty() {
            return;
        }
        let all = self.source_count;
        // Completed requests' histograms first, then failed requests'.
        let base = if ok { 0 } else { all + 1 };
        self.source_latency(base + source, now, d);
        if all != 1 {
            self.source_latency(base + all, now, d);
        }
    }

    /// Source record `i` (a source's, or every source's) takes a
    /// request's end-to-end latency `d`, ended at `now`.
    #[inline(always)]
    fn source_latency(&mut self, i: usize, now: Time, d: Duration) {
        let r = &mut self.sources[i];
        record_windows(&self.windows, &self.outside, &mut r.windows, now, d);
        r.run.record(d);
        if let Some(b) = &mut r.bins {
            b.record(now, d);
        }
    }

    /// The queue of `node` changes by `delta` at `now`.
    #[inline]
    pub(super) fn queue(&mut self, node: usize, now: Time, delta: i64) {
        if !self.observe.gauges {
            return;
        }
        if let Some(l) = &mut self.nodes[node].levels {
            l.queue.add(now, delta);
        }
    }

    /// Calls in service at `node` change by `delta` at `now`.
    #[inline]
    pub(super) fn busy(&mut self, node: usize, now: Time, delta: i64) {
        if !self.observe.gauges {
            return;
        }
        if let Some(l) = &mut self.nodes[node].levels {
            l.busy.add(now, delta);
        }
    }

    /// The plain observations, with levels counted up to `end`: what was
    /// not observed is left empty (default quantiles and levels, no bins,
    /// no distribution), and `observed` says so.
    pub(super) fn finish(self, end: Time) -> TimedObservations {
        let windows = self.windows.len();
        let outside = &self.outside;
        let nodes = self
            .nodes
            .into_iter()
            .map(|r| finish_node(r, end, windows, outside))
            .collect();
        let empty = TimedSource {
            windows: vec![Quantiles::default(); windows],
            ..TimedSource::default()
        };
        let mut sources: Vec<TimedSource> = if self.sources.is_empty() {
            vec![empty; 2 * (self.source_count + 1)]
        } else {
            self.sources
                .into_iter()
                .map(|r| TimedSource {
                    run: r.run.quantiles(),
                    windows: r
                        .windows
                        .iter()
                        .zip(outside)
                        .map(|(h, &outside)| window_quantiles(&r.run, h, outside))
                        .collect(),
                    bins: r.bins.map(BinnedLatency::finish).unwrap_or_default(),
                })
                .collect()
        };
        // Completed requests' sources and "all", then failed requests'.
        let mut failed_sources = sources.split_off(sources.len() / 2);
        let all_of = |sources: &mut Vec<TimedSource>| {
            let all = sources.pop().unwrap_or_default();
            match sources.as_slice() {
                [only] => only.clone(),
                _ => all,
            }
        };
        let all = all_of(&mut sources);
        let failed = all_of(&mut failed_sources);
        TimedObservations {
            units_per_tick: self.res.per_tick(),
            bin_ticks: self.bin_ticks,
            nodes,
            sources,
            all,
            failed,
            calls: self.calls,
            observed: self.observe,
        }
    }
}

/// One node's observations at `end`, with `windows` named windows (whose
/// histograms hold the samples outside them where `outside` says so).
fn finish_node(mut r: NodeRecord, end: Time, windows: usize, outside: &[bool]) -> TimedNode {
    if let Some(l) = &mut r.levels {
        l.queue.hold_until(end);
        l.busy.hold_until(end);
    }
    let binned = r.latency.as_mut().and_then(|l| l.bins.take());
    let count = |what: Count, i: usize| r.counts[what as usize][i];
    // (queue mean, max, end; in service mean, max) of the run (0) or
    // window `i - 1`; zeros when levels were not observed.
    let levels = |i: usize| match &r.levels {
        None => (0.0, 0, 0, 0.0, 0),
        Some(Levels { queue, busy }) if i == 0 => (
            queue.mean_until(end),
            queue.peak(),
            queue.level(),
            busy.mean_until(end),
            busy.peak(),
        ),
        Some(Levels { queue, busy }) => (
            queue.window_mean(i - 1),
            queue.window_max(i - 1),
            queue.window_end(i - 1),
            busy.window_mean(i - 1),
            busy.window_max(i - 1),
        ),
    };
    let stretch = |i: usize, latency: Quantiles| {
        let (queue_mean, queue_max, queue_end, in_service_mean, in_service_max) = levels(i);
        Stretch {
            latency,
            timeouts: count(Count::Timeout, i),
            overflow: count(Count::Overflow, i),
            queue_timeouts: count(Count::QueueTimeout, i),
            throttled: count(Count::Throttled, i),
            limited: count(Count::Limited, i),
            cancelled: count(Count::Cancelled, i),
            wasted_calls: count(Count::WastedCalls, i),
            wasted_busy: count(Count::WastedBusy, i),
            answered_ok: count(Count::AnsweredOk, i),
            admitted: count(Count::Admitted, i),
            waited: count(Count::Waited, i),
            queue_mean,
            queue_max,
            queue_end,
            in_service_mean,
            in_service_max,
        }
    };
    let run = stretch(
        0,
        r.latency
            .as_ref()
            .map_or_else(Quantiles::default, |l| l.run.quantiles()),
    );
    let ws = (0..windows)
        .map(|w| {
            let q = r.latency.as_ref().map_or_else(Quantiles::default, |l| {
                window_quantiles(&l.run, &l.windows[w], outside[w])
            });
            stretch(1 + w, q)
        })
        .collect();
    let bin_count = |what: Count, b: usize| r.bin_counts[what as usize][b];
    let bin_levels = |b: usize, ends: &[u64]| match &r.levels {
        None => (0.0, 0, 0, 0.0, 0),
        Some(Levels { queue, busy }) => (
            queue.bin_mean(b),
            queue.bin_max(b),
            ends.get(b).copied().unwrap_or(0),
            busy.bin_mean(b),
            busy.bin_max(b),
        ),
    };
    let bin_count_n = r.bin_counts[0].len();
    let queue_ends = r
        .levels
        .as_ref()
        .filter(|_| bin_count_n > 0)
        .map(|l| l.queue.bin_ends())
        .unwrap_or_default();
    let bin_latency: Vec<Quantiles> = match binned {
        Some(b) => b.finish(),
        None => vec![Quantiles::default(); bin_count_n],
    };
    let bins = bin_latency
        .into_iter()
        .enumerate()
        .map(|(b, latency)| {
            let (queue_mean, queue_max, queue_end, in_service_mean, in_service_max) =
                bin_levels(b, &queue_ends);
            Stretch {
                latency,
                timeouts: bin_count(Count::Timeout, b),
                overflow: bin_count(Count::Overflow, b),
                queue_timeouts: bin_count(Count::QueueTimeout, b),
                throttled: bin_count(Count::Throttled, b),
                limited: bin_count(Count::Limited, b),
                cancelled: bin_count(Count::Cancelled, b),
                wasted_calls: bin_count(Count::WastedCalls, b),
                wasted_busy: bin_count(Count::WastedBusy, b),
                answered_ok: bin_count(Count::AnsweredOk, b),
                admitted: bin_count(Count::Admitted, b),
                waited: bin_count(Count::Waited, b),
                queue_mean,
                queue_max,
                queue_end,
                in_service_mean,
                in_service_max,
            }
        })
        .collect();
    TimedNode {
        run,
        windows: ws,
        bins,
        distribution: r
            .latency
            .as_ref()
            .map(|l| l.run.buckets())
            .unwrap_or_default(),
        queue: None,
    }
}

/// Records `d`, a sample taken at `now`, in the histogram of each
/// window: the samples in it, or, for a window that keeps the samples
/// outside it (`outside`), those (so a window over the whole run, the
/// usual one, records almost nothing).
#[inline(always)]
fn record_windows(
    windows: &[(Time, Time)],
    outside: &[bool],
    hists: &mut [LatencyHistogram],
    now: Time,
    d: Duration,
) {
    for (w, &(from, to)) in windows.iter().enumerate() {
        let inside = from <= now && now < to;
        if inside != outside[w] {
            hists[w].record(d);
        }
    }
}

/// The quantiles of a window from its histogram `h`: its samples, or,
/// when it keeps those `outside` it, the run's samples `run` without them
/// (the same counts, so the same quantiles).
fn window_quantiles(run: &LatencyHistogram, h: &LatencyHistogram, outside: bool) -> Quantiles {
    if !outside {
        return h.quantiles();
    }
    let mut inside = run.clone();
    inside.subtract(h);
    inside.quantiles()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Window histograms, kept as the samples outside them for windows of
    /// half the run or more: the same quantiles as histograms recorded on
    /// their own, for a window over the whole run, ones that start late or
    /// end early, and a short one; end-to-end "all" equals the only
    /// source's.
    #[test]
    fn windows_agree_with_their_own_histograms() {
        let t = Time::from_units;
        let windows = vec![
            (t(0), t(100)),
            (t(40), t(100)),
            (t(0), t(60)),
            (t(1), t(100)),
            (t(30), t(50)),
        ];
        let mut r = Recorder::new(
            Resolution::TICKS,
            t(0),
            t(100),
            10,
            windows.clone(),
            1,
            1,
            Observe::EVERYTHING,
        );
        let mut own = vec![LatencyHistogram::new(); windows.len()];
        for i in 0..100u64 {
            // The largest sample first, outside most windows; a spread
            // that makes the histograms grow.
            let units = match i {
                0 => 5_000_000_000,
                _ if i % 7 == 0 => 1000 * i,
                _ => 1 + (i * 37) % 101,
            };
            let (now, d) = (t(i), Duration::from_units(units));
            r.latency(0, now, d);
            r.end_to_end(0, now, d, true);
            for (w, &(from, to)) in windows.iter().enumerate() {
                if from <= now && now < to {
                    own[w].record(d);
                }
            }
        }
        let obs = r.finish(t(100));
        for (w, h) in own.iter().enumerate() {
            assert_eq!(obs.nodes[0].windows[w].latency, h.quantiles(), "window {w}");
            assert_eq!(obs.sources[0].windows[w], h.quantiles(), "window {w}");
        }
        assert_eq!(obs.all, obs.sources[0]);
        assert_eq!(obs.nodes[0].run.latency.count, 100);
    }
}
