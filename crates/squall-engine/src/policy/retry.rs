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
//!
//! A policy with a `pushback` reads the server's Retry-After as its library
//! does instead ([`squall_lang::Pushback`], [`super::backoff::pushback`]):
//!
//! * `grpc`: the retry waits exactly until the Retry-After (no draw), and
//!   the backoff's retries are counted again from the first
//!   (`grpc-retry-pushback-ms`: "the next computed backoff starts again at
//!   initialBackoff");
//! * `retry_after` (Envoy): an interval `i` of at most `max_interval` gives
//!   a wait drawn from `[i, 1.5 i)` (one draw, from the backoff's
//!   generator, in place of the backoff's own); the backoff's count does
//!   not advance (Envoy leaves its exponential strategy untouched); a
//!   longer interval, or none, leaves the wait to the backoff.
//!
//! The backoff is asked for retry `n = tries - skip`, where `skip` counts
//! what pushback took out of its sequence ([`RetryLoop::skip`]).

use squall_lang::{RequestSpec, RetrySpec};

use crate::outcome::{FailKind, Failure};
use crate::rng::Generator;

use squall_lang::{Backoff, Pushback};

use super::backoff::{pushback, sample_wait};
use super::budget::{Budget, Grant, Load};
use super::gate::RetryGate;

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
        // Refused by the caller's own limiter: the library's client sees
        // it as `UNAVAILABLE` (Netflix's gRPC interceptor) or a 503 local
        // reply (Envoy), both retryable.
        FailKind::Limited => Class::Retryable,
        FailKind::Deadline => Class::Terminal,
        FailKind::Status(429) | FailKind::Conflict(_) => Class::Retryable,
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
        // A try the caller's own throttle rejected ends the request as an
        // open breaker's does (`policy/throttle.rs`).
        FailKind::Throttled => Class::Terminal,
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
    /// Retries the backoff does not count: the backoff is asked for retry
    /// `tries - skip` (0 without a pushback).
    pub skip: u32,
}

/// The wait before the next try after `failure` at tick `now` \[ticks\], or
/// `None` when the service makes no more tries. `generators` are the run's
/// named generators, then its default one; a jittered backoff draws from
/// the one it names (the default when it names none).
#[inline]
pub fn next_wait(
    policy: &RetrySpec,
    request: &RequestSpec,
    failure: Failure,
    now: u64,
    state: &mut RetryLoop,
    generators: &mut [Generator],
) -> Option<u64> {
    if let Some(wait) = fixed_short_way(policy) {
        let next = fixed_wait(policy, request, failure, now, state.tries, wait);
        if next.is_some() {
            state.previous = Some(wait);
        }
        return next;
    }
    next_wait_gated(policy, request, failure, now, state, generators, || true)
}

/// The wait of `policy`'s `fixed` backoff when [`next_wait`] takes its
/// short way with it (no pushback, no deadline: [`fixed_wait`]), so that
/// a caller can tell whether it will.
#[inline(always)]
pub fn fixed_short_way(policy: &RetrySpec) -> Option<u64> {
    match policy.backoff {
        Backoff::Fixed { wait } if policy.pushback.is_none() && policy.deadline.is_none() => {
            Some(wait)
        }
        _ => None,
    }
}

/// [`next_wait_gated`]'s rule, ungated, for a `fixed` backoff of `wait`
/// without pushback or deadline ([`fixed_short_way`]) after `tries` tries:
/// the steps that apply to it alone (no generator to pick and nothing to
/// draw, no pushback, no deadline to check), so a plain retry storm's
/// decision pays for none of them (issue 23); the loop's previous wait
/// becomes `wait` when it gives one ([`next_wait`]; a caller whose loop
/// keeps no previous wait asks here). `tests::fixed_wait_is_the_general_rule`
/// holds the two to the same answers.
#[inline(always)]
pub fn fixed_wait(
    policy: &RetrySpec,
    request: &RequestSpec,
    failure: Failure,
    now: u64,
    tries: u32,
    wait: u64,
) -> Option<u64> {
    if tries >= try_limit(policy, failure, request)? {
        return None;
    }
    let after = failure.not_before.map(|nb| nb.saturating_sub(now));
    Some(honoured(wait, after, policy.honor_retry_after))
}

/// A backoff's `wait`, or the answer's Retry-After (`after`, from now)
/// when it is later and the policy `honour`s it: the one rule both ways of
/// [`next_wait`] follow.
#[inline(always)]
fn honoured(wait: u64, after: Option<u64>, honour: bool) -> u64 {
    match after {
        Some(a) if honour => wait.max(a),
        _ => wait,
    }
}

