//! Client-side adaptive throttling: a caller rejects its own tries locally,
//! before sending them, with a probability that grows as its dependency
//! accepts fewer of them (Google SRE book, chapter 21 "Handling Overload",
//! section "Client-side throttling").
//!
//! | kind  | fields (default)                                                |
//! |-------|-----------------------------------------------------------------|
//! | `sre` | `k` (2: the book's multiplier, at least 1), `window` (2 min: the book's trailing window; required under `clock round`), `buckets` (10: go-kratos/aegis `circuitbreaker/sre`'s rolling counter) |
//!
//! The engine gives it its meaning (`squall_engine::policy::throttle`).

use serde::Serialize;

/// A node's client-side throttle on its tries downstream.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ThrottleSpec {
    /// The multiplier `K`: tries go unthrottled while the requests in the
    /// window are at most `K` times the accepts.
    pub k: f64,
    /// The trailing window \[ticks\]: `buckets` buckets of `window / buckets`
    /// ticks each (rounded down, at least one tick).
    pub window: u64,
    /// Buckets in the window.
    pub buckets: u32,
}

impl ThrottleSpec {
    /// Each kind with its fields.
    pub const KINDS: &'static [(&'static str, &'static [&'static str])] =
        &[("sre", &["k", "window", "buckets"])];

    /// The most buckets a window may have (each is kept per client).
    pub const MAX_BUCKETS: u64 = 1000;

    /// The width of one bucket \[ticks\].
    pub fn bucket_width(&self) -> u64 {
        (self.window / u64::from(self.buckets.max(1))).max(1)
    }
}
