//! A fault as declared: the nodes it strikes, when, and what it imposes.

use crate::ast::{EveryAst, Range, ResponseAst, Timed, Value};
use crate::span::Span;

/// A fault as declared.
#[derive(Debug, Clone)]
pub struct FaultDecl {
    /// Name.
    pub name: String,
    /// The nodes it affects (for a link, its callee).
    pub nodes: Vec<usize>,
    /// For each of `nodes`, the caller of a link (`on api -> db`), or none
    /// for a fault on the node itself.
    pub callers: Vec<Option<usize>>,
    /// For each of `nodes`, where its target is written.
    pub spans: Vec<Span>,
    /// For each of `nodes`, the one replica it strikes (`on api[1]`: the
    /// index as written and where), or none for every replica.
    pub replicas: Vec<Option<(u64, Span)>>,
    /// When.
    pub during: Range,
    /// The capacity it imposes.
    pub capacity: Option<Value>,
    /// The answer it imposes.
    pub fail: Option<ResponseAst>,
    /// `every ...`: it strikes only periodically.
    pub every: Option<EveryAst>,
    /// `latency ...`, `errors ...`, `workers ...` as written.
    pub timed: Vec<Timed>,
}
