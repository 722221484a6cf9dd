//! What a call comes back with: an [`Answer`], success or a [`Failure`]
//! of some [`FailKind`].
//!
//! A 2xx status is success; everything else fails: another status, a node
//! with no capacity left (refused), a network error, a timeout, a body that
//! cannot be read, a composite response that cannot be assembled, or a
//! breaker or throttle that does not send the call. A failure may carry the server's
//! Retry-After as an absolute tick ([`answer_of`]). Whether a failure is
//! worth another try is the retry policy's business
//! ([`crate::policy::retry::classify`]); what a breaker counts, the
//! breaker's ([`crate::policy::breaker::counts_against_dependency`]). The
//! engine holds answers as data; reports put them into words.

use serde::Serialize;
use squall_lang::{ResponseSpec, RetryAfter};

/// Why a call failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum FailKind {
    /// The node had no capacity left this tick.
    Refused,
    /// A non-2xx status.
    Status(u32),
    /// An optimistic-concurrency write that lost the race (another write
    /// committed since it read the item), answered with this status (409
    /// by default): retryable whatever the status, since a retry is the
    /// client's read and write again (`server/versioned.rs`).
    Conflict(u32),
    /// The connection failed.
    Network,
    /// No answer in time.
    Timeout,
    /// The body could not be read.
    Body,
    /// A composite response could not be assembled under its policy.
    Incomplete,
    /// Every worker was busy and the queue full.
    Overflow,
    /// The call waited in the queue longer than the queue timeout.
    QueueTimeout,
    /// The request's deadline had passed.
    Deadline,
    /// A work queue's message failed its last receive and moved to the
    /// dead-letter queue.
    DeadLettered,
    /// The caller's adaptive concurrency limiter had as many tries in
    /// flight as its limit; the try was not sent (`policy/limiter`).
    Limited,
    /// The caller's circuit breaker is open; the call was not sent.
    CircuitOpen {
        /// Ticks until the breaker lets a probe through.
        remaining: u64,
    },
    /// The caller's client-side throttle rejected the try locally; it was
    /// not sent (`policy/throttle.rs`).
    Throttled,
}

/// A failed call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// Why.
    pub kind: FailKind,
    /// The server's Retry-After, as the tick before which it asks for no
    /// retry.
    pub not_before: Option<u64>,
}

/// A call's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Answer {
    /// Success.
    Ok,
    /// Failure.
    Fail(Failure),
}

/// A failure of `kind` with no Retry-After.
pub(crate) const fn fail(kind: FailKind) -> Answer {
    Answer::Fail(Failure {
        kind,
        not_before: None,
    })
}

/// The answer a scripted response gives at tick `now`.
pub fn answer_of(response: &ResponseSpec, now: u64) -> Answer {
    match response {
        ResponseSpec::Status { code, retry_after } => {
            if (200..=299).contains(code) {
                return Answer::Ok;
            }
            let not_before = retry_after.map(|ra| match ra {
                RetryAfter::Delay(d) => now.saturating_add(d),
                RetryAfter::At(t) => t,
            });
            Answer::Fail(Failure {
                kind: FailKind::Status(*code),
                not_before,
            })
        }
        ResponseSpec::NetworkError => fail(FailKind::Network),
        ResponseSpec::Timeout => fail(FailKind::Timeout),
        ResponseSpec::BodyError => fail(FailKind::Body),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn retry_after_becomes_a_tick() {
        let r = ResponseSpec::Status {
            code: 429,
            retry_after: Some(RetryAfter::Delay(2000)),
        };
        assert_eq!(
            answer_of(&r, 500),
            Answer::Fail(Failure {
                kind: FailKind::Status(429),
                not_before: Some(2500)
            })
        );
        let r = ResponseSpec::Status {
            code: 200,
            retry_after: None,
        };
        assert_eq!(answer_of(&r, 0), Answer::Ok);
    }
}
