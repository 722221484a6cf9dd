//! Per-node run-time state: capacity left in the current tick, faults,
//! breakers, script positions and the ledger.

use crate::breaker::Breaker;

/// Per-node run-time state.
#[derive(Debug, Clone)]
pub(super) struct NodeState {
    /// The tick `left` refers to.
    pub(super) tick: u64,
    /// Capacity left in that tick.
    pub(super) left: u64,
    /// Base capacity.
    pub(super) capacity: Option<u64>,
    /// Capacity faults on this node: (from, to, capacity, fault index), in
    /// declaration order.
    pub(super) faults: Vec<(u64, u64, u64, usize)>,
    /// Failing faults on this node: (from, to, fault index).
    pub(super) failing: Vec<(u64, u64, usize)>,
    /// The breakers on its downstream calls: one, or one per request path
    /// (indexed like [`Kind::scope`](super::Kind::scope)).
    pub(super) breakers: Vec<Breaker>,
    /// Calls each scripted route has answered.
    pub(super) route_calls: Vec<u64>,
    /// Each route's current script step and the calls it has answered.
    pub(super) route_steps: Vec<(usize, u64)>,
    /// Tick of each composite field's last fresh value (the ledger).
    pub(super) ledger: Vec<u64>,
}

impl NodeState {
    /// Takes one unit of capacity at tick `t`; false when none is left.
    #[inline]
    pub(super) fn take(&mut self, t: u64, faults: &[squall_lang::FaultSpec]) -> bool {
        if self.tick != t {
            self.tick = t;
            let mut cap = self.capacity;
            for &(from, to, c, k) in &self.faults {
                if from <= t && t <= to && faults[k].periodic.is_none_or(|p| p.strikes(t, 0)) {
                    cap = Some(c);
                }
            }
            self.left = cap.unwrap_or(u64::MAX);
        }
        if self.left == 0 {
            return false;
        }
        self.left -= 1;
        true
    }
}
