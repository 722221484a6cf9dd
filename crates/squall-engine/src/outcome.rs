//! What a call comes back with, and whether it is worth another try.
//!
//! | answer                         | class                                   |
//! |--------------------------------|-----------------------------------------|
//! | 2xx                            | success                                 |
//! | refused for capacity           | retryable (an overload, like a 503)     |
//! | 429, 5xx                       | retryable                               |
//! | other 4xx                      | terminal: the same request fails again  |
//! | any other code (1xx, 3xx, 0x58)| unknown: retried with a low cap         |
//! | network error, timeout         | retryable for safe methods (GET, HEAD, OPTIONS) or requests with an idempotency key; terminal otherwise, since the server may have acted |
//! | body error                     | terminal: a bug on the caller's side    |
//! | circuit open                   | terminal: failing fast is the point     |

use squall_lang::{RequestSpec, ResponseSpec, RetryAfter};

/// Why a call failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailKind {
    /// The node had no capacity left this tick.
    Refused,
    /// A non-2xx status.
    Status(u32),
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
    /// The caller's circuit breaker is open; the call was not sent.
    CircuitOpen {
        /// Ticks until the breaker lets a probe through.
        remaining: u64,
    },
}

/// A failed call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Failure {
    /// Why.
    pub kind: FailKind,
    /// The server's Retry-After, as the tick before which it asks for no
    /// retry.
    pub not_before: Option<u64>,
}

/// A call's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Success.
    Ok,
    /// Failure.
    Fail(Failure),
}

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
        FailKind::Body | FailKind::CircuitOpen { .. } => Class::Terminal,
    }
}

/// Whether a circuit breaker counts the answer as a failure of the
/// dependency: anything but success, a client error (4xx other than 429)
/// and a body error (the caller's own fault).
pub fn counts_against_dependency(answer: Answer) -> bool {
    match answer {
        Answer::Ok => false,
        Answer::Fail(f) => match f.kind {
            FailKind::Status(s) if (400..=499).contains(&s) && s != 429 => false,
            FailKind::Body => false,
            _ => true,
        },
    }
}

/// The answer a scripted response gives at tick `now`.
pub fn answer_of(response: &ResponseSpec, now: u64) -> Answer {
    let fail = |kind| {
        Answer::Fail(Failure {
            kind,
            not_before: None,
        })
    };
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

/// Words for an answer, as reports print it.
pub fn describe(answer: Answer, tick_unit: &str) -> String {
    match answer {
        Answer::Ok => "success".into(),
        Answer::Fail(f) => match f.kind {
            FailKind::Refused => "refused (no capacity)".into(),
            FailKind::Status(s) if (100..=599).contains(&s) => format!("http {s}"),
            FailKind::Status(s) => format!("code {s:#x}"),
            FailKind::Network => "network error".into(),
            FailKind::Timeout => "timeout".into(),
            FailKind::Body => "body error".into(),
            FailKind::Incomplete => "incomplete response".into(),
            FailKind::Overflow => "refused (queue full)".into(),
            FailKind::QueueTimeout => "queue timeout".into(),
            FailKind::Deadline => "deadline exceeded".into(),
            FailKind::CircuitOpen { remaining } => {
                format!("circuit open ({remaining} {tick_unit} left)")
            }
        },
    }
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

    #[test]
    fn breaker_counting() {
        let f = |kind| {
            Answer::Fail(Failure {
                kind,
                not_before: None,
            })
        };
        assert!(counts_against_dependency(f(FailKind::Status(503))));
        assert!(counts_against_dependency(f(FailKind::Status(429))));
        assert!(!counts_against_dependency(f(FailKind::Status(404))));
        assert!(counts_against_dependency(f(FailKind::Timeout)));
        assert!(!counts_against_dependency(Answer::Ok));
    }
}
