//! [`Accounting`]: where every request ended up.
//!
//! Each request that enters from a source ends in exactly one place:
//! completed (its entry node answered success), dropped (its entry node
//! failed after its last try) or still in flight when the run ended
//! (waiting for a retry, or with its next try after the last tick). A run
//! balances when the three add up to the requests that entered.

use serde::Serialize;

/// Where every request ended up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct Accounting {
    /// Requests that entered from sources.
    pub entered: u64,
    /// Requests answered with success.
    pub completed: u64,
    /// Requests that failed after their last try.
    pub dropped: u64,
    /// Requests still waiting (for a retry) when the run ended.
    pub in_flight: u64,
}

impl Accounting {
    /// True when every request is accounted for.
    pub fn balances(&self) -> bool {
        self.entered == self.completed + self.dropped + self.in_flight
    }
}
