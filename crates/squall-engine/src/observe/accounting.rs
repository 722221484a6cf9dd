//! [`Accounting`]: where every request ended up.
//!
//! Each request that enters from a source ends in exactly one place:
//! completed (its entry node answered success), dropped (its entry node
//! failed after its last try) or still in flight when the run ended
//! (waiting for a retry, or with its next try after the last tick). A run
//! balances when the three add up to the requests that entered.

use serde::Serialize;

use crate::outcome::Answer;

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

    /// The end of a request with `answer`, counted here and handed to
    /// `add` for the series (both paths of the run; each keeps its series
    /// its own way).
    #[inline(always)]
    pub(crate) fn count_end(&mut self, answer: Answer, mut add: impl FnMut(End)) {
        match answer {
            Answer::Ok => {
                add(End::Completed);
                self.completed += 1;
                add(End::FirstTry);
            }
            Answer::Fail(_) => {
                add(End::Dropped);
                self.dropped += 1;
            }
        }
    }
}

/// A count the end of a request adds to its tick's (or bin's) series.
pub(crate) enum End {
    /// It completed.
    Completed,
    /// It completed, and did so on its first try if nothing retried it
    /// (the caller checks).
    FirstTry,
    /// It was dropped.
    Dropped,
}
