//! A plain retry token bucket: each retry takes one token.
//!
//! The bucket holds at most `size` tokens and starts full. It refills by
//! `per_call` tokens at every request (Brooker's `retry_sim` "adaptive"
//! client: 0.1 per call, size 5) and by `per_unit` tokens per unit of time
//! (a rate), lazily when asked. A retry is allowed iff at least one token
//! is there ([`RetryBucket::try_take`]). Nothing here draws a random number.

/// A retry token bucket.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryBucket {
    size: f64,
    per_call: f64,
    per_unit: f64,
    level: f64,
    last: u64,
}

/// Against rounding of repeated refills: ten refills of 0.1 make a token.
const TOLERANCE: f64 = 1e-9;

impl RetryBucket {
    /// A full bucket of `size` tokens, refilled `per_call` tokens per
    /// request and `per_unit` tokens per unit of time.
    pub fn new(size: f64, per_call: f64, per_unit: f64) -> Self {
        let size = size.max(0.0);
        RetryBucket {
            size,
            per_call: per_call.max(0.0),
            per_unit: per_unit.max(0.0),
            level: size,
            last: 0,
        }
    }

    fn refill(&mut self, now: u64) {
        if now > self.last {
            self.level = (self.level + (now - self.last) as f64 * self.per_unit).min(self.size);
            self.last = now;
        }
    }

    /// A request at `now`.
    pub fn on_request(&mut self, now: u64) {
        self.refill(now);
        self.level = (self.level + self.per_call).min(self.size);
    }

    /// Asks for a retry at `now`.
    pub fn try_take(&mut self, now: u64) -> bool {
        self.refill(now);
        if self.level >= 1.0 - TOLERANCE {
            self.level = (self.level - 1.0).max(0.0);
            true
        } else {
            false
        }
    }

    /// Tokens in the bucket at `now`.
    pub fn level(&mut self, now: u64) -> f64 {
        self.refill(now);
        self.level
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_call_refill_allows_one_retry_per_ten_requests() {
        // Size 5, 0.1 per request: from full, 5 retries; then one retry per
        // 10 requests.
        let mut b = RetryBucket::new(5.0, 0.1, 0.0);
        let first = (0..100).take_while(|_| b.try_take(0)).count();
        assert_eq!(first, 5);
        let mut allowed = 0;
        for _ in 0..100 {
            b.on_request(0);
            if b.try_take(0) {
                allowed += 1;
            }
        }
        assert_eq!(allowed, 100 / 10);
    }

    #[test]
    fn per_unit_refill_is_a_rate() {
        // Size 2, half a token per unit, emptied at 0: one token at 2.
        let mut b = RetryBucket::new(2.0, 0.0, 0.5);
        assert!(b.try_take(0) && b.try_take(0));
        assert!(!b.try_take(1));
        assert!(b.try_take(2));
        // Capped at the size after a long pause.
        assert_eq!(b.level(1000), 2.0);
    }
}
