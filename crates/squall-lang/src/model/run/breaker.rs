//! The circuit breaker on a node's calls to its downstream node.

use serde::Serialize;

/// A circuit breaker on a node's calls to its downstream node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BreakerSpec {
    /// Consecutive failures that open it.
    pub threshold: u32,
    /// Ticks it stays open before letting a probe through.
    pub cooldown: u64,
    /// Calls let through at once while half-open.
    pub probes: u32,
    /// One breaker per request path instead of one for all calls.
    pub per_path: bool,
}
