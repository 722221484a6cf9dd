//! The retry gate: a client retries only while its failed tries per
//! request stay at or under a threshold.
//!
//! The rule is the "circuit breaker on retries" of Marc Brooker's retry
//! simulator (`github.com/mbrooker/simulator_example`,
//! `retry_sim/retry_strategy.py`, classes `CircuitBreakerRetryStrategy`
//! and `CircuitBreakerRetryCall`; the blog post "Fixing retries with token
//! buckets and circuit breakers", 2022), whose `breaker_10pct` runs use
//! `max_rate` 0.1 over three retries:
//!
//! * `calls` counts requests: `CircuitBreakerRetryCall.start` runs once
//!   when a call starts, and the client's retries go to the server
//!   without it (`retry_sim/client.py`, `Call.done_failure`);
//! * `failures` counts failed tries, retries' included: `should_retry`
//!   runs on every failure and adds one before anything else, even when
//!   no try is left;
//! * right after counting a failure, a retry goes only if
//!   `failures / calls <= max_rate` (the source refuses when the ratio is
//!   `> max_rate`) and the try limit allows it.
//!
//! Both counts are cumulative from the start of the run (the source keeps
//! no window), one pair per client (`retry_sim.py` gives each `Client` its
//! own strategy). squall adds a trailing window as an option (`gate 10%
//! window 10s`, not in the source): then both counts cover the ticks
//! `(now - window, now]`, a request counted at the tick its loop opened,
//! a failure at the tick it came back; a failure whose request is older
//! than the window reads a ratio over no request and is refused. A first try always goes: only retries are gated, unlike
//! a circuit breaker. The ratio counts retried failures, so it can exceed
//! 1: a client whose every try fails has `failures / calls` of at least 1
//! after its first failure, so under any `max_rate` below 100 % it never
//! retries.
//!
//! squall counts a failure as the budgets do: every failed try whose
//! class is retryable or unknown ([`super::retry::classify`]); a terminal
//! failure (a 404, a circuit open) is not a failure of the dependency's
//! health and is not counted (the source's server has only retryable
//! failures).

use std::collections::VecDeque;

/// One client's (or one node's) retry gate counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RetryGate {
    /// Requests whose retry loop opened (`calls` in the source), in the
    /// window when there is one.
    pub calls: u64,
    /// Failed tries, retries included (`failures` in the source), in the
    /// window when there is one.
    pub failures: u64,
    /// The trailing window \[ticks\], or `None`: from the start.
    window: Option<u64>,
    /// With a window: per tick with a count in it, (tick, calls, failures),
    /// oldest first.
    recent: VecDeque<(u64, u64, u64)>,
}

impl RetryGate {
    /// A gate counting over the trailing `window` ticks, or from the start
    /// of the run (`None`).
    pub fn new(window: Option<u64>) -> Self {
        RetryGate {
            window,
            ..RetryGate::default()
        }
    }

    /// A gate with no counts yet over the same window as this one.
    pub fn fresh(&self) -> Self {
        RetryGate::new(self.window)
    }

    /// A request opens its retry loop at tick `now` (its first try is
    /// about to go).
    #[inline]
    pub fn on_request(&mut self, now: u64) {
        self.calls += 1;
        self.record(now, 1, 0);
    }

    /// A try failed (retryable or unknown class) at tick `now`.
    #[inline]
    pub fn on_failure(&mut self, now: u64) {
        self.failures += 1;
        self.record(now, 0, 1);
    }

    /// Keeps a count at `now` for the window, and drops what left it.
    fn record(&mut self, now: u64, calls: u64, failures: u64) {
        let Some(w) = self.window else { return };
        match self.recent.back_mut() {
            Some(last) if last.0 == now => {
                last.1 += calls;
                last.2 += failures;
            }
            _ => self.recent.push_back((now, calls, failures)),
        }
        while let Some(&(t, c, f)) = self.recent.front() {
            if t + w > now {
                break;
            }
            self.calls -= c;
            self.failures -= f;
            self.recent.pop_front();
        }
    }

    /// Whether a retry may go under `max_rate` (a fraction: 0.1 is 10 %):
    /// `failures / calls <= max_rate`, as the source computes it (a float
    /// division). With no request counted the ratio is undefined and the
    /// retry is refused (the source cannot get there: a call starts before
    /// it fails).
    #[inline]
    pub fn allows(&self, max_rate: f64) -> bool {
        self.calls > 0 && self.failures as f64 / self.calls as f64 <= max_rate
    }
}

#[cfg(test)]
mod tests {
    use super::RetryGate;

    #[test]
    fn the_ratio_is_read_after_the_failure_is_counted() {
        // Hand-worked from the source's should_retry: 10 requests, the
        // 10th try fails: failures 1, calls 10, 1/10 = 0.1 <= 0.1, so it
        // retries; the retry fails too: 2/10 = 0.2 > 0.1, refused.
        let mut g = RetryGate::default();
        for _ in 0..10 {
            g.on_request(0);
        }
        g.on_failure(0);
        assert!(g.allows(0.1));
        g.on_failure(0);
        assert!(!g.allows(0.1));
        // A first failure of a fresh client: 1/1 = 1 > 0.1, refused; at
        // max_rate 1 (100 %) it is allowed once, then 2/1 = 2 refuses.
        let mut fresh = RetryGate::default();
        fresh.on_request(0);
        fresh.on_failure(0);
        assert!(!fresh.allows(0.1));
        assert!(fresh.allows(1.0));
        fresh.on_failure(0);
        assert!(!fresh.allows(1.0));
        // No request counted: refused, never a division by zero.
        assert!(!RetryGate::default().allows(0.5));
    }

    #[test]
    fn a_window_forgets_what_left_it() {
        // Window 10 ticks: counts at tick t cover (t - 10, t]. Ticks 0..9:
        // one request each, the one at tick 9 fails: 1/10 <= 0.1. At tick
        // 10 a request (tick 0's leaves: calls 10) fails: 2/10 > 0.1.
        let mut g = RetryGate::new(Some(10));
        for t in 0..10 {
            g.on_request(t);
        }
        g.on_failure(9);
        assert!(g.allows(0.1));
        g.on_request(10);
        g.on_failure(10);
        assert_eq!((g.calls, g.failures), (10, 2));
        assert!(!g.allows(0.1));
        // At tick 20 (ticks 0..10 gone) a request and a failure: 1/1.
        // Ticks 21..29 nine more requests: the window (19, 29] holds
        // calls 10, failures 1: 1/10, allowed again. Without the window the
        // same history reads 3/21 and is refused.
        g.on_request(20);
        g.on_failure(20);
        assert_eq!((g.calls, g.failures), (1, 1));
        for t in 21..30 {
            g.on_request(t);
        }
        assert_eq!((g.calls, g.failures), (10, 1));
        assert!(g.allows(0.1));
        let mut whole = RetryGate::new(None);
        for t in 0..11 {
            whole.on_request(t);
        }
        for t in 20..30 {
            whole.on_request(t);
        }
        for _ in 0..3 {
            whole.on_failure(30);
        }
        assert_eq!((whole.calls, whole.failures), (21, 3));
        assert!(!whole.allows(0.1));
    }
}
