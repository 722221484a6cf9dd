//! A retry budget on a service's retries: which library's rule, with its
//! fields resolved (defaults filled in, durations in ticks).

use serde::Serialize;

/// A retry budget, named after the library whose rule it is. The rules
/// are the engine's (`squall_engine::policy::budget`); the book's
/// "Retry budgets" chapter has each with its defaults and source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum BudgetSpec {
    /// gRPC A6 retry throttling: retries while tokens > max / 2.
    Grpc {
        /// `max_tokens`, in (0, 1000].
        max_tokens: u32,
        /// `token_ratio`: credit per successful request.
        token_ratio: f64,
    },
    /// Envoy's retry budget: concurrent retries < max(percent x
    /// (active + pending), min).
    Envoy {
        /// `budget_percent` \[%\].
        budget_percent: f64,
        /// `min_retry_concurrency`.
        min_retry_concurrency: u64,
    },
    /// Finagle's RetryBudget.
    Finagle {
        /// `ttl` \[ticks\].
        ttl: u64,
        /// The reserve: `min_retries_per_sec` x the ttl in seconds.
        reserve: u64,
        /// `percent_can_retry` (0.2 = 20 %).
        percent_can_retry: f64,
    },
    /// The AWS SDK's standard retry quota.
    Aws {
        /// `capacity`.
        capacity: u32,
        /// `retry_cost`.
        retry_cost: u32,
        /// `timeout_cost`.
        timeout_cost: u32,
        /// `success_refund`: given back by a success at the first try.
        success_refund: u32,
    },
    /// A plain token bucket.
    TokenBucket {
        /// `size`: tokens at most (and at the start).
        size: f64,
        /// `per_call`: tokens added by each request.
        per_call: f64,
        /// `per_tick`: tokens added per tick (`refill` as a rate).
        per_tick: f64,
    },
}

impl BudgetSpec {
    /// The kinds a `budget` may name, each with the fields it takes.
    pub const KINDS: &'static [(&'static str, &'static [&'static str])] = &[
        ("grpc", &["max_tokens", "token_ratio"]),
        ("envoy", &["budget_percent", "min_retry_concurrency"]),
        (
            "finagle",
            &["ttl", "min_retries_per_sec", "percent_can_retry"],
        ),
        (
            "aws",
            &["capacity", "retry_cost", "timeout_cost", "success_refund"],
        ),
        ("token_bucket", &["size", "per_call", "refill"]),
    ];

    /// The fields of budget kind `kind`, if it is one.
    pub fn fields_of(kind: &str) -> Option<&'static [&'static str]> {
        Self::KINDS
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, f)| *f)
    }

    /// Fields a kind cannot do without (gRPC's throttling has no defaults;
    /// a token bucket needs its size).
    pub fn required_of(kind: &str) -> &'static [&'static str] {
        match kind {
            "grpc" => &["max_tokens", "token_ratio"],
            "token_bucket" => &["size"],
            _ => &[],
        }
    }
}
