//! [`ReplicaQueues`]: each replica's queue length, time-weighted, per
//! named window, for a report that reads one replica's queue
//! (`api[1].queue_mean`).
//!
//! A replica's queue is its own: the calls that wait for one of its
//! workers. Its length changes where the node's own queue gauge changes
//! (a call queues, takes a worker, is shed, leaves at a timeout, a
//! deadline or a cancellation), by the same step at the same instant, in
//! a [`Gauge`] of the same kind over the same windows. So a node's queue
//! is the sum of its replicas' at every instant, and the mean of the
//! node's queue over a window is the sum of its replicas' means. Kept
//! only when asked for ([`SimulationBuilder::replica_queue`]); a run
//! that keeps none pays one test per change of a queue.
//!
//! [`SimulationBuilder::replica_queue`]: crate::SimulationBuilder::replica_queue

use serde::Serialize;

use super::gauge::{Bins, Gauge};
use crate::time::Time;

/// One replica's queue over one named window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ReplicaQueue {
    /// Time-weighted mean length.
    pub mean: f64,
    /// Highest length.
    pub max: u64,
    /// Length at the window's end (after every change before it).
    pub end: u64,
}

/// Each replicated node's replicas' queue gauges.
#[derive(Debug, Clone)]
pub(crate) struct ReplicaQueues {
    /// `[node][replica]`: empty for a node without `replicas`.
    gauges: Vec<Vec<Gauge>>,
    windows: usize,
}

impl ReplicaQueues {
    /// Gauges for `replicas[n]` replicas of node `n` (0 for a node without
    /// `replicas`) over `start..end`, with named windows `windows`
    /// (`from..to`, end excluded).
    pub(crate) fn new(
        replicas: &[usize],
        start: Time,
        end: Time,
        windows: &[(Time, Time)],
    ) -> Self {
        // One bin over the whole run, which no one reads: the window
        // levels are exact either way (as the node's gauges without bins).
        let bins = Bins::new(start, end, end.since(start));
        ReplicaQueues {
            gauges: replicas
                .iter()
                .map(|&n| vec![Gauge::new(bins, windows); n])
                .collect(),
            windows: windows.len(),
        }
    }

    /// The queue of replica `r` of `node` changes by `delta` at `now`.
    pub(crate) fn add(&mut self, node: usize, r: usize, now: Time, delta: i64) {
        if let Some(g) = self.gauges.get_mut(node).and_then(|g| g.get_mut(r)) {
            g.add(now, delta);
        }
    }

    /// Each node's queues per window and replica (`[node][window][replica]`,
    /// empty for a node without `replicas`), levels counted up to `end`.
    pub(crate) fn finish(mut self, end: Time) -> Vec<Vec<Vec<ReplicaQueue>>> {
        let windows = self.windows;
        self.gauges
            .iter_mut()
            .map(|node| {
                node.iter_mut().for_each(|g| g.hold_until(end));
                if node.is_empty() {
                    return Vec::new();
                }
                (0..windows)
                    .map(|w| {
                        node.iter()
                            .map(|g| ReplicaQueue {
                                mean: g.window_mean(w),
                                max: g.window_max(w),
                                end: g.window_end(w),
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replica 1 of node 0 holds 2 calls over 10..20 and 1 over 20..30 of
    /// a window 0..40: mean (2 x 10 + 1 x 10) / 40 = 0.75, highest 2, 0 at
    /// its end; replica 0 holds none; node 1 has no replicas (hand-worked).
    #[test]
    fn a_replicas_queue_is_time_weighted_over_its_windows() {
        let t = Time::from_units;
        let mut q = ReplicaQueues::new(&[2, 0], t(0), t(40), &[(t(0), t(40))]);
        q.add(0, 1, t(10), 2);
        q.add(0, 1, t(20), -1);
        q.add(0, 1, t(30), -1);
        q.add(1, 0, t(5), 1);
        let out = q.finish(t(40));
        assert_eq!(out[0][0][1].mean, 0.75);
        assert_eq!((out[0][0][1].max, out[0][0][1].end), (2, 0));
        assert_eq!(out[0][0][0], ReplicaQueue::default());
        assert!(out[1].is_empty());
    }
}
