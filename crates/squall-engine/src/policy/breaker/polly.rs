//! Polly v8's advanced circuit breaker: a failure ratio over a sampling
//! duration with a minimum throughput, and a single half-open probe.
//!
//! Rule (`Polly.Core/CircuitBreaker/Controller/AdvancedCircuitBehavior.cs`,
//! `CircuitStateController.cs`, `Health/RollingHealthMetrics.cs`):
//!
//! * **closed** — outcomes go into rolling windows (see
//!   [`RollingWindows`]); on a *failure*, break iff throughput `>=`
//!   `minimum_throughput` **and** failure ratio `>=` `failure_ratio`
//!   (a success never breaks it, unlike resilience4j).
//! * **open** — calls are rejected for `break_duration` (stretched by
//!   `open_jitter` as in resilience4j's reading: `x (1 - f + 2f·U)`, one
//!   draw per break — Polly's hook for this is a `BreakDurationGenerator`).
//! * **half-open** — the first call at or after the break's end is the one
//!   probe; the block is pushed out by one more `break_duration`, so if the
//!   probe never answers another goes after it. Other calls are rejected.
//!   Probe success → closed with the metrics reset; probe failure → open.
//!
//! Late outcomes (from calls admitted before the last change of state) are
//! ignored. Defaults: ratio 0.1, throughput 100, sampling 30 s, break 5 s.

use super::window::{jittered_open, RollingWindows};
use super::{Admission, State};

/// A Polly breaker's configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PollySpec {
    /// Failure ratio that breaks it, in `[0, 1]`.
    pub failure_ratio: f64,
    /// Calls in the sampling duration before it can break.
    pub minimum_throughput: u64,
    /// The sampling duration \[units\].
    pub sampling: u64,
    /// Time open \[units\].
    pub break_duration: u64,
    /// Jitter on the open time, as a factor in `[0, 1]`.
    pub open_jitter: f64,
    /// A sampling duration under this is one window (Polly: 200 ms) \[units\].
    pub short_sampling: u64,
}

impl PollySpec {
    /// Polly's defaults, with `second` units a second.
    pub fn library_default(second: u64) -> Self {
        PollySpec {
            failure_ratio: 0.1,
            minimum_throughput: 100,
            sampling: 30 * second,
            break_duration: 5 * second,
            open_jitter: 0.0,
            short_sampling: second / 5,
        }
    }
}

/// A Polly breaker's run-time state.
#[derive(Debug, Clone)]
pub struct PollyBreaker {
    spec: PollySpec,
    state: State,
    metrics: RollingWindows,
    blocked_until: u64,
    epoch: u64,
}

impl PollyBreaker {
    /// A closed breaker.
    pub fn new(spec: PollySpec) -> Self {
        PollyBreaker {
            metrics: RollingWindows::new(spec.sampling, spec.short_sampling),
            spec,
            state: State::Closed,
            blocked_until: 0,
            epoch: 0,
        }
    }

    /// The state it is in (without advancing time).
    pub fn state(&self) -> State {
        self.state
    }

    /// While open, the first tick at which a call goes through (as a probe).
    pub fn probe_from(&self) -> u64 {
        self.blocked_until
    }

    /// Decides whether a call at `now` is sent.
    pub fn admit(&mut self, now: u64) -> Admission {
        let mut before = self.state;
        let sent = match self.state {
            State::Closed => true,
            State::Open | State::HalfOpen if now >= self.blocked_until => {
                if self.state == State::Open {
                    self.state = State::HalfOpen;
                    self.epoch += 1;
                    before = State::HalfOpen;
                }
                self.blocked_until = now.saturating_add(self.spec.break_duration);
                true
            }
            State::Open | State::HalfOpen => false,
        };
        let remaining = if sent {
            0
        } else {
            self.blocked_until.saturating_sub(now)
        };
        Admission {
            sent,
            before,
            remaining,
            epoch: self.epoch,
        }
    }

