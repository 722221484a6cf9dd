//! [`ReplicaWindows`]: one replicated node's counts per named window and
//! replica, for a report that reads one replica (`api[1].calls`).
//!
//! A replicated service is one row in every table, the sum over its
//! replicas. A report that reads one replica asks the run for these
//! counts (`SimulationBuilder::replica_windows`); a run whose report
//! reads none keeps none, and a node without `replicas` never keeps them
//! (its balancer, which counts here, is not there).
//!
//! Each count is taken where the node's own series counts it, at the same
//! tick, so the replicas of a node add up to the node exactly: `calls`
//! where the balancer picks (the node counts the call the instant before),
//! `refused` where the node counts a refusal for capacity, `served` and
//! `failed` where it counts its answer, and on a run that takes time
//! `answered_ok` where the node counts its answers to the window's calls
//! (by the call's arrival, for `success_rate`). Windows are few; a count
//! looks at each window's bounds.
//!
//! **Latency** (`api[1].p99`, kept only when a report reads it,
//! [`ReplicaWindows::keep_latency`]): a replica records each call it
//! served where the node records it, in a [`LatencyHistogram`] of its own
//! per window: the call's time at the node from its arrival (when the
//! balancer gave it to the replica) to its answer, queueing and the wait
//! for the calls below included, for the calls that held a worker,
//! in the window of the answer. So the replicas' samples of a window are
//! the node's, split by replica: the node's histogram is the sum of its
//! replicas', and its mean the call-weighted mean of theirs.

use serde::Serialize;

use super::histogram::{LatencyHistogram, Quantiles};
use crate::time::Duration;

/// One replica's counts in one named window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ReplicaWindow {
    /// Calls the replica received.
    pub calls: u64,
    /// Calls it answered with success (in the tick of the answer, as the
    /// node's `served`).
    pub served: u64,
    /// Calls it answered with failure (as the node's `failed`).
    pub failed: u64,
    /// Calls it refused for capacity (as the node's `refused`).
    pub refused: u64,
    /// On a run that takes time: the calls that arrived in the window and
    /// were answered with success, whenever (as the node's
    /// `Stretch::answered_ok`, the numerator of its `success_rate`); 0 on
    /// a run that takes no time, where `served` is.
    pub answered_ok: u64,
}

/// Which of a [`ReplicaWindow`]'s counts a call adds to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReplicaCount {
    /// A call received.
    Call,
    /// An answer with success.
    Served,
    /// An answer with failure.
    Failed,
    /// A refusal for capacity.
    Refused,
    /// An answer with success, counted at the tick of the call's arrival.
    AnsweredOk,
}

/// A replicated node's counts per named window and replica.
#[derive(Debug, Clone)]
pub(crate) struct ReplicaWindows {
    /// Window bounds (first tick, last tick), inclusive.
    bounds: Vec<(u64, u64)>,
    /// `[window][replica]`.
    counts: Vec<Vec<ReplicaWindow>>,
    /// `[window][replica]`: the latency of the calls each replica served,
    /// when kept.
    latency: Option<Vec<Vec<LatencyHistogram>>>,
}

impl ReplicaWindows {
    /// Counts of `replicas` replicas in windows with these bounds.
    pub(crate) fn new(bounds: &[(u64, u64)], replicas: usize) -> Self {
        ReplicaWindows {
            bounds: bounds.to_vec(),
            counts: vec![vec![ReplicaWindow::default(); replicas]; bounds.len()],
            latency: None,
        }
    }

    /// Keeps each replica's latency per window as well.
    pub(crate) fn keep_latency(&mut self) {
        let replicas = self.counts.first().map_or(0, Vec::len);
        self.latency = Some(vec![
            vec![LatencyHistogram::new(); replicas];
            self.bounds.len()
        ]);
    }

