//! [`Capacity`]: how many calls a node serves per tick.
//!
//! A node's capacity is a number of calls per tick (none: unlimited). A
//! capacity fault replaces it while it is active (the last declared active
//! one wins; a periodic fault only at the ticks it strikes). The count of
//! calls left is reset at the first call of each tick, so a tick nobody
//! calls costs nothing.

use squall_lang::{FaultSpec, Model};

use crate::time::NEVER;

/// A node's capacity and what is left of it in the current tick.
#[derive(Debug, Clone)]
pub(crate) struct Capacity {
    /// The tick `left` refers to.
    tick: u64,
    /// Calls left in that tick.
    left: u64,
    /// Base capacity \[calls/tick\]; `None`: unlimited.
    base: Option<u64>,
    /// Capacity faults on this node: (capacity, fault index), in
    /// declaration order (each in force by the rule every fault follows:
    /// [`FaultSpec::in_force`](squall_lang::FaultSpec::in_force)).
    faults: Vec<(u64, usize)>,
}

impl Capacity {
    /// The capacity of replica `replica` of node `node` of `model` (each
    /// replica has its own window), none of it used yet.
    pub(crate) fn new(model: &Model, node: usize, replica: usize) -> Self {
        Capacity {
            tick: NEVER,
            left: 0,
            base: model.nodes[node].capacity,
            faults: model
                .faults
                .iter()
                .enumerate()
                .filter(|(_, f)| f.node == node && f.strikes_replica(replica))
                .filter_map(|(k, f)| f.capacity.map(|c| (c, k)))
                .collect(),
        }
    }

    /// No capacity of its own and no capacity fault: every call is taken.
    pub(crate) fn unlimited(&self) -> bool {
        self.base.is_none() && self.faults.is_empty()
    }

    /// Takes one unit of capacity at tick `t`; false when none is left.
    #[inline]
    pub(crate) fn take(&mut self, t: u64, faults: &[FaultSpec]) -> bool {
        if self.tick != t {
            self.start_tick(t, faults);
        }
        if self.left == 0 {
            return false;
        }
        self.left -= 1;
        true
    }

    /// The first call of tick `t`: the capacity in force then, none of it
    /// used. Out of line: it runs once a tick, and in line its loop over
    /// the capacity faults took registers from the walk down a path
    /// around every call (issue 23).
    #[inline(never)]
    fn start_tick(&mut self, t: u64, faults: &[FaultSpec]) {
        self.tick = t;
        let mut cap = self.base;
        for &(c, k) in &self.faults {
            if faults[k].in_force(t) {
                cap = Some(c);
            }
        }
        self.left = cap.unwrap_or(u64::MAX);
    }
}
