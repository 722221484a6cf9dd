//! resilience4j's `CircuitBreaker`: failure rate and slow-call rate over a
//! sliding window.
//!
//! Rule (`CircuitBreakerConfig.java` defaults, `CircuitBreakerStateMachine.java`,
//! `CircuitBreakerMetrics.java`):
//!
//! * **closed** — every recorded call goes into the window (count-based:
//!   the last N calls; time-based: the last N seconds). Rates are
//!   undefined until the window holds `minimum_calls` (count-based:
//!   `min(minimum_calls, N)`). After each call: open iff failure rate
//!   `>=` its threshold or slow-call rate `>=` its threshold. A call is slow
//!   iff it took *more* than `slow_call_duration`.
//! * **open** — calls are rejected (and not recorded) for `wait_open`
//!   units, stretched by `open_jitter` f: `wait x (1 - f + 2f·U)` (one draw
//!   per opening, resilience4j's `IntervalFunction.ofRandomized`). Lazy
//!   (the default, `automaticTransitionFromOpenToHalfOpenEnabled = false`):
//!   the first call strictly *after* the wait flips it to half-open and is
//!   tried there; automatic: it is half-open from the wait's end on.
//! * **half-open** — exactly `permitted_half_open` calls are admitted, the
//!   rest rejected. Their outcomes fill a fresh count window of that size
//!   with minimum `min(minimum_calls, permitted)`; once it is evaluable,
//!   over a threshold → open again, under → closed with fresh metrics.
//!
//! An answer to a call admitted before the breaker last changed state is
//! not recorded (as [`super::Breaker`] does). Times are in the caller's
//! units; the only draw is the open-time jitter's, made when it opens.

use super::window::{jittered_open, CountWindow, Tally, TimeWindow};
use super::{Admission, State};

/// Which window a resilience4j breaker counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowKind {
    /// The last `n` calls.
    Count(usize),
    /// The last `n` buckets of `width` units (resilience4j: seconds).
    Time {
        /// Buckets.
        n: usize,
        /// Units per bucket.
        width: u64,
    },
}

/// A resilience4j breaker's configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resilience4jSpec {
    /// The sliding window.
    pub window: WindowKind,
    /// Calls before rates count.
    pub minimum_calls: u64,
    /// Failure rate that opens it \[%\].
    pub failure_rate: f64,
    /// Slow-call rate that opens it \[%\].
    pub slow_call_rate: f64,
    /// A call longer than this is slow \[units\].
    pub slow_call_duration: u64,
    /// Time open \[units\].
    pub wait_open: u64,
    /// Jitter on the open time, as a factor in `[0, 1]`.
    pub open_jitter: f64,
    /// Calls admitted half-open.
    pub permitted_half_open: u32,
    /// Half-open at the wait's end without waiting for a call.
    pub automatic: bool,
}

impl Resilience4jSpec {
    /// resilience4j's defaults, with `second` units a second: count window
    /// of 100, minimum 100, 50 % failures, 100 % slow calls over 60 s, 60 s
    /// open, 10 half-open calls, lazy transition.
    pub fn library_default(second: u64) -> Self {
        Resilience4jSpec {
            window: WindowKind::Count(100),
            minimum_calls: 100,
            failure_rate: 50.0,
            slow_call_rate: 100.0,
            slow_call_duration: 60 * second,
            wait_open: 60 * second,
            open_jitter: 0.0,
            permitted_half_open: 10,
            automatic: false,
        }
    }

    fn closed_minimum(&self) -> u64 {
        match self.window {
            WindowKind::Count(n) => self.minimum_calls.min(n as u64),
            WindowKind::Time { .. } => self.minimum_calls,
        }
    }

