//! The libraries' own backoffs and their readings of a server's
//! Retry-After (pushback), each with its library's defaults.
//!
//! | kind                 | fields (default)                                   |
//! |----------------------|----------------------------------------------------|
//! | `grpc`               | `initial`, `max`, `multiplier` (all required, as in gRFC A6) |
//! | `envoy`              | `base` (25 ms), `max` (10 x base)                  |
//! | `envoy_docs`         | `base` (25 ms), `max` (10 x base)                  |
//! | `polly_decorrelated` | `median` (Polly's `Delay`, 2 s), `max` (none)      |
//! | `aws`                | `base` (100 ms, Java v2 and JS v3), `cap` (20 s)   |
//!
//! | pushback      | fields (default)         |
//! |---------------|--------------------------|
//! | `grpc`        | none                     |
//! | `retry_after` | `max_interval` (300 s)   |
//!
//! The engine gives them their meaning (`squall_engine::policy::backoff::library`).

use serde::Serialize;

/// A library's own backoff \[ticks\].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum LibraryBackoff {
    /// gRFC A6 (2024 text): `min(initial · multiplier^(n−1), max) · U(0.8, 1.2)`.
    Grpc {
        /// `initialBackoff` \[ticks\].
        initial: u64,
        /// `maxBackoff` \[ticks\].
        max: u64,
        /// `backoffMultiplier`.
        multiplier: f64,
    },
    /// Envoy's full jitter: the code's doubling range (`docs` false) or
    /// the documented `(2^n − 1) · base` (`docs` true).
    Envoy {
        /// `base_interval` \[ticks\].
        base: u64,
        /// `max_interval` \[ticks\].
        max: u64,
        /// The documentation's reading rather than the code's.
        docs: bool,
    },
    /// Polly v8's decorrelated jitter V2 around a median delay.
    Polly {
        /// `Delay` \[ticks\]: the median of the first wait.
        median: u64,
        /// `MaxDelay` \[ticks\].
        max: Option<u64>,
    },
    /// The AWS SDK's standard mode: `U(0, 1) · min(base · 2^(n−1), cap)`.
    Aws {
        /// Base delay \[ticks\].
        base: u64,
        /// Largest wait \[ticks\].
        cap: u64,
    },
}

impl LibraryBackoff {
    /// Each kind with its fields, as the language spells them.
    pub const KINDS: &'static [(&'static str, &'static [&'static str])] = &[
        ("grpc", &["initial", "max", "multiplier"]),
        ("envoy", &["base", "max"]),
        ("envoy_docs", &["base", "max"]),
        ("polly_decorrelated", &["median", "max"]),
        ("aws", &["base", "cap"]),
    ];

    /// Fields a kind cannot do without (gRFC A6 gives no defaults).
    pub fn required_of(kind: &str) -> &'static [&'static str] {
        match kind {
            "grpc" => &["initial", "max", "multiplier"],
            _ => &[],
        }
    }
}

/// How a retry policy reads a server's Retry-After.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Pushback {
    /// gRPC's `grpc-retry-pushback-ms`: wait exactly that long, and count
    /// the backoff's retries again from the first.
    Grpc,
    /// Envoy's `rate_limited_retry_back_off`: a Retry-After of at most
    /// `max_interval` gives a wait drawn from `[interval, 1.5 · interval)`;
    /// a longer one is ignored (the backoff applies).
    RetryAfter {
        /// `max_interval` \[ticks\].
        max_interval: u64,
    },
}

impl Pushback {
    /// Each kind with its fields.
    pub const KINDS: &'static [(&'static str, &'static [&'static str])] =
        &[("grpc", &[]), ("retry_after", &["max_interval"])];
}
