//! A circuit breaker named after its library (resilience4j, Polly): a
//! failure rate over a sliding window rather than a run of failures.

use serde::Serialize;

/// A library's rate-window breaker, its fields resolved (defaults filled
/// in, durations in ticks). The rules are the engine's
/// (`squall_engine::policy::breaker::{resilience4j, polly}`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum LibraryBreakerSpec {
    /// resilience4j's `CircuitBreaker`.
    Resilience4j {
        /// Count-based window of this many calls, or `None` for time-based.
        window_calls: Option<u64>,
        /// Time-based window \[ticks\], in buckets of `bucket` ticks.
        window: u64,
        /// One bucket of a time-based window (a second) \[ticks\].
        bucket: u64,
        /// `minimum_calls`.
        minimum_calls: u64,
        /// `failure_rate` \[%\].
        failure_rate: f64,
        /// `slow_call_rate` \[%\].
        slow_call_rate: f64,
        /// `slow_call_duration` \[ticks\].
        slow_call_duration: u64,
        /// `wait_open` \[ticks\].
        wait_open: u64,
        /// `open_jitter`, a factor in [0, 1].
        open_jitter: f64,
        /// `half_open_calls`.
        half_open_calls: u32,
        /// `automatic_half_open` (1) or lazy (0).
        automatic: bool,
    },
    /// Polly v8's advanced circuit breaker.
    Polly {
        /// `failure_ratio` in [0, 1].
        failure_ratio: f64,
        /// `minimum_throughput`.
        minimum_throughput: u64,
        /// `sampling` \[ticks\].
        sampling: u64,
        /// One window when `sampling` is shorter (200 ms) \[ticks\].
        short_sampling: u64,
        /// `break_duration` \[ticks\].
        break_duration: u64,
        /// `open_jitter`, a factor in [0, 1].
        open_jitter: f64,
    },
}

impl LibraryBreakerSpec {
    /// The kinds a `breaker KIND` may name, each with the fields it takes.
    pub const KINDS: &'static [(&'static str, &'static [&'static str])] = &[
        (
            "resilience4j",
            &[
                "window_calls",
                "window",
                "minimum_calls",
                "failure_rate",
                "slow_call_rate",
                "slow_call_duration",
                "wait_open",
                "open_jitter",
                "half_open_calls",
                "automatic_half_open",
            ],
        ),
        (
            "polly",
            &[
                "failure_ratio",
                "minimum_throughput",
                "sampling",
                "break_duration",
                "open_jitter",
            ],
        ),
    ];

    /// The fields of breaker kind `kind`, if it is one.
    pub fn fields_of(kind: &str) -> Option<&'static [&'static str]> {
        Self::KINDS
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, f)| *f)
    }
}