    fn exceeded(&self, t: Tally, minimum: u64) -> Option<bool> {
        (t.calls >= minimum.max(1))
            .then(|| t.failure_rate() >= self.failure_rate || t.slow_rate() >= self.slow_call_rate)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Closed {
    Count(CountWindow),
    Time(TimeWindow),
}

/// A resilience4j breaker's run-time state.
#[derive(Debug, Clone)]
pub struct Resilience4jBreaker {
    spec: Resilience4jSpec,
    state: State,
    closed: Closed,
    until: u64,
    admitted: u32,
    half: CountWindow,
    epoch: u64,
}

impl Resilience4jBreaker {
    /// A closed breaker.
    pub fn new(spec: Resilience4jSpec) -> Self {
        Resilience4jBreaker {
            closed: Self::fresh(&spec),
            half: CountWindow::new(spec.permitted_half_open as usize),
            spec,
            state: State::Closed,
            until: 0,
            admitted: 0,
            epoch: 0,
        }
    }

    fn fresh(spec: &Resilience4jSpec) -> Closed {
        match spec.window {
            WindowKind::Count(n) => Closed::Count(CountWindow::new(n)),
            WindowKind::Time { n, width } => Closed::Time(TimeWindow::new(n, width)),
        }
    }

    /// The state it is in (without advancing time).
    pub fn state(&self) -> State {
        self.state
    }

    /// While open, the first tick at which a call goes through (as a probe):
    /// the end of the wait for an automatic breaker, the tick after it for
    /// a lazy one.
    pub fn probe_from(&self) -> u64 {
        self.until.saturating_add(u64::from(!self.spec.automatic))
    }

    /// The state at `now` (an automatic breaker is half-open from the end
    /// of its wait on, a lazy one only once a call has come).
    pub fn state_at(&self, now: u64) -> State {
        if self.state == State::Open && self.spec.automatic && now >= self.until {
            State::HalfOpen
        } else {
            self.state
        }
    }

    /// Decides whether a call at `now` is sent.
    pub fn admit(&mut self, now: u64) -> Admission {
        if self.state == State::Open {
            let due = if self.spec.automatic {
                now >= self.until
            } else {
                now > self.until
            };
            if due {
                self.state = State::HalfOpen;
                self.admitted = 0;
                self.half = CountWindow::new(self.spec.permitted_half_open as usize);
                self.epoch += 1;
            }
        }
        let before = self.state;
        let sent = match self.state {
            State::Closed => true,
            State::Open => false,
            State::HalfOpen => {
                let free = self.admitted < self.spec.permitted_half_open;
                self.admitted += u32::from(free);
                free
            }
        };
        let remaining = if self.state == State::Open {
            // Lazy: the first call strictly after `until` goes.
            (self.until + u64::from(!self.spec.automatic)).saturating_sub(now)
        } else {
            0
        };
        Admission {
            sent,
            before,
            remaining,
            epoch: self.epoch,
        }
    }

    fn open(&mut self, now: u64, draw: impl FnOnce() -> f64) {
        let wait = jittered_open(self.spec.wait_open, self.spec.open_jitter, draw);
        self.state = State::Open;
        self.until = now.saturating_add(wait);
        self.epoch += 1;
    }

    /// Records the answer to a call admitted in `epoch` that took
    /// `duration` units; returns the state after. `draw` gives a uniform
    /// number in `[0, 1)` and is called only if the breaker opens with
    /// jitter on its open time.
    pub fn record(
        &mut self,
        failed: bool,
        duration: u64,
        now: u64,
        epoch: u64,
        draw: impl FnOnce() -> f64,
    ) -> State {
        if epoch != self.epoch {
            return self.state;
        }
        let slow = duration > self.spec.slow_call_duration;
        match self.state {
            State::Closed => {
                let t = match &mut self.closed {
                    Closed::Count(w) => w.record(failed, slow),
                    Closed::Time(w) => w.record(now, failed, slow),
                };
                if self.spec.exceeded(t, self.spec.closed_minimum()) == Some(true) {
                    self.open(now, draw);
                }
            }
            State::HalfOpen => {
                let t = self.half.record(failed, slow);
                let minimum = self
                    .spec
                    .minimum_calls
                    .min(u64::from(self.spec.permitted_half_open));
                match self.spec.exceeded(t, minimum) {
                    Some(true) => self.open(now, draw),
                    Some(false) => {
                        self.state = State::Closed;
                        self.closed = Self::fresh(&self.spec);
                        self.epoch += 1;
                    }
                    None => {}
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

    fn spec() -> Resilience4jSpec {
        Resilience4jSpec {
            window: WindowKind::Count(10),
            minimum_calls: 5,
            failure_rate: 50.0,
            slow_call_rate: 100.0,
            slow_call_duration: 100,
            wait_open: 1000,
            open_jitter: 0.0,
            permitted_half_open: 3,
            automatic: false,
        }
    }

    fn no_draw() -> f64 {
        panic!("no draw without jitter")
    }

    fn call(b: &mut Resilience4jBreaker, now: u64, failed: bool) -> State {
        let a = b.admit(now);
        assert!(a.sent, "call at {now} sent");
        b.record(failed, 0, now, a.epoch, no_draw)
    }

    #[test]
    fn nothing_opens_before_the_minimum_number_of_calls() {
        // Minimum 5: four failures (100 %) leave it closed; the fifth call,
        // even a success, makes the rate 4/5 = 80 % >= 50 %: open.
        let mut b = Resilience4jBreaker::new(spec());
        for t in 0..4 {
            assert_eq!(call(&mut b, t, true), State::Closed);
        }
        assert_eq!(call(&mut b, 4, false), State::Open);
    }

    #[test]
    fn the_threshold_is_inclusive() {
        // 5 calls, 2 failed = 40 %: closed; window 10, then 5 of 10 = 50 %: open.
        let mut b = Resilience4jBreaker::new(spec());
        for (t, failed) in [false, true, false, true, false].into_iter().enumerate() {
            assert_eq!(call(&mut b, t as u64, failed), State::Closed);
        }
        for (t, failed) in [false, false, true, false].into_iter().enumerate() {
            assert_eq!(call(&mut b, 5 + t as u64, failed), State::Closed);
        }
        // The 10th call, a failure: 4 of 10.
        assert_eq!(call(&mut b, 9, true), State::Closed, "4 of 10 = 40 %");
        assert_eq!(
            call(&mut b, 10, true),
            State::Open,
            "the 11th pushes out a success: 5 of 10"
        );
    }

    #[test]
    fn a_count_window_caps_the_minimum_at_its_size() {
        // Defaults: minimum 100 in a window of 10 means 10.
        let mut s = spec();
        s.minimum_calls = 100;
        let mut b = Resilience4jBreaker::new(s);
        for t in 0..9 {
            assert_eq!(call(&mut b, t, true), State::Closed);
        }
        assert_eq!(call(&mut b, 9, true), State::Open);
    }

    #[test]
    fn lazy_half_open_admits_the_permitted_calls_strictly_after_the_wait() {
        let mut b = Resilience4jBreaker::new(spec());
        for t in 0..5 {
            call(&mut b, t, true);
        }
        // Opened at 4, until 1004. Lazy: at 1004 still open, 1 unit left.
        let a = b.admit(1004);
        assert_eq!((a.sent, a.remaining), (false, 1));
        // At 1005: half-open, 3 permitted calls, the 4th rejected.
        let probes: Vec<_> = (0..4).map(|_| b.admit(1005)).collect();
        assert_eq!(probes.iter().filter(|a| a.sent).count(), 3);
        assert!(probes.iter().all(|a| a.before == State::HalfOpen));
        // Decided on 3 calls (min(5, 3)): 1 of 3 failed = 33 % < 50 %: closed.
        let e = probes[0].epoch;
        assert_eq!(b.record(true, 0, 1006, e, no_draw), State::HalfOpen);
        assert_eq!(b.record(false, 0, 1006, e, no_draw), State::HalfOpen);
        assert_eq!(b.record(false, 0, 1006, e, no_draw), State::Closed);
        // Fresh metrics: four failures do not reopen it.
        for t in 0..4 {
            assert_eq!(call(&mut b, 2000 + t, true), State::Closed);
        }
    }

    #[test]
    fn automatic_half_open_starts_at_the_wait_end() {
        let mut s = spec();
        s.automatic = true;
        let mut b = Resilience4jBreaker::new(s);
        for t in 0..5 {
            call(&mut b, t, true);
        }
        assert_eq!(b.state_at(1003), State::Open);
        assert_eq!(b.state_at(1004), State::HalfOpen);
        assert!(b.admit(1004).sent);
    }

    #[test]
    fn failing_half_open_calls_reopen_it() {
        let mut b = Resilience4jBreaker::new(spec());
        for t in 0..5 {
            call(&mut b, t, true);
        }
        let a = b.admit(2000);
        b.record(true, 0, 2000, a.epoch, no_draw);
        b.record(true, 0, 2000, a.epoch, no_draw);
        // 2 of 3 so far; the third decides: 3 of 3 >= 50 %: open until 3001.
        assert_eq!(b.record(false, 0, 2001, a.epoch, no_draw), State::Open);
        assert!(!b.admit(3001).sent);
        assert!(b.admit(3002).sent);
    }

    #[test]
    fn slow_calls_open_it_at_their_own_rate() {
        // Slow rate threshold 60 %, durations over 100 are slow (100 is not).
        let mut s = spec();
        s.slow_call_rate = 60.0;
        let mut b = Resilience4jBreaker::new(s);
        for (t, d) in [101, 100, 150, 200, 10].into_iter().enumerate() {
            let a = b.admit(t as u64);
            let st = b.record(false, d, t as u64, a.epoch, no_draw);
            // 3 slow of 5 = 60 % at the fifth call.
            assert_eq!(st == State::Open, t == 4, "call {t}");
        }
    }

    #[test]
    fn open_jitter_spreads_the_wait_over_its_factor() {
        // Factor 0.5 on 1000: wait in [500, 1500]; draw 0 -> 500, 0.75 -> 1250.
        for (r, wait) in [(0.0, 500), (0.75, 1250)] {
            let mut s = spec();
            s.open_jitter = 0.5;
            let mut b = Resilience4jBreaker::new(s);
            for t in 0..4 {
                call(&mut b, t, true);
            }
            let a = b.admit(4);
            assert_eq!(b.record(true, 0, 4, a.epoch, || r), State::Open);
            assert_eq!(b.admit(4).remaining, wait + 1);
        }
    }

    #[test]
    fn a_time_window_forgets_old_failures() {
        // 10 buckets of 100 units; minimum 5.
        let mut s = spec();
        s.window = WindowKind::Time { n: 10, width: 100 };
        let mut b = Resilience4jBreaker::new(s);
        for t in 0..4 {
            call(&mut b, t, true);
        }
        // 1000 units later the four failures have left the window: four
        // successes and one failure make 1 of 5 = 20 %.
        for t in 0..4 {
            assert_eq!(call(&mut b, 1000 + t, false), State::Closed);
        }
        assert_eq!(call(&mut b, 1004, true), State::Closed);
    }
}
