//! Retry: whether a failed call is worth another try, and when.
//!
//! A failure is first classified ([`classify`]):
//!
//! | answer                         | class                                   |
//! |--------------------------------|-----------------------------------------|
//! | refused for capacity           | retryable (an overload, like a 503)     |
//! | 429, 5xx                       | retryable                               |
//! | other 4xx                      | terminal: the same request fails again  |
//! | any other code (1xx, 3xx, 0x58)| unknown: retried with a low cap         |
//! | network error, timeout         | retryable for safe methods (GET, HEAD, OPTIONS) or requests with an idempotency key; terminal otherwise, since the server may have acted |
//! | body error                     | terminal: a bug on the caller's side    |
//! | incomplete composite response  | retryable                               |
//! | circuit open                   | terminal: failing fast is the point     |
//!
//! Then [`next_wait`] applies the policy ([`RetrySpec`]): terminal failures
//! get no retry; retryable ones up to `attempts` tries, unknown ones up to
//! `min(attempts, unknown_attempts)`. The wait comes from the backoff
//! ([`crate::policy::backoff::sample_wait`]); a server's Retry-After is a
//! lower bound on it when the policy honours it; with a `deadline`, a retry
//! that would start more than the deadline after the service's first try is
//! not made. All times are ticks.

use squall_lang::{RequestSpec, RetrySpec};

use crate::outcome::{FailKind, Failure};
use crate::rng::Generator;

use super::backoff::sample_wait;

/// How a failure is treated by a retry policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Worth another try.
    Retryable,
    /// Another try gives the same answer (or does harm).
    Terminal,
    /// Not known: retried with the policy's `unknown_attempts` cap.
    Unknown,
}

/// Classifies a failure of `request`.
pub fn classify(kind: FailKind, request: &RequestSpec) -> Class {
    match kind {
        FailKind::Refused | FailKind::Incomplete => Class::Retryable,
        FailKind::Overflow | FailKind::QueueTimeout => Class::Retryable,
        FailKind::Deadline => Class::Terminal,
        FailKind::Status(429) => Class::Retryable,
        FailKind::Status(s) if (500..=599).contains(&s) => Class::Retryable,
        FailKind::Status(s) if (400..=499).contains(&s) => Class::Terminal,
        FailKind::Status(_) => Class::Unknown,
        FailKind::Network | FailKind::Timeout => {
            if request.method.is_safe() || request.key {
                Class::Retryable
            } else {
                Class::Terminal
            }
        }
        FailKind::Body | FailKind::CircuitOpen { .. } | FailKind::DeadLettered => Class::Terminal,
    }
}

/// Where one service's retry loop for one request stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryLoop {
    /// Tries made so far (1 after the first).
    pub tries: u32,
    /// Tick of the first try.
    pub started: u64,
    /// The wait before the previous retry (`None` before the first);
    /// updated whenever a wait is drawn.
    pub previous: Option<u64>,
}

/// The wait before the next try after `failure` at tick `now` \[ticks\], or
/// `None` when the service makes no more tries. `generators` are the run's
/// named generators, then its default one; a jittered backoff draws from
/// the one it names (the default when it names none).
pub fn next_wait(
    policy: &RetrySpec,
    request: &RequestSpec,
    failure: Failure,
    now: u64,
    state: &mut RetryLoop,
    generators: &mut [Generator],
) -> Option<u64> {
    next_wait_gated(policy, request, failure, now, state, generators, || true)
}

/// [`next_wait`] with a retry budget's say: once the class and the try
/// limit allow another try, `gate` is asked (a budget grants or refuses
/// it); only a granted retry draws its wait, so a refused one takes no
/// random number. A deadline is checked after the grant (the wait must be
/// known), as grpc-go checks its throttle before the delay.
pub fn next_wait_gated(
    policy: &RetrySpec,
    request: &RequestSpec,
    failure: Failure,
    now: u64,
    state: &mut RetryLoop,
    generators: &mut [Generator],
    gate: impl FnOnce() -> bool,
) -> Option<u64> {
    let limit = match classify(failure.kind, request) {
        Class::Retryable => policy.attempts,
        Class::Unknown => policy.attempts.min(policy.unknown_attempts),
        Class::Terminal => return None,
    };
    if state.tries >= limit {
        return None;
    }
    if !gate() {
        return None;
    }
    let g = policy
        .backoff
        .rng()
        .unwrap_or(generators.len().saturating_sub(1));
    let mut wait = sample_wait(
        &policy.backoff,
        state.tries,
        &mut generators[g],
        &mut state.previous,
    );
    if policy.honor_retry_after {
        if let Some(nb) = failure.not_before {
            wait = wait.max(nb.saturating_sub(now));
        }
    }
    if let Some(d) = policy.deadline {
        if now.saturating_add(wait).saturating_sub(state.started) > d {
            return None;
        }
    }
    Some(wait)
}

#[cfg(test)]
mod tests {
    use super::*;
    use squall_lang::Method;

    fn req(method: Method, key: bool) -> RequestSpec {
        RequestSpec {
            method,
            path: "/x".into(),
            key,
        }
    }

    #[test]
    fn classes() {
        let get = req(Method::Get, false);
        let post = req(Method::Post, false);
        let keyed = req(Method::Post, true);
        assert_eq!(classify(FailKind::Status(503), &post), Class::Retryable);
        assert_eq!(classify(FailKind::Status(429), &post), Class::Retryable);
        assert_eq!(classify(FailKind::Status(422), &get), Class::Terminal);
        assert_eq!(classify(FailKind::Status(404), &get), Class::Terminal);
        assert_eq!(classify(FailKind::Status(0x58), &get), Class::Unknown);
        assert_eq!(classify(FailKind::Network, &get), Class::Retryable);
        assert_eq!(classify(FailKind::Network, &post), Class::Terminal);
        assert_eq!(classify(FailKind::Network, &keyed), Class::Retryable);
        assert_eq!(
            classify(FailKind::Timeout, &req(Method::Head, false)),
            Class::Retryable
        );
        assert_eq!(classify(FailKind::Body, &get), Class::Terminal);
        assert_eq!(
            classify(FailKind::CircuitOpen { remaining: 5 }, &get),
            Class::Terminal
        );
        assert_eq!(classify(FailKind::Refused, &post), Class::Retryable);
    }
}
