//! Latency histograms with a bounded relative error.
//!
//! A [`LatencyHistogram`] records durations in engine units in an
//! HdrHistogram (the `hdrhistogram` crate) with three significant digits:
//! every value is kept in a bucket no wider than 1/1024 of the value, so a
//! quantile read back is within 0.1 % of the exact sample quantile (the
//! bucket's highest equivalent value, never lower than the sample). Memory
//! grows with the logarithm of the largest value recorded (tens of KiB),
//! not with the number of samples.

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::time::Duration;

/// The relative error bound of a quantile read from a histogram.
pub const RELATIVE_ERROR: f64 = 1.0 / 1024.0;

/// A histogram of durations.
#[derive(Debug, Clone)]
pub struct LatencyHistogram {
    h: Histogram<u64>,
}

/// The quantiles a report prints, in engine units.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct Quantiles {
    /// Samples recorded.
    pub count: u64,
    /// Mean (exact up to the bucket width).
    pub mean: f64,
    /// Median.
    pub p50: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// 99.9th percentile.
    pub p999: u64,
    /// Largest.
    pub max: u64,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyHistogram {
    /// An empty histogram.
    pub fn new() -> Self {
        LatencyHistogram {
            // `new` fails only for more than five significant digits.
            #[allow(clippy::expect_used)]
            h: Histogram::new(3).expect("three significant digits are in range"),
        }
    }

    /// Records one duration.
    pub fn record(&mut self, d: Duration) {
        // Auto-resizing: recording fails only past u64 range, where
        // saturation is the honest answer.
        if self.h.record(d.units()).is_err() {
            let _ = self.h.record(self.h.max());
        }
    }

    /// Every bucket that holds a sample: `(highest value of the bucket,
    /// samples in it)`, in increasing order of value. At most a few
    /// thousand buckets (the histogram's own), whatever the samples.
    pub fn buckets(&self) -> Vec<(u64, u64)> {
        self.h
            .iter_recorded()
            .map(|v| (v.value_iterated_to(), v.count_at_value()))
            .collect()
    }

    /// Forgets every sample (keeps the memory).
    pub fn reset(&mut self) {
        self.h.reset();
    }

    /// Adds every sample of `other`.
    pub fn merge(&mut self, other: &LatencyHistogram) {
        let _ = self.h.add(&other.h);
    }

    /// Takes away every sample of `other`, a histogram of samples that
    /// were all recorded in this one too: the counts are then those of
    /// the samples left, and so are the quantiles, mean and largest.
    pub fn subtract(&mut self, other: &LatencyHistogram) {
        let _ = self.h.subtract(&other.h);
    }

    /// Samples recorded.
    pub fn count(&self) -> u64 {
        self.h.len()
    }

    /// The `q`-quantile (`0..=1`) in units; zero when empty.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.h.is_empty() {
            0
        } else {
            self.h.value_at_quantile(q)
        }
    }

    /// The report's quantiles.
    pub fn quantiles(&self) -> Quantiles {
        if self.h.is_empty() {
            return Quantiles::default();
        }
        // One pass for the four (each exactly `quantile`'s answer).
        let mut q = self.h.value_at_quantiles([0.5, 0.9, 0.99, 0.999]);
        let mut next = || q.next().unwrap_or(0);
        let (p50, p90, p99, p999) = (next(), next(), next(), next());
        Quantiles {
            count: self.h.len(),
            mean: self.h.mean(),
            p50,
            p90,
            p99,
            p999,
            max: self.h.max(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Stream;
    use crate::server::latency::Latency;
    use crate::time::Resolution;
    use squall_lang::{Clock, LatencySpec};

    /// Against the exact sample quantiles of 100 000 lognormal draws (p50
    /// 5 ms, p99 80 ms, in ns): every quantile within the bound, never
    /// below the exact one.
    #[test]
    fn relative_error_is_bounded() {
        let l = Latency::new(
            &LatencySpec::LogNormal {
                p50: 5.0,
                p99: 80.0,
            },
            0.0,
            Resolution::fine(Clock::Ms),
        );
        let mut s = Stream::new(11, "h");
        let mut h = LatencyHistogram::new();
        let mut v = Vec::new();
        for _ in 0..100_000 {
            let d = l.sample(&mut s);
            h.record(d);
            v.push(d.units());
        }
        v.sort_unstable();
        for q in [0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 1.0] {
            let rank = ((q * v.len() as f64).ceil() as usize).max(1);
            let exact = v[rank - 1] as f64;
            let got = h.quantile(q) as f64;
            assert!(got >= exact, "q {q}: {got} < {exact}");
            assert!(
                (got - exact) / exact <= RELATIVE_ERROR,
                "q {q}: {got} vs {exact}"
            );
        }
        let qs = h.quantiles();
        assert_eq!(qs.count, 100_000);
        assert!(qs.p50 <= qs.p90 && qs.p90 <= qs.p99 && qs.p99 <= qs.p999 && qs.p999 <= qs.max);
    }

    #[test]
    fn empty_and_merged() {
        let mut a = LatencyHistogram::new();
        assert_eq!(a.quantiles(), Quantiles::default());
        let mut b = LatencyHistogram::new();
        for i in 1..=100u64 {
            a.record(Duration::from_units(i));
            b.record(Duration::from_units(100 + i));
        }
        a.merge(&b);
        assert_eq!(a.count(), 200);
        assert_eq!(a.quantile(0.5), 100);
        assert_eq!(a.quantiles().max, 200);
    }
}
