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
//! `failed` where it counts its answer. Windows are few; a count looks at
//! each window's bounds.

use serde::Serialize;

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
}

/// A replicated node's counts per named window and replica.
#[derive(Debug, Clone)]
pub(crate) struct ReplicaWindows {
    /// Window bounds (first tick, last tick), inclusive.
    bounds: Vec<(u64, u64)>,
    /// `[window][replica]`.
    counts: Vec<Vec<ReplicaWindow>>,
}

impl ReplicaWindows {
    /// Counts of `replicas` replicas in windows with these bounds.
    pub(crate) fn new(bounds: &[(u64, u64)], replicas: usize) -> Self {
        ReplicaWindows {
            bounds: bounds.to_vec(),
            counts: vec![vec![ReplicaWindow::default(); replicas]; bounds.len()],
        }
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
}
