//! A fault as declared: the nodes it strikes, when, and what it imposes.

use crate::ast::{EveryAst, Range, ResponseAst, Timed, Value};
use crate::span::Span;

/// A fault as declared.
#[derive(Debug, Clone)]
pub struct FaultDecl {
    /// Name.
    pub name: String,
    /// The nodes it affects.
    pub nodes: Vec<usize>,
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
