//! [`BreakerLog`]: when each circuit breaker of a node changed state, for
//! charts of breaker state over time.
//!
//! A node's breakers are its own (one, or one per request path) and, at
//! the entry node of a source with `clients N`, one per client after them.
//! Every change of state is one [`BreakerChange`] at the tick the breaker
//! made it, except that an open breaker's turn to half-open is dated at
//! the end of its cool-down (the first tick a call would go as a probe),
//! though the breaker makes it only when the next call asks. Breakers
//! start closed. A change is made by a call, so the log holds at most one
//! row per try, each breaker's in time order; the report turns it into the
//! time each bin spent in each state.

use serde::Serialize;

use crate::policy::breaker::State;

/// One change of state of one breaker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BreakerChange {
    /// The tick of the change \[ticks\].
    pub tick: u64,
    /// Which of the node's breakers (its own first, then the clients').
    pub breaker: u32,
    /// The state it left.
    pub from: State,
    /// The state it entered.
    pub to: State,
}

/// The changes of state of one node's breakers, in the order they happened.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BreakerLog {
    /// The node's own breakers (0 without a breaker).
    pub shared: u32,
    /// All its breakers: its own, then one per client of the sources
    /// that enter it.
    pub total: u32,
    /// Every change of state.
    pub changes: Vec<BreakerChange>,
}

impl BreakerLog {
    /// Notes that breaker `breaker` went from `from` to `to` at `tick`
    /// (nothing when the state is the same).
    #[inline]
    pub(crate) fn note(&mut self, tick: u64, breaker: usize, from: State, to: State) {
        if from != to {
            self.changes.push(BreakerChange {
                tick,
                breaker: breaker as u32,
                from,
                to,
            });
        }
    }
}
