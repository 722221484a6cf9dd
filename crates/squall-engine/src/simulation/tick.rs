//! [`TickCounts`]: the zero-time path's per-node counters of the tick
//! being run.
//!
//! The walk down a path and back up counts every call, distinct id,
//! refusal and answer at the node it reaches. Counted straight into the
//! node's series (`obs.nodes[node].calls[t]`, `.unique[t]`, ...), each
//! count paid a bounds check of the node, and a load of the series'
//! pointer and length and a bounds check of the tick, per counter. A
//! round model's calls come in tick order (its events do, and a call is
//! answered in the tick it is made), so the counts of the current tick are
//! kept here instead, one small record per node found with one bounds
//! check, and added to the series once, when the run's loop moves to a
//! later tick or ends (issue 23: the round benchmark's walk).

use crate::observe::series::NodeSeries;

/// One node's counts in the current tick.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct NodeTick {
    /// Calls the node saw.
    pub(super) calls: u32,
    /// Request ids it had not seen earlier in the tick.
    pub(super) unique: u32,
    /// Calls refused by its capacity.
    pub(super) refused: u32,
    /// Calls it answered with success.
    pub(super) ok: u32,
    /// Calls it answered with failure.
    pub(super) failed: u32,
}

/// The counts of every node in tick `tick`, not yet in the series.
#[derive(Debug, Clone, Default)]
pub(super) struct TickCounts {
    /// The tick counted.
    pub(super) tick: u64,
    /// Per node.
    pub(super) nodes: Vec<NodeTick>,
}

impl TickCounts {
    /// Counters for `nodes` nodes, at tick 0.
    pub(super) fn new(nodes: usize) -> Self {
        TickCounts {
            tick: 0,
            nodes: vec![NodeTick::default(); nodes],
        }
    }

    /// Adds the counts to `series` (per node, slot `tick`: the zero-time
    /// path's series are per tick), clears them and moves to tick `next`.
    #[cold]
    pub(super) fn flush(&mut self, series: &mut [NodeSeries], next: u64) {
        let i = self.tick as usize;
        for (c, s) in self.nodes.iter_mut().zip(series) {
            if c.calls | c.ok | c.failed | c.refused != 0 {
                s.calls[i] += c.calls;
                s.unique[i] += c.unique;
                s.refused[i] += c.refused;
                s.ok[i] += c.ok;
                s.failed[i] += c.failed;
                *c = NodeTick::default();
            }
        }
        self.tick = next;
    }
}
