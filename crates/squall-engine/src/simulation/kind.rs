//! [`Kind`]: what a request is, prepared once per run.
//!
//! The builder turns every source (and every operation of a sequential
//! source) into a kind: the request's method and path, the retry policy its
//! entry node uses for it, and which per-path breaker scope it falls in. A
//! request in flight carries only the index of its kind.

use squall_lang::{RequestSpec, RetrySpec};

/// What a request is: its method and path, and the retry policy its entry
/// node uses for it (an operation's own, or the node's).
#[derive(Debug, Clone)]
pub(super) struct Kind {
    pub(super) request: RequestSpec,
    /// Index of the request's path among the distinct paths of the model
    /// (the scope of a `per path` breaker).
    pub(super) scope: usize,
    pub(super) entry_retry: Option<RetrySpec>,
    /// The operation, for sequential sources.
    pub(super) op: Option<usize>,
}
