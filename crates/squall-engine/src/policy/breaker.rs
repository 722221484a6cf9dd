//! The circuit breaker: closed, open, half-open.
//!
//! * **closed** — calls go through; consecutive failures are counted and a
//!   success resets the count. At `threshold` failures it opens.
//! * **open** — calls fail fast without being sent, with the remaining
//!   cool-down. Once `cooldown` ticks have passed since it opened, the next
//!   call finds it half-open.
//! * **half-open** — up to `probes` calls go through at once; the rest fail
//!   fast. A failed probe opens it again (the cool-down restarts); a
//!   successful one closes it and resets the count.
//!
//! What counts as a failure ([`counts_against_dependency`]): anything but
//! a success, a client error (4xx other than 429) and a body error, which
//! are the caller's own fault. An answer to a call sent before the breaker
//! last changed state changes nothing (see [`Breaker::record`]). Times
//! (`cooldown`, `remaining`) are ticks.
//!
//! A service's breaker guards its downstream calls: one breaker over all of
//! them, or one per request path (`per path`); the event loop asks
//! [`Breaker::admit`] before each try and tells [`Breaker::record`] the
//! answer.

pub mod any;
pub mod polly;
pub mod resilience4j;
pub mod window;

use serde::Serialize;
use squall_lang::BreakerSpec;

use crate::outcome::{Answer, FailKind};

/// A breaker's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum State {
    /// Calls go through.
    Closed,
    /// Calls fail fast.
    Open,
    /// Probes go through.
    HalfOpen,
}

/// A breaker's run-time state.
#[derive(Debug, Clone)]
pub struct Breaker {
    spec: BreakerSpec,
    state: State,
    failures: u32,
    opened_at: u64,
    probes: u32,
    /// Bumped at every change of state: an answer to a call sent in an
    /// earlier epoch says nothing about the state the breaker is in now.
    epoch: u64,
}

/// The decision on one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Admission {
    /// Whether the call is sent.
    pub sent: bool,
    /// The state the call found.
    pub before: State,
    /// For a call not sent, ticks until a probe may go.
    pub remaining: u64,
    /// The breaker's epoch when the call was sent; give it back to
    /// [`Breaker::record`].
    pub epoch: u64,
}

impl Breaker {
    /// A closed breaker.
    pub fn new(spec: BreakerSpec) -> Self {
        Breaker {
            spec,
            state: State::Closed,
            failures: 0,
            opened_at: 0,
            probes: 0,
            epoch: 0,
        }
    }

    /// The current state (without advancing time).
    pub fn state(&self) -> State {
        self.state
    }

    /// While open, the first tick at which a call goes through (as a probe).
    pub fn probe_from(&self) -> u64 {
        self.opened_at.saturating_add(self.spec.cooldown)
    }

    /// Decides whether a call at `now` is sent.
    pub fn admit(&mut self, now: u64) -> Admission {
        if self.state == State::Open && now.saturating_sub(self.opened_at) >= self.spec.cooldown {
            self.state = State::HalfOpen;
            self.probes = 0;
            self.epoch += 1;
        }
        let before = self.state;
        match self.state {
            State::Closed => Admission {
                sent: true,
                before,
                remaining: 0,
                epoch: self.epoch,
            },
            State::Open => Admission {
                sent: false,
                before,
                remaining: (self.opened_at + self.spec.cooldown).saturating_sub(now),
                epoch: self.epoch,
            },
            State::HalfOpen => {
                if self.probes < self.spec.probes {
                    self.probes += 1;
                    Admission {
                        sent: true,
                        before,
                        remaining: 0,
                        epoch: self.epoch,
                    }
                } else {
                    Admission {
                        sent: false,
                        before,
                        remaining: 0,
                        epoch: self.epoch,
                    }
                }
            }
        }
    }

    /// Records the answer to a call sent in `epoch`; returns the state
    /// after. An answer to a call sent before the breaker last changed state
    /// (a late answer, held up by retries further down) changes nothing: it
    /// neither closes an open breaker nor frees a probe it never took.
    pub fn record(&mut self, failed: bool, now: u64, epoch: u64) -> State {
        if epoch != self.epoch {
            return self.state;
        }
        if self.state == State::HalfOpen {
            self.probes = self.probes.saturating_sub(1);
        }
        if !failed {
            if self.state != State::Closed {
                self.epoch += 1;
            }
            self.state = State::Closed;
            self.failures = 0;
            return self.state;
        }
        self.failures += 1;
        if self.state == State::HalfOpen || self.failures >= self.spec.threshold {
            self.state = State::Open;
            self.opened_at = now;
            self.failures = 0;
            self.epoch += 1;
        }
        self.state
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
            FailKind::Conflict(_) => false,
            FailKind::Body => false,
            _ => true,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn breaker() -> Breaker {
        Breaker::new(BreakerSpec {
            threshold: 2,
            cooldown: 10,
            probes: 1,
            per_path: false,
        })
    }

    /// Admits a call at `t` and records its answer at once.
    fn call(b: &mut Breaker, t: u64, failed: bool) -> State {
        let a = b.admit(t);
        assert!(a.sent, "the call at {t} is sent");
        b.record(failed, t, a.epoch)
    }

    #[test]
    fn opens_after_threshold_and_probes_after_cooldown() {
        let mut b = breaker();
        assert_eq!(call(&mut b, 0, true), State::Closed);
        assert_eq!(call(&mut b, 1, true), State::Open);
        let a = b.admit(5);
        assert!(!a.sent);
        assert_eq!(a.remaining, 6);
        let a = b.admit(11);
        assert_eq!((a.sent, a.before), (true, State::HalfOpen));
        // A second call while the probe is out fails fast.
        assert!(!b.admit(11).sent);
        assert_eq!(b.record(false, 11, a.epoch), State::Closed);
        assert!(b.admit(12).sent);
    }

    #[test]
    fn what_counts_as_a_failure() {
        use crate::outcome::Failure;
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

    #[test]
    fn a_success_resets_the_count() {
        let mut b = breaker();
        call(&mut b, 0, true);
        call(&mut b, 1, false);
        assert_eq!(call(&mut b, 2, true), State::Closed);
    }

    #[test]
    fn a_late_answer_from_before_the_breaker_opened_changes_nothing() {
        let mut b = breaker();
        // A call sent while closed, answered only later (held by retries).
        let late = b.admit(0);
        assert!(late.sent);
        // Meanwhile two failures open the breaker.
        call(&mut b, 1, true);
        assert_eq!(call(&mut b, 2, true), State::Open);
        // The late success does not close it in the middle of its cool-down.
        assert_eq!(b.record(false, 3, late.epoch), State::Open);
        assert!(!b.admit(4).sent);
        // Nor does a late answer free the half-open probe slot.
        let probe = b.admit(12);
        assert_eq!((probe.sent, probe.before), (true, State::HalfOpen));
        assert_eq!(b.record(false, 13, late.epoch), State::HalfOpen);
        assert!(!b.admit(13).sent, "the probe is still out");
        assert_eq!(b.record(false, 14, probe.epoch), State::Closed);
    }
}
