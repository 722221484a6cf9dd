//! The AWS SDK's standard-mode retry quota ("retries 2.0").
//!
//! Rule (`botocore/retries/quota.py`, `standard.py`; Java v2 and JS v3
//! ship the same constants):
//!
//! * one bucket per client, `capacity` 500, starting full;
//! * a retry costs 5 (10 when the failure was a timeout or connection
//!   error), and is refused when the cost exceeds what is left
//!   ([`AwsQuota::acquire`]); a refused retry takes nothing;
//! * a success with no retry gives back 1; a success after retries gives
//!   back the cost of its last retry ([`AwsQuota::on_success`]); a failure
//!   gives back nothing; never above the capacity.
//!
//! squall keeps the "2.0" constants as the default (the "2.1" opt-in set —
//! cost 14, throttling 5 — is a field change: `retry_cost 14`).
//! Nothing here draws a random number or reads time.

/// An AWS retry quota.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AwsQuota {
    capacity: u32,
    available: u32,
    retry_cost: u32,
    timeout_cost: u32,
    success_refund: u32,
}

impl AwsQuota {
    /// A full quota.
    pub fn new(capacity: u32, retry_cost: u32, timeout_cost: u32, success_refund: u32) -> Self {
        AwsQuota {
            capacity,
            available: capacity,
            retry_cost,
            timeout_cost,
            success_refund,
        }
    }

    /// The SDKs' standard mode: 500, 5, 10, 1.
    pub fn standard() -> Self {
        Self::new(500, 5, 10, 1)
    }

    /// Asks for a retry after a failure (`timeout`: a timeout or
    /// connection error); the cost taken, or `None` when refused.
    pub fn acquire(&mut self, timeout: bool) -> Option<u32> {
        let cost = if timeout {
            self.timeout_cost
        } else {
            self.retry_cost
        };
        if cost > self.available {
            return None;
        }
        self.available -= cost;
        Some(cost)
    }

    /// A request succeeded; `last_cost` is what its last retry cost
    /// (`None` when it succeeded at the first try).
    pub fn on_success(&mut self, last_cost: Option<u32>) {
        let back = last_cost.unwrap_or(self.success_refund);
        self.available = (self.available + back).min(self.capacity);
    }

    /// Capacity left.
    pub fn available(&self) -> u32 {
        self.available
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_quota_pays_for_a_hundred_retries() {
        // 500 / 5 = 100 retries after ordinary errors, the 101st refused.
        let mut q = AwsQuota::standard();
        let n = (0..1000).take_while(|_| q.acquire(false).is_some()).count();
        assert_eq!(n, 500 / 5);
        assert_eq!(q.available(), 0);
        // After timeouts (cost 10): 50.
        let mut q = AwsQuota::standard();
        let n = (0..1000).take_while(|_| q.acquire(true).is_some()).count();
        assert_eq!(n, 500 / 10);
    }

    #[test]
    fn after_n_failed_retries() {
        // N = 37 failed retries leave 500 - 5 x 37 = 315.
        let mut q = AwsQuota::standard();
        for _ in 0..37 {
            q.acquire(false);
        }
        assert_eq!(q.available(), 500 - 5 * 37);
        // A request that then succeeds after a timeout retry: -10, +10.
        let cost = q.acquire(true);
        q.on_success(cost);
        assert_eq!(q.available(), 315);
        // A clean success gives 1.
        q.on_success(None);
        assert_eq!(q.available(), 316);
    }

    #[test]
    fn refunds_stop_at_the_capacity() {
        let mut q = AwsQuota::standard();
        q.on_success(None);
        assert_eq!(q.available(), 500);
        // 3 left: a cost of 5 is refused and takes nothing.
        let mut q = AwsQuota::new(3, 5, 10, 1);
        assert_eq!(q.acquire(false), None);
        assert_eq!(q.available(), 3);
    }
}