    fn open(&mut self, now: u64, draw: impl FnOnce() -> f64) {
        let wait = jittered_open(self.spec.break_duration, self.spec.open_jitter, draw);
        self.state = State::Open;
        self.blocked_until = now.saturating_add(wait);
        self.epoch += 1;
    }

    /// Records the answer to a call admitted in `epoch`; returns the state
    /// after. `draw` is called only when it breaks with jitter.
    pub fn record(
        &mut self,
        failed: bool,
        now: u64,
        epoch: u64,
        draw: impl FnOnce() -> f64,
    ) -> State {
        if epoch != self.epoch {
            return self.state;
        }
        match self.state {
            State::Closed => {
                let t = self.metrics.record(now, failed);
                let ratio = if t.calls == 0 {
                    0.0
                } else {
                    t.failures as f64 / t.calls as f64
                };
                if failed
                    && t.calls >= self.spec.minimum_throughput
                    && ratio >= self.spec.failure_ratio
                {
                    self.open(now, draw);
                }
            }
            State::HalfOpen => {
                if failed {
                    self.open(now, draw);
                } else {
                    self.state = State::Closed;
                    self.metrics.reset();
                    self.epoch += 1;
                }
            }
            State::Open => {}
        }
        self.state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> PollySpec {
        PollySpec {
            failure_ratio: 0.5,
            minimum_throughput: 4,
            sampling: 10_000,
            break_duration: 1000,
            open_jitter: 0.0,
            short_sampling: 200,
        }
    }

    fn no_draw() -> f64 {
        panic!("no draw without jitter")
    }

    fn call(b: &mut PollyBreaker, now: u64, failed: bool) -> State {
        let a = b.admit(now);
        assert!(a.sent, "call at {now} sent");
        b.record(failed, now, a.epoch, no_draw)
    }

    #[test]
    fn breaks_on_a_failure_once_throughput_and_ratio_are_both_reached() {
        // Throughput 4, ratio 0.5: F F (2 calls, under 4) S S (4 calls, 50 %,
        // but successes never break it), then F: 5 calls, 3 failed = 60 %.
        let mut b = PollyBreaker::new(spec());
        for (t, failed) in [true, true, false, false].into_iter().enumerate() {
            assert_eq!(call(&mut b, t as u64, failed), State::Closed);
        }
        assert_eq!(call(&mut b, 4, true), State::Open);
    }

    #[test]
    fn failures_older_than_the_sampling_duration_do_not_count() {
        let mut b = PollyBreaker::new(spec());
        for t in 0..3 {
            call(&mut b, t, true);
        }
        // 10 s later those windows are gone: 1 failure in 1 call.
        assert_eq!(call(&mut b, 10_000, true), State::Closed);
    }

    #[test]
    fn one_probe_at_or_after_the_break_end() {
        let mut b = PollyBreaker::new(spec());
        for t in 0..4 {
            call(&mut b, t, true);
        }
        // Broke at 3 until 1003. At 1003 (at, not after) one probe goes.
        assert!(!b.admit(1002).sent);
        let probe = b.admit(1003);
        assert_eq!((probe.sent, probe.before), (true, State::HalfOpen));
        let other = b.admit(1003);
        assert_eq!((other.sent, other.remaining), (false, 1000));
        // A probe that never answers: another may go one break later.
        assert!(b.admit(2003).sent);
        // Success closes it with fresh metrics.
        assert_eq!(b.record(false, 2004, probe.epoch, no_draw), State::Closed);
        assert_eq!(call(&mut b, 2005, true), State::Closed);
    }

    #[test]
    fn a_failed_probe_opens_it_again() {
        let mut b = PollyBreaker::new(spec());
        for t in 0..4 {
            call(&mut b, t, true);
        }
        let probe = b.admit(1003);
        assert_eq!(b.record(true, 1010, probe.epoch, no_draw), State::Open);
        assert!(!b.admit(2009).sent);
        assert!(b.admit(2010).sent);
    }
}
