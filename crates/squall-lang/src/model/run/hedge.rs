//! Hedging: a caller sends more tries of the same call without waiting for
//! the first to fail (gRFC A6 `hedgingPolicy`).
//!
//! | kind   | fields (default)                                                |
//! |--------|-----------------------------------------------------------------|
//! | `grpc` | `max_attempts` (required, 2..=5: A6 caps it at 5), `hedging_delay` (0: every try at once) |
//!
//! The engine gives it its meaning (`squall_engine::simulation::timed`,
//! `hedge`).

use serde::Serialize;

/// A node's hedging policy on its calls downstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct HedgeSpec {
    /// Tries, the first one included (`maxAttempts`).
    pub max_attempts: u32,
    /// Between one try and the next \[ticks\] (`hedgingDelay`).
    pub delay: u64,
}

impl HedgeSpec {
    /// Each kind with its fields.
    pub const KINDS: &'static [(&'static str, &'static [&'static str])] =
        &[("grpc", &["max_attempts", "hedging_delay"])];

    /// A6's cap on `maxAttempts`.
    pub const MAX_ATTEMPTS: u64 = 5;
}
