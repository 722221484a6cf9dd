//! [`Keep`]: which of the request slab's optional arrays a run keeps.
//!
//! The slab ([`Requests`](super::requests::Requests)) keeps an array per
//! request and path position only when the model reads it, so a plain
//! retry storm pays for tries and last ticks, not for breakers, budgets,
//! deadlines, jitter memory or pushback it does not have.

use squall_lang::{Backoff, LibraryBackoff, RetrySpec};

/// Which of the optional arrays a run keeps: each is read and written only
/// where the model has what it is for.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Keep {
    /// A node has a breaker: the admission arrays (`sent_at`, `admitted`,
    /// `admitted_epoch`).
    pub(super) breakers: bool,
    /// A node has a retry budget: `grant`.
    pub(super) budgets: bool,
    /// A retry policy has a deadline: `started`.
    pub(super) deadlines: bool,
    /// A backoff reads the previous wait: `prev_wait`.
    pub(super) previous: bool,
    /// A retry policy has a pushback: `skip`.
    pub(super) pushback: bool,
    /// The run keeps a call log: `id`.
    pub(super) ids: bool,
    /// A source stands for clients, or the run takes time (a closed loop
    /// names its client): `client`.
    pub(super) clients: bool,
    /// A source is sequential: a new request's entry tries are cleared
    /// (an operation's record reads them, even when the entry answered
    /// by itself).
    pub(super) operations: bool,
}

impl Keep {
    /// What the retry loops of `policies` read.
    pub(super) fn retries<'p>(mut self, policies: impl Iterator<Item = &'p RetrySpec>) -> Self {
        for p in policies {
            self.deadlines |= p.deadline.is_some();
            self.pushback |= p.pushback.is_some();
            self.previous |= matches!(
                p.backoff,
                Backoff::Decorrelated { .. } | Backoff::Library(LibraryBackoff::Polly { .. })
            );
        }
        self
    }
}
