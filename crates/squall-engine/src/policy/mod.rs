//! The caller's resilience policies: what a service does when a call it
//! sent fails.
//!
//! * [`retry`] — whether a failure is worth another try
//!   ([`retry::classify`]), and how long to wait before it
//!   ([`retry::next_wait`]): the try limit, the deadline, Retry-After.
//! * [`backoff`] — the wait before retry `n` under each backoff policy, and
//!   [`backoff::sample_wait`], the one function that draws a jittered wait
//!   (the engine's retries and the report's `waits` and `herd` tables both
//!   call it).
//! * [`breaker`] — the circuit breaker (closed, open, half-open) and what it
//!   counts as a failure of the dependency; the libraries' rate-window
//!   breakers (resilience4j, Polly) in its submodules.
//! * [`budget`] — retry budgets as gRPC, Envoy, Finagle, the AWS SDK and a
//!   plain token bucket run them.
//! * [`codel`] — not the caller's: CoDel as folly runs it on a server's
//!   queue, which a node's `discipline adaptive_lifo` asks whether a call
//!   a worker takes has waited too long (`server/ordered.rs`).
//! * [`gate`] — the retry gate on a failure ratio of mbrooker's
//!   `retry_sim` (retries only while failed tries per request stay at or
//!   under a threshold).
//! * [`limiter`] — adaptive concurrency limits as Netflix's
//!   concurrency-limits (AIMD, Vegas, Gradient2) and Envoy's adaptive
//!   concurrency filter run them.
//! * [`throttle`] — client-side adaptive throttling as the Google SRE book
//!   gives it (a try is rejected locally with probability
//!   `max(0, (requests - K * accepts) / (requests + 1))`).
//!
//! The policies are plain functions and small state machines over the
//! validated model's specs (`RetrySpec`, `Backoff`, `BreakerSpec`); the
//! event loop in [`crate::simulation`] decides when to ask them. Times are
//! ticks.

pub mod backoff;
pub mod breaker;
pub mod budget;
pub mod codel;
pub mod gate;
pub mod limiter;
pub mod retry;
pub mod throttle;
