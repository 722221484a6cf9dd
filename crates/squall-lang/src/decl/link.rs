//! A link as declared: its two ends bound, its legs' latencies as written.

use crate::ast::Timed;
use crate::span::Span;

/// `link api -> db { latency ...  answer latency ... }` as declared.
#[derive(Debug, Clone)]
pub struct LinkDecl {
    /// The caller.
    pub caller: usize,
    /// The callee.
    pub callee: usize,
    /// Where `api -> db` is written.
    pub span: Span,
    /// `latency ...` as written.
    pub latency: Option<Timed>,
    /// `answer latency ...` as written.
    pub answer: Option<Timed>,
}
