//! Envoy's retry budget (`circuit_breakers.thresholds[].retry_budget`).
//!
//! Rule (`source/common/upstream/resource_manager_impl.h`,
//! `RetryBudgetImpl::max`): a retry may start iff
//!
//! ```text
//! active_retries < max(floor(budget_percent / 100 * (active + pending)), min_retry_concurrency)
//! ```
//!
//! — a *concurrency* cap checked per retry, not a rate or a bucket.
//! `active` counts requests in flight to the cluster (retries included),
//! `pending` those queued for a connection. The product is truncated to an
//! integer (`std::max<uint64_t>(double, ...)`), so 20 % of 12 requests is
//! 2, not 2.4. Defaults when the budget message is present: 20 % and 3.
//! Newer Envoy also has a `budget_interval` (requests over a fixed window);
//! squall reads the in-flight form, the one every released Envoy has.
//! Nothing here draws a random number or reads time.

/// An Envoy retry budget.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnvoyBudget {
    /// Percent of active + pending requests that may be retries.
    pub budget_percent: f64,
    /// Retries always allowed at once, whatever the traffic.
    pub min_retry_concurrency: u64,
}

impl Default for EnvoyBudget {
    /// Envoy's defaults: 20 %, 3.
    fn default() -> Self {
        EnvoyBudget {
            budget_percent: 20.0,
            min_retry_concurrency: 3,
        }
    }
}

impl EnvoyBudget {
    /// The most retries that may be active with `active` requests in flight
    /// and `pending` queued.
    pub fn max_retries(&self, active: u64, pending: u64) -> u64 {
        let share = self.budget_percent / 100.0 * (active + pending) as f64;
        let share = if share.is_finite() && share > 0.0 {
            share as u64
        } else {
            0
        };
        share.max(self.min_retry_concurrency)
    }

    /// Whether one more retry may start while `active_retries` are active.
    pub fn allows_retry(&self, active_retries: u64, active: u64, pending: u64) -> bool {
        active_retries < self.max_retries(active, pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twenty_percent_of_in_flight_requests_or_at_least_three() {
        let b = EnvoyBudget::default();
        // 100 active + 0 pending: 20 % = 20 concurrent retries.
        assert_eq!(b.max_retries(100, 0), 20);
        assert!(b.allows_retry(19, 100, 0));
        assert!(!b.allows_retry(20, 100, 0));
        // 12 active: 0.2 x 12 = 2.4, truncated to 2, below the floor of 3.
        assert_eq!(b.max_retries(12, 0), 3);
        // Pending requests count like active ones: 0.2 x (40 + 60) = 20.
        assert_eq!(b.max_retries(40, 60), 20);
        // No traffic: the minimum concurrency still allows 3.
        assert!(b.allows_retry(2, 0, 0));
        assert!(!b.allows_retry(3, 0, 0));
    }

    #[test]
    fn ten_percent_without_a_floor() {
        let b = EnvoyBudget {
            budget_percent: 10.0,
            min_retry_concurrency: 0,
        };
        // floor(0.1 x 55) = 5.
        assert_eq!(b.max_retries(55, 0), 5);
        assert_eq!(b.max_retries(9, 0), 0);
        assert!(!b.allows_retry(0, 9, 0));
    }
}
