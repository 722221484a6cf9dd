//! Retry budgets: whether a retry that the retry policy would make may go,
//! given what the service's recent traffic has earned.
//!
//! Five libraries use the word for five rules (POLICIES.md §1.8, item 4);
//! each has its file, named after the library:
//!
//! | kind           | file               | state                         | a retry goes iff                                       |
//! |----------------|--------------------|-------------------------------|--------------------------------------------------------|
//! | `grpc`         | [`grpc`]           | tokens in `[0, max]`          | tokens `> max / 2` (after this failure's −1)           |
//! | `envoy`        | [`envoy`]          | none (reads concurrency)      | active retries `< max(⌊pct·(active+pending)⌋, min)`    |
//! | `finagle`      | [`finagle`]        | windowed deposits/withdrawals | window + reserve `≥ 1000 / percent`                     |
//! | `aws`          | [`aws`]            | capacity in `[0, 500]`        | cost (5, timeout 10) `≤` capacity                      |
//! | `token_bucket` | [`token_bucket`]   | tokens in `[0, size]`         | at least one token                                      |
//!
//! [`Budget`] puts them behind one set of hooks, called by the event loop
//! in this order for one service's retry loop:
//!
//! 1. [`Budget::on_request`] when a request reaches the service (Finagle
//!    deposits; a per-call bucket refills);
//! 2. [`Budget::on_failure`] for every failed try whose failure is
//!    retryable, before anything else is decided (gRPC takes a token);
//! 3. [`Budget::try_retry`] only when the retry policy has a try left; a
//!    refusal ends the loop with the failure, nothing waits;
//! 4. [`Budget::on_success`] when the request succeeds at this service
//!    (gRPC credits the ratio; AWS refunds).
//!
//! No budget draws a random number; Finagle and the token bucket read the
//! time they are given (any unit, as long as it is one unit throughout).

pub mod aws;
pub mod envoy;
pub mod finagle;
pub mod grpc;
pub mod token_bucket;

use aws::AwsQuota;
use envoy::EnvoyBudget;
use finagle::FinagleBudget;
use grpc::GrpcThrottle;
use token_bucket::RetryBucket;

/// The concurrency an Envoy budget reads, counted by the caller.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Load {
    /// Requests in flight to the dependency (retries included).
    pub active: u64,
    /// Requests queued for it.
    pub pending: u64,
    /// Retries in flight.
    pub active_retries: u64,
}

/// One service's (or one client's) retry budget.
#[derive(Debug, Clone, PartialEq)]
pub enum Budget {
    /// gRPC A6 retry throttling.
    Grpc(GrpcThrottle),
    /// Envoy's retry budget.
    Envoy(EnvoyBudget),
    /// Finagle's RetryBudget.
    Finagle(FinagleBudget),
    /// The AWS SDK's standard retry quota.
    Aws(AwsQuota),
    /// A plain token bucket.
    TokenBucket(RetryBucket),
}

/// A retry the budget let through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grant {
    /// What it cost (AWS: refunded if the request then succeeds).
    pub cost: u32,
}

impl Budget {
    /// The budget a model's spec describes, fresh (every bucket full).
    pub fn from_spec(spec: &squall_lang::BudgetSpec) -> Self {
        use squall_lang::BudgetSpec as S;
        match *spec {
            S::Grpc {
                max_tokens,
                token_ratio,
            } => Budget::Grpc(GrpcThrottle::new(max_tokens, token_ratio)),
            S::Envoy {
                budget_percent,
                min_retry_concurrency,
            } => Budget::Envoy(EnvoyBudget {
                budget_percent,
                min_retry_concurrency,
            }),
            S::Finagle {
                ttl,
                reserve,
                percent_can_retry,
            } => Budget::Finagle(FinagleBudget::with_reserve(ttl, reserve, percent_can_retry)),
            S::Aws {
                capacity,
                retry_cost,
                timeout_cost,
                success_refund,
            } => Budget::Aws(AwsQuota::new(
                capacity,
                retry_cost,
                timeout_cost,
                success_refund,
            )),
            S::TokenBucket {
                size,
                per_call,
                per_tick,
            } => Budget::TokenBucket(RetryBucket::new(size, per_call, per_tick)),
        }
    }

    /// A request reaches the service at `now`.
    pub fn on_request(&mut self, now: u64) {
        match self {
            Budget::Finagle(b) => b.deposit(now),
            Budget::TokenBucket(b) => b.on_request(now),
            Budget::Grpc(_) | Budget::Envoy(_) | Budget::Aws(_) => {}
        }
    }

    /// A try failed with a retryable failure.
    pub fn on_failure(&mut self) {
        if let Budget::Grpc(b) = self {
            b.on_failure();
        }
    }

    /// Asks for a retry at `now` after a failure (`timeout`: a timeout or
    /// network error), with `load` in flight; `None` when refused.
    pub fn try_retry(&mut self, now: u64, timeout: bool, load: Load) -> Option<Grant> {
        let granted = |ok: bool| ok.then_some(Grant { cost: 0 });
        match self {
            Budget::Grpc(b) => granted(b.allows_retry()),
            Budget::Envoy(b) => {
                granted(b.allows_retry(load.active_retries, load.active, load.pending))
            }
            Budget::Finagle(b) => granted(b.try_withdraw(now)),
            Budget::Aws(b) => b.acquire(timeout).map(|cost| Grant { cost }),
            Budget::TokenBucket(b) => granted(b.try_take(now)),
        }
    }