/// The tries `policy` allows after `failure` of `request` (by its
/// class), or `None` for a terminal failure.
#[inline(always)]
fn try_limit(policy: &RetrySpec, failure: Failure, request: &RequestSpec) -> Option<u32> {
    match classify(failure.kind, request) {
        Class::Retryable => Some(policy.attempts),
        Class::Unknown => Some(policy.attempts.min(policy.unknown_attempts)),
        Class::Terminal => None,
    }
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
    if state.tries >= try_limit(policy, failure, request)? {
        return None;
    }
    if !gate() {
        return None;
    }
    let g = policy
        .backoff
        .rng()
        .unwrap_or(generators.len().saturating_sub(1));
    let after = failure.not_before.map(|nb| nb.saturating_sub(now));
    let pushed = match (policy.pushback, after) {
        (Some(Pushback::Grpc), Some(exact)) => {
            state.skip = state.tries;
            Some(exact)
        }
        (Some(Pushback::RetryAfter { max_interval }), Some(interval))
            if interval <= max_interval =>
        {
            let r = generators[g].next_f64();
            state.skip += 1;
            pushback::envoy_rate_limited(Some(interval), max_interval, r)
        }
        _ => None,
    };
    let wait = match pushed {
        Some(w) => w,
        None => {
            let n = state.tries.saturating_sub(state.skip).max(1);
            let w = sample_wait(&policy.backoff, n, &mut generators[g], &mut state.previous);
            honoured(
                w,
                after,
                policy.honor_retry_after && policy.pushback.is_none(),
            )
        }
    };
    if let Some(d) = policy.deadline {
        if now.saturating_add(wait).saturating_sub(state.started) > d {
            return None;
        }
    }
    Some(wait)
}

/// What a retry budget (or gate) said to the retry [`budgeted_next_wait`]
/// asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetSaid {
    /// The policy made no more tries, or no budget was there to ask.
    NotAsked,
    /// The retry was granted at this cost (`Grant`).
    Granted(Grant),
    /// The budget, or the retry gate, refused the retry.
    Refused,
}

