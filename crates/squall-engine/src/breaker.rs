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

use squall_lang::BreakerSpec;

/// A breaker's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Calls go through.
    Closed,
    /// Calls fail fast.
    Open,
    /// Probes go through.
    HalfOpen,
}

impl State {
    /// The state's name as reports print it.
    pub fn name(self) -> &'static str {
        match self {
            State::Closed => "closed",
            State::Open => "open",
            State::HalfOpen => "half-open",
        }
    }
}

/// A breaker's run-time state.
#[derive(Debug, Clone)]
pub struct Breaker {
    spec: BreakerSpec,
    state: State,
    failures: u32,
    opened_at: u64,
    probes: u32,
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
        }
    }

    /// The current state (without advancing time).
    pub fn state(&self) -> State {
        self.state
    }

    /// Decides whether a call at `now` is sent.
    pub fn admit(&mut self, now: u64) -> Admission {
        if self.state == State::Open && now.saturating_sub(self.opened_at) >= self.spec.cooldown {
            self.state = State::HalfOpen;
            self.probes = 0;
        }
        let before = self.state;
        match self.state {
            State::Closed => Admission {
                sent: true,
                before,
                remaining: 0,
            },
            State::Open => Admission {
                sent: false,
                before,
                remaining: (self.opened_at + self.spec.cooldown).saturating_sub(now),
            },
            State::HalfOpen => {
                if self.probes < self.spec.probes {
                    self.probes += 1;
                    Admission {
                        sent: true,
                        before,
                        remaining: 0,
                    }
                } else {
                    Admission {
                        sent: false,
                        before,
                        remaining: 0,
                    }
                }
            }
        }
    }

    /// Records the answer to a sent call; returns the state after.
    pub fn record(&mut self, failed: bool, now: u64) -> State {
        if self.state == State::HalfOpen {
            self.probes = self.probes.saturating_sub(1);
        }
        if !failed {
            self.state = State::Closed;
            self.failures = 0;
            return self.state;
        }
        self.failures += 1;
        if self.state == State::HalfOpen || self.failures >= self.spec.threshold {
            self.state = State::Open;
            self.opened_at = now;
            self.failures = 0;
        }
        self.state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_after_threshold_and_probes_after_cooldown() {
        let mut b = Breaker::new(BreakerSpec {
            threshold: 2,
            cooldown: 10,
            probes: 1,
            per_path: false,
        });
        assert!(b.admit(0).sent);
        assert_eq!(b.record(true, 0), State::Closed);
        assert!(b.admit(1).sent);
        assert_eq!(b.record(true, 1), State::Open);
        let a = b.admit(5);
        assert!(!a.sent);
        assert_eq!(a.remaining, 6);
        let a = b.admit(11);
        assert_eq!((a.sent, a.before), (true, State::HalfOpen));
        // A second call while the probe is out fails fast.
        assert!(!b.admit(11).sent);
        assert_eq!(b.record(false, 11), State::Closed);
        assert!(b.admit(12).sent);
    }

    #[test]
    fn a_success_resets_the_count() {
        let mut b = Breaker::new(BreakerSpec {
            threshold: 2,
            cooldown: 10,
            probes: 1,
            per_path: false,
        });
        b.admit(0);
        b.record(true, 0);
        b.admit(1);
        b.record(false, 1);
        b.admit(2);
        assert_eq!(b.record(true, 2), State::Closed);
    }
}