    /// Replica `r` answered at tick `t` a call it served for `d`: recorded
    /// in every window that holds `t`, when latency is kept.
    pub(crate) fn latency(&mut self, t: u64, r: usize, d: Duration) {
        let Some(hists) = &mut self.latency else {
            return;
        };
        for (w, &(from, to)) in self.bounds.iter().enumerate() {
            if from <= t && t <= to {
                hists[w][r].record(d);
            }
        }
    }

    /// The latency quantiles, `[window][replica]`, when kept (empty
    /// otherwise).
    pub(crate) fn quantiles(&self) -> Vec<Vec<Quantiles>> {
        self.latency.as_ref().map_or_else(Vec::new, |hists| {
            hists
                .iter()
                .map(|w| w.iter().map(LatencyHistogram::quantiles).collect())
                .collect()
        })
    }

    /// Adds one `what` of replica `r` at tick `t` to every window that
    /// holds `t`.
    pub(crate) fn count(&mut self, t: u64, r: usize, what: ReplicaCount) {
        for (w, &(from, to)) in self.bounds.iter().enumerate() {
            if from <= t && t <= to {
                let c = &mut self.counts[w][r];
                match what {
                    ReplicaCount::Call => c.calls += 1,
                    ReplicaCount::Served => c.served += 1,
                    ReplicaCount::Failed => c.failed += 1,
                    ReplicaCount::Refused => c.refused += 1,
                    ReplicaCount::AnsweredOk => c.answered_ok += 1,
                }
            }
        }
    }

    /// The counts, `[window][replica]`.
    pub(crate) fn counts(&self) -> &[Vec<ReplicaWindow>] {
        &self.counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two overlapping windows, 1..=10 and 5..=20, two replicas: a call
    /// at tick 7 is in both, one at tick 3 in the first alone, one at
    /// tick 30 in neither (hand-counted).
    #[test]
    fn a_count_goes_to_every_window_that_holds_its_tick() {
        let mut w = ReplicaWindows::new(&[(1, 10), (5, 20)], 2);
        w.count(7, 1, ReplicaCount::Call);
        w.count(3, 1, ReplicaCount::Call);
        w.count(30, 0, ReplicaCount::Call);
        w.count(7, 0, ReplicaCount::Refused);
        w.count(10, 0, ReplicaCount::Served);
        w.count(20, 1, ReplicaCount::Failed);
        let c = w.counts();
        assert_eq!(c[0][1].calls, 2);
        assert_eq!(c[1][1].calls, 1);
        assert_eq!(c[0][0].calls, 0);
        assert_eq!(c[1][0].calls, 0);
        assert_eq!((c[0][0].refused, c[1][0].refused), (1, 1));
        assert_eq!((c[0][0].served, c[1][0].served), (1, 1));
        assert_eq!((c[0][1].failed, c[1][1].failed), (0, 1));
    }

    /// Latency goes to the window of the answer's tick and the replica
    /// that served it, only when kept: samples 2 and 4 units at tick 7
    /// for replica 1 are in both windows (mean 3), 10 units at tick 15 in
    /// the second alone (mean of 2, 4, 10 is 16/3), and nothing at all is
    /// recorded before `keep_latency`.
    #[test]
    fn latency_goes_to_the_windows_of_its_answer() {
        let mut w = ReplicaWindows::new(&[(1, 10), (5, 20)], 2);
        w.latency(7, 1, Duration::from_units(1000));
        assert!(w.quantiles().is_empty());
        w.keep_latency();
        w.latency(7, 1, Duration::from_units(2));
        w.latency(7, 1, Duration::from_units(4));
        w.latency(15, 1, Duration::from_units(10));
        let q = w.quantiles();
        assert_eq!((q[0][1].count, q[0][1].mean), (2, 3.0));
        assert_eq!(q[1][1].count, 3);
        assert!((q[1][1].mean - 16.0 / 3.0).abs() < 1e-12);
        assert_eq!((q[0][0].count, q[1][0].count), (0, 0));
    }
}
