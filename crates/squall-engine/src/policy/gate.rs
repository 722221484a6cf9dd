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
//! own strategy). A first try always goes: only retries are gated, unlike
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

/// One client's (or one node's) retry gate counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RetryGate {
    /// Requests whose retry loop opened (`calls` in the source).
    pub calls: u64,
    /// Failed tries, retries included (`failures` in the source).
    pub failures: u64,
}

impl RetryGate {
    /// A request opens its retry loop (its first try is about to go).
    #[inline]
    pub fn on_request(&mut self) {
        self.calls += 1;
    }

    /// A try failed (retryable or unknown class).
    #[inline]
    pub fn on_failure(&mut self) {
        self.failures += 1;
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
            g.on_request();
        }
        g.on_failure();
        assert!(g.allows(0.1));
        g.on_failure();
        assert!(!g.allows(0.1));
        // A first failure of a fresh client: 1/1 = 1 > 0.1, refused; at
        // max_rate 1 (100 %) it is allowed once, then 2/1 = 2 refuses.
        let mut fresh = RetryGate::default();
        fresh.on_request();
        fresh.on_failure();
        assert!(!fresh.allows(0.1));
        assert!(fresh.allows(1.0));
        fresh.on_failure();
        assert!(!fresh.allows(1.0));
        // No request counted: refused, never a division by zero.
        assert!(!RetryGate::default().allows(0.5));
    }
}