/// [`next_wait_gated`] with `budget` and the retry `gate` as the gate, the
/// one rule both engine paths follow: a retryable (or unknown) failure is
/// told to the budget and the gate first (gRPC takes its token, the gate
/// counts the failure, even when no try is left); then, for the retry the
/// policy would make, the gate reads its ratio under the policy's `gate`
/// threshold ([`super::gate::RetryGate::allows`]) and only a retry it
/// allows is asked of the budget, which grants or refuses it with `load`
/// in flight. The caller records the grant or counts the refusal.
#[allow(clippy::too_many_arguments)]
pub fn budgeted_next_wait(
    policy: &RetrySpec,
    request: &RequestSpec,
    failure: Failure,
    now: u64,
    state: &mut RetryLoop,
    generators: &mut [Generator],
    mut budget: Option<&mut Budget>,
    mut gate: Option<&mut RetryGate>,
    load: Load,
) -> (Option<u64>, BudgetSaid) {
    if classify(failure.kind, request) != Class::Terminal {
        if let Some(b) = budget.as_deref_mut() {
            b.on_failure();
        }
        if let Some(g) = gate.as_deref_mut() {
            g.on_failure(now);
        }
    }
    let timeout = matches!(failure.kind, FailKind::Timeout | FailKind::Network);
    let mut said = BudgetSaid::NotAsked;
    let wait = next_wait_gated(policy, request, failure, now, state, generators, || {
        if let (Some(g), Some(max_rate)) = (gate, policy.gate) {
            if !g.allows(max_rate) {
                said = BudgetSaid::Refused;
                return false;
            }
        }
        let Some(budget) = budget else {
            return true;
        };
        said = match budget.try_retry(now, timeout, load) {
            Some(g) => BudgetSaid::Granted(g),
            None => BudgetSaid::Refused,
        };
        matches!(said, BudgetSaid::Granted(_))
    });
    (wait, said)
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

    /// `next_wait`'s short way for a `fixed` backoff without pushback or
    /// deadline gives what the general rule gives, answer and loop state,
    /// for every class of failure, try count, Retry-After (before, at and
    /// after the wait) and honouring or not. By hand, wait 4 at tick 100,
    /// 3 attempts (2 for an unknown status): a 503 after 1 or 2 tries
    /// waits 4, after 3 none; a 404 none; a Retry-After at 107 waits 7
    /// when honoured, 4 when not; status 0x58 (unknown) waits after 1
    /// try, not after 2.
    #[test]
    fn fixed_wait_is_the_general_rule() {
        let (now, wait) = (100, 4);
        let kinds = [
            FailKind::Status(503),
            FailKind::Status(404),
            FailKind::Status(0x58),
            FailKind::Refused,
            FailKind::Timeout,
        ];
        let mut by_hand = Vec::new();
        for honor in [false, true] {
            let mut policy = RetrySpec::new(3, squall_lang::Backoff::Fixed { wait });
            policy.unknown_attempts = 2;
            policy.honor_retry_after = honor;
            for request in [req(Method::Get, false), req(Method::Post, false)] {
                for kind in kinds {
                    for not_before in [None, Some(90), Some(104), Some(107)] {
                        for tries in 1..=4 {
                            let f = Failure { kind, not_before };
                            let start = RetryLoop {
                                tries,
                                started: 0,
                                previous: None,
                                skip: 0,
                            };
                            let (mut fast, mut general) = (start, start);
                            let mut gens = vec![Generator::default_for(1)];
                            let a = next_wait(&policy, &request, f, now, &mut fast, &mut gens);
                            let b = next_wait_gated(
                                &policy,
                                &request,
                                f,
                                now,
                                &mut general,
                                &mut gens,
                                || true,
                            );
                            assert_eq!((a, fast), (b, general), "{kind:?} {not_before:?} {tries}");
                            if request.method == Method::Get {
                                by_hand.push(((honor, kind, not_before, tries), a));
                            }
                        }
                    }
                }
            }
        }
        let answer = |key| by_hand.iter().find(|(k, _)| *k == key).map(|(_, a)| *a);
        let s503 = FailKind::Status(503);
        assert_eq!(answer((false, s503, None, 1)), Some(Some(4)));
        assert_eq!(answer((false, s503, None, 2)), Some(Some(4)));
        assert_eq!(answer((false, s503, None, 3)), Some(None));
        assert_eq!(answer((false, FailKind::Status(404), None, 1)), Some(None));
        assert_eq!(answer((true, s503, Some(107), 1)), Some(Some(7)));
        assert_eq!(answer((false, s503, Some(107), 1)), Some(Some(4)));
        assert_eq!(answer((true, s503, Some(90), 1)), Some(Some(4)));
        assert_eq!(
            answer((false, FailKind::Status(0x58), None, 1)),
            Some(Some(4))
        );
        assert_eq!(answer((false, FailKind::Status(0x58), None, 2)), Some(None));
    }

    fn with_pushback(backoff: squall_lang::Backoff, pushback: Pushback) -> RetrySpec {
        let mut p = RetrySpec::new(4, backoff);
        p.pushback = Some(pushback);
        p
    }

    fn failure(not_before: Option<u64>) -> Failure {
        Failure {
            kind: FailKind::Status(503),
            not_before,
        }
    }

    #[test]
    fn grpc_pushback_waits_exactly_and_restarts_the_backoff() {
        use squall_lang::{Backoff, LibraryBackoff};
        // initial 100, x2, max 10 000. A pushback of 250 at tick 1000
        // after the first try: the retry waits exactly 250, draws nothing.
        // The next failure (2 tries made) has no pushback: without the
        // reset it would be retry 2 (bound 200); after it, retry 1 (100).
        let b = Backoff::Library(LibraryBackoff::Grpc {
            initial: 100,
            max: 10_000,
            multiplier: 2.0,
        });
        let policy = with_pushback(b, Pushback::Grpc);
        let get = req(Method::Get, false);
        let mut gens = vec![Generator::default_for(3)];
        let mut copy = Generator::default_for(3);
        let mut state = RetryLoop {
            tries: 1,
            started: 0,
            previous: None,
            skip: 0,
        };
        let w = next_wait(
            &policy,
            &get,
            failure(Some(1250)),
            1000,
            &mut state,
            &mut gens,
        );
        assert_eq!(w, Some(250));
        assert_eq!(state.skip, 1);
        state.tries = 2;
        let w = next_wait(&policy, &get, failure(None), 2000, &mut state, &mut gens);
        let r = copy.next_f64();
        assert_eq!(w, Some((100.0 * (0.8 + 0.4 * r)).round() as u64));
    }

    #[test]
    fn envoy_retry_after_draws_in_its_range_and_leaves_the_backoff_count() {
        use squall_lang::{Backoff, LibraryBackoff};
        // Envoy's code backoff, base 25, max 250; max_interval 300 000.
        // Retry-After 10 000: the wait is 10 000 + floor(r x 5000). The
        // next retry without a header is the backoff's first (bound 25),
        // not its second: floor(r' x 25).
        let b = Backoff::Library(LibraryBackoff::Envoy {
            base: 25,
            max: 250,
            docs: false,
        });
        let policy = with_pushback(
            b,
            Pushback::RetryAfter {
                max_interval: 300_000,
            },
        );
        let get = req(Method::Get, false);
        let mut gens = vec![Generator::default_for(5)];
        let mut copy = Generator::default_for(5);
        let mut state = RetryLoop {
            tries: 1,
            started: 0,
            previous: None,
            skip: 0,
        };
        let w = next_wait(
            &policy,
            &get,
            failure(Some(10_000)),
            0,
            &mut state,
            &mut gens,
        );
        let r = copy.next_f64();
        assert_eq!(w, Some(10_000 + (r * 5000.0) as u64));
        state.tries = 2;
        let w = next_wait(&policy, &get, failure(None), 20_000, &mut state, &mut gens);
        let r = copy.next_f64();
        assert_eq!(w, Some((r * 25.0) as u64));
        // A Retry-After over max_interval is ignored: the backoff's
        // retry 2 (bound 50), no lower bound from the header.
        state.tries = 3;
        let w = next_wait(
            &policy,
            &get,
            failure(Some(400_000)),
            0,
            &mut state,
            &mut gens,
        );
        let r = copy.next_f64();
        assert_eq!(w, Some((r * 50.0) as u64));
    }
}
