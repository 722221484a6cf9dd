//! A retry policy: how many tries, which backoff between them, and the
//! deadline that bounds them.

use serde::Serialize;

use super::{Backoff, Pushback};

/// A retry policy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetrySpec {
    /// Tries, the first one included (at least 1).
    pub attempts: u32,
    /// The wait before each retry.
    pub backoff: Backoff,
    /// No retry starts later than this many ticks after the first try.
    pub deadline: Option<u64>,
    /// Whether a server's Retry-After is a lower bound on the wait.
    pub honor_retry_after: bool,
    /// Tries for an outcome of unknown class.
    pub unknown_attempts: u32,
    /// How a server's Retry-After is read instead of as a lower bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pushback: Option<Pushback>,
    /// A retry gate (`gate 10%`): the largest share of failed tries per
    /// request, as a fraction (0.1), under which the caller still retries
    /// (mbrooker's `retry_sim`, `CircuitBreakerRetryStrategy.max_rate`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<f64>,
    /// The gate's trailing window \[ticks\] (`gate 10% window 10s`);
    /// `None`: counts from the start of the run, as the source does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate_window: Option<u64>,
}

impl RetrySpec {
    /// A policy with defaults around `attempts` and `backoff`: Retry-After
    /// honoured, no deadline, 2 tries for unknown outcomes.
    pub fn new(attempts: u32, backoff: Backoff) -> Self {
        RetrySpec {
            attempts,
            backoff,
            deadline: None,
            honor_retry_after: true,
            unknown_attempts: 2,
            pushback: None,
            gate: None,
            gate_window: None,
        }
    }
}
