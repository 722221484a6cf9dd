//! The answers a node can give: a status (with its `Retry-After`), a
//! network error, a timeout, a broken body.

use serde::Serialize;

/// A response a node can give.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ResponseSpec {
    /// A status code; 2xx is success.
    Status {
        /// The code.
        code: u32,
        /// Retry-After.
        retry_after: Option<RetryAfter>,
    },
    /// The connection failed before an answer.
    NetworkError,
    /// No answer in time.
    Timeout,
    /// The answer's body could not be read.
    BodyError,
}

/// A server's Retry-After.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RetryAfter {
    /// Wait at least this many ticks.
    Delay(u64),
    /// Wait until this tick.
    At(u64),
}