    /// The request succeeded at the service; `last` is the grant of its
    /// last retry (`None` when it succeeded at the first try).
    pub fn on_success(&mut self, last: Option<Grant>) {
        match self {
            Budget::Grpc(b) => b.on_success(),
            Budget::Aws(b) => b.on_success(last.map(|g| g.cost)),
            Budget::Envoy(_) | Budget::Finagle(_) | Budget::TokenBucket(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The load one request sees at a dependency that always fails, under
    /// a `tries`-try policy and `budget`: calls per request, averaged over
    /// `n` requests made one after another.
    fn load_when_down(mut budget: Budget, tries: u32, n: u32) -> f64 {
        let mut calls = 0u64;
        for t in 0..u64::from(n) {
            budget.on_request(t);
            let mut made = 1;
            calls += 1;
            loop {
                budget.on_failure();
                if made >= tries || budget.try_retry(t, false, Load::default()).is_none() {
                    break;
                }
                made += 1;
                calls += 1;
            }
        }
        calls as f64 / f64::from(n)
    }

    #[test]
    fn budgets_cap_the_load_on_a_dependency_that_is_down() {
        // Without a budget 3 tries make 3 calls per request. A gRPC bucket
        // (10, 0.1) never earns a token back (no success), and every failed
        // try takes one, the last try of a loop included: request 1 fails
        // at 9 (retry), 8 (retry), 7 (no try left); request 2 at 6 (retry),
        // 5 (refused: not above 10/2); every later one at <= 5. Three
        // retries in all: the load is 1 + 3/n. Finagle's defaults allow 0.2
        // per request plus 100 per ttl; all n requests at t < 10 s fall in
        // one window. AWS: 500 / 5 = 100 retries, never refunded.
        let n = 1000;
        let grpc = load_when_down(Budget::Grpc(GrpcThrottle::new(10, 0.1)), 3, n);
        assert_eq!(grpc, 1.0 + 3.0 / f64::from(n));
        let fin = load_when_down(Budget::Finagle(FinagleBudget::finagle_default(1000)), 3, n);
        assert_eq!(fin, 1.0 + (0.2 * f64::from(n) + 100.0) / f64::from(n));
        let aws = load_when_down(Budget::Aws(AwsQuota::standard()), 3, n);
        assert_eq!(aws, 1.0 + 100.0 / f64::from(n));
    }

    /// Calls, retries and successful requests of `n` requests made one
    /// after another against a dependency failing each try with
    /// probability `p`, under a `tries`-try policy and an optional budget.
    fn run(p: f64, tries: u32, n: u32, mut budget: Option<Budget>) -> (u64, u64, u64) {
        let mut draws = crate::rng::Stream::new(7, "budget-test");
        let (mut calls, mut retries, mut successes) = (0u64, 0u64, 0u64);
        for t in 0..u64::from(n) {
            if let Some(b) = budget.as_mut() {
                b.on_request(t);
            }
            let mut made = 0;
            let mut last = None;
            loop {
                made += 1;
                calls += 1;
                if draws.next_f64() >= p {
                    successes += 1;
                    if let Some(b) = budget.as_mut() {
                        b.on_success(last);
                    }
                    break;
                }
                if let Some(b) = budget.as_mut() {
                    b.on_failure();
                }
                if made >= tries {
                    break;
                }
                match budget.as_mut() {
                    None => {}
                    Some(b) => match b.try_retry(t, false, Load::default()) {
                        Some(g) => last = Some(g),
                        None => break,
                    },
                }
                retries += 1;
            }
        }
        (calls, retries, successes)
    }

    #[test]
    fn retry_load_with_and_without_a_grpc_bucket() {
        // Without a budget, 3 tries at failure probability p make
        // 1 + p + p^2 calls per request on average. n = 200 000 requests:
        // a request's call count has variance below 1, so the mean's
        // standard error is below 1/sqrt(n) = 0.0022; 0.01 is over 4
        // standard errors.
        //
        // With a gRPC bucket (10, 0.1) a retry is granted only after a
        // failure that left more than 5 tokens, i.e. a decrement taken
        // entirely above 5. The level above 5 starts at 5 and grows only by
        // 0.1 per successful request, so retries <= 5 + 0.1 x successes,
        // exactly, for any p: the extra load is at most 10 % (+ 5/n).
        let n = 200_000;
        for p in [0.1, 0.5, 0.9] {
            let (calls, _, _) = run(p, 3, n, None);
            let load = calls as f64 / f64::from(n);
            assert!((load - (1.0 + p + p * p)).abs() < 0.01, "p {p}: {load}");

            let grpc = Budget::Grpc(GrpcThrottle::new(10, 0.1));
            let (calls, retries, successes) = run(p, 3, n, Some(grpc));
            assert!(
                retries as f64 <= 5.0 + 0.1 * successes as f64 + 1e-9,
                "p {p}: {retries} retries, {successes} successes"
            );
            let with = calls as f64 / f64::from(n);
            assert!(with <= 1.1 + 5.0 / f64::from(n), "p {p}: {with}");
            assert!(with <= load + 0.01, "p {p}: a budget never adds load");
        }
    }
}
