//! gRPC A6 retry throttling (`retryThrottling` in the service config).
//!
//! Rule (gRFC A6, grpc-go `clientconn.go` `retryThrottler`):
//!
//! * `token_count` starts at `max_tokens` and stays in `[0, max_tokens]`;
//! * each failed attempt whose status is retryable (or a "don't retry"
//!   pushback) takes one token, floored at 0 ([`GrpcThrottle::on_failure`]);
//! * each RPC that ends in success adds `token_ratio`, capped
//!   ([`GrpcThrottle::on_success`]) — once per RPC, not per attempt;
//! * a retry (or hedge) is allowed only while `token_count > max_tokens / 2`
//!   ([`GrpcThrottle::allows_retry`]); the first attempt is always sent.
//!
//! grpc-go decrements *before* it tests (`tokens -= 1; return tokens <=
//! thresh`), and decrements even on an attempt that has no retries left;
//! the engine calls `on_failure` for every retryable failed attempt, then
//! `allows_retry` only when the retry policy has a try left.
//!
//! Tokens are kept in thousandths, as integers: A6 ignores the ratio's
//! decimals beyond the third, and integers make `5.0 + 0.1 > 5.0` exact.
//! Nothing here draws a random number or reads time.

/// Thousandths of a token.
const MILLI: u64 = 1000;

/// A gRPC retry throttle for one server name (shared by all its methods).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrpcThrottle {
    max: u64,
    ratio: u64,
    tokens: u64,
}

impl GrpcThrottle {
    /// A full bucket of `max_tokens` (A6: an integer in (0, 1000]),
    /// credited `token_ratio` per successful RPC (decimals beyond the third
    /// are dropped, as A6 says).
    pub fn new(max_tokens: u32, token_ratio: f64) -> Self {
        let max = u64::from(max_tokens) * MILLI;
        let ratio = if token_ratio.is_finite() && token_ratio > 0.0 {
            (token_ratio * MILLI as f64 + 1e-9).floor() as u64
        } else {
            0
        };
        GrpcThrottle {
            max,
            ratio,
            tokens: max,
        }
    }

    /// A failed attempt with a retryable status: one token less (not below 0).
    pub fn on_failure(&mut self) {
        self.tokens = self.tokens.saturating_sub(MILLI);
    }

    /// An RPC that ended in success: `token_ratio` more (not above the max).
    pub fn on_success(&mut self) {
        self.tokens = (self.tokens + self.ratio).min(self.max);
    }

    /// Whether a retry may be sent now: tokens strictly above half the max.
    pub fn allows_retry(&self) -> bool {
        self.tokens * 2 > self.max
    }

    /// The tokens in the bucket.
    pub fn tokens(&self) -> f64 {
        self.tokens as f64 / MILLI as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_bucket_of_ten_allows_four_retries_in_a_row() {
        // A6's sample config: maxTokens 10, tokenRatio 0.1. From full, the
        // i-th consecutive retryable failure leaves 10 - i tokens; a retry
        // is allowed iff 10 - i > 10 / 2, i.e. i < 5: failures 1..=4 are
        // retried, the 5th (tokens 5, not above 5) is not.
        let mut b = GrpcThrottle::new(10, 0.1);
        let mut allowed = Vec::new();
        for i in 1..=8u32 {
            b.on_failure();
            let tokens = 10.0 - f64::from(i).min(10.0);
            assert_eq!(b.tokens(), tokens, "after failure {i}");
            allowed.push(b.allows_retry());
            assert_eq!(b.allows_retry(), tokens > 5.0, "after failure {i}");
        }
        assert_eq!(allowed.iter().filter(|&&a| a).count(), 4);
    }

    #[test]
    fn one_success_at_the_threshold_reopens_retries_until_the_next_failure() {
        // A6's worked example: from 5.0 one success gives 5.1 (> 5: retries
        // allowed); the next failure gives 4.1 (throttled).
        let mut b = GrpcThrottle::new(10, 0.1);
        for _ in 0..5 {
            b.on_failure();
        }
        assert!(!b.allows_retry());
        b.on_success();
        assert_eq!(b.tokens(), 5.1);
        assert!(b.allows_retry());
        b.on_failure();
        assert_eq!(b.tokens(), 4.1);
        assert!(!b.allows_retry());
    }

    #[test]
    fn tokens_stay_within_bounds() {
        let mut b = GrpcThrottle::new(3, 0.5);
        b.on_success();
        assert_eq!(b.tokens(), 3.0, "capped at max_tokens");
        for _ in 0..10 {
            b.on_failure();
        }
        assert_eq!(b.tokens(), 0.0, "floored at zero");
        // Ten successes of 0.5 refill 5 tokens, capped at 3.
        for _ in 0..10 {
            b.on_success();
        }
        assert_eq!(b.tokens(), 3.0);
    }

    #[test]
    fn ratio_decimals_beyond_the_third_are_dropped() {
        // 0.1239 is read as 0.123: two successes from zero give 0.246.
        let mut b = GrpcThrottle::new(1, 0.1239);
        b.on_failure();
        b.on_success();
        b.on_success();
        assert_eq!(b.tokens(), 0.246);
    }

    #[test]
    fn steady_state_survives_about_one_failure_per_ten_successes() {
        // At the threshold, each success adds 0.1 and each failure takes 1:
        // the bucket holds its level iff failures <= 0.1 x successes. With
        // exactly one failure per 10 successes, starting at 5.0 + 0.1, the
        // level returns to 5.1 after each cycle and every failure is
        // retried; with one per 9 successes it sinks and retries stop.
        let cycle = |successes: u32| {
            let mut b = GrpcThrottle::new(10, 0.1);
            for _ in 0..5 {
                b.on_failure();
            }
            b.on_success();
            let mut retried = 0;
            for _ in 0..20 {
                b.on_failure();
                // Asked after the decrement, as grpc-go does: a failure
                // is retried only if the bucket held more than 6 before it.
                if b.allows_retry() {
                    retried += 1;
                }
                for _ in 0..successes {
                    b.on_success();
                }
            }
            (retried, b.tokens())
        };
        // 10 successes per failure: 5.1 -> 4.1 (throttled) -> 5.1, forever.
        assert_eq!(cycle(10), (0, 5.1));
        // 20 successes per failure: +1 net per cycle until the cap of 10;
        // only the first failure (5.1 -> 4.1) is throttled.
        assert_eq!(cycle(20), (19, 10.0));
    }
}
