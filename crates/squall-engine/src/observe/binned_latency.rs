//! [`BinnedLatency`]: latency quantiles per bin of a run's series, in
//! memory bounded by the bins.
//!
//! One [`LatencyHistogram`] takes the bin in progress; when a sample
//! arrives in a later bin, the finished bin's quantiles are kept (a few
//! numbers) and the histogram is reset. Events come in time order, so a
//! bin is finished once and for all; a sample that would belong to an
//! earlier bin (none does) is counted in the bin in progress.

use crate::observe::gauge::{BinCursor, Bins};
use crate::observe::histogram::{LatencyHistogram, Quantiles};
use crate::time::{Duration, Time};

/// Latency quantiles per bin.
#[derive(Debug, Clone)]
pub struct BinnedLatency {
    bins: Bins,
    /// The bin of the last sample (most samples fall in it).
    cursor: BinCursor,
    current: LatencyHistogram,
    at: usize,
    done: Vec<Quantiles>,
}

impl BinnedLatency {
    /// Nothing recorded yet, over `bins`.
    pub fn new(bins: Bins) -> Self {
        BinnedLatency {
            bins,
            cursor: BinCursor::default(),
            current: LatencyHistogram::new(),
            at: 0,
            done: Vec::new(),
        }
    }

    /// Records `d`, a sample taken at `now`.
    #[inline]
    pub fn record(&mut self, now: Time, d: Duration) {
        let b = self.cursor.index(&self.bins, now);
        if b > self.at {
            self.close_until(b);
        }
        self.current.record(d);
    }

    /// Keeps the bin in progress and starts bin `b` (every bin between
    /// is empty).
    #[cold]
    fn close_until(&mut self, b: usize) {
        self.done.push(self.current.quantiles());
        self.current.reset();
        self.done.resize(b, Quantiles::default());
        self.at = b;
    }

    /// Quantiles of every bin, in order.
    pub fn finish(mut self) -> Vec<Quantiles> {
        let n = self.bins.count;
        if self.done.len() < n {
            self.done.push(self.current.quantiles());
        }
        self.done.resize(n, Quantiles::default());
        self.done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_per_bin() {
        let t = Time::from_units;
        let d = Duration::from_units;
        let bins = Bins::new(t(0), t(40), d(10));
        let mut l = BinnedLatency::new(bins);
        for v in 1..=100 {
            l.record(t(3), d(v));
        }
        l.record(t(25), d(7));
        let q = l.finish();
        assert_eq!(q.len(), 4);
        assert_eq!(
            (q[0].count, q[0].p50, q[0].p99, q[0].max),
            (100, 50, 99, 100)
        );
        assert_eq!(q[1], Quantiles::default());
        assert_eq!((q[2].count, q[2].p50), (1, 7));
        assert_eq!(q[3].count, 0);
    }
}
