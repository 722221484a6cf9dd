//! A node as declared: where it sits in the call graph, and its values as
//! written (resolved per run by [`crate::resolve`]).

use crate::ast::{BreakerAst, KindBlockAst, ResponseBlockAst, RetryAst, RouteAst, Timed, Value};
use crate::span::Span;

/// A node as declared: its place in the graph and its unresolved values.
#[derive(Debug, Clone)]
pub struct NodeDecl {
    /// Name.
    pub name: String,
    /// Where it was first named.
    pub span: Span,
    /// The node it calls.
    pub downstream: Option<usize>,
    /// `capacity` as written.
    pub capacity: Option<Value>,
    /// `retry { ... }` as written.
    pub retry: Option<RetryAst>,
    /// `breaker { ... }` as written.
    pub breaker: Option<BreakerAst>,
    /// `breaker KIND { ... }` as written.
    pub library_breaker: Option<KindBlockAst>,
    /// `budget KIND { ... }` as written.
    pub budget: Option<KindBlockAst>,
    /// `hedge KIND { ... }` as written.
    pub hedge: Option<KindBlockAst>,
    /// `limiter KIND { ... }` as written.
    pub limiter: Option<KindBlockAst>,
    /// `throttle KIND { ... }` as written.
    pub throttle: Option<KindBlockAst>,
    /// Scripted routes (`endpoint`).
    pub routes: Vec<RouteAst>,
    /// Nodes it fans out to (`chain a -> [b, c]`).
    pub fanout: Vec<usize>,
    /// `response { ... }` as written.
    pub response: Option<ResponseBlockAst>,
    /// Settings of calls that take time (`latency`, `workers`, `timeout`,
    /// ...), one per keyword, as written.
    pub timed: Vec<Timed>,
}

impl NodeDecl {
    /// Its caller's block of `kind` (`budget`, `hedge` or `limiter`) named
    /// by its library, as written.
    pub(crate) fn kind_block(&mut self, kind: &str) -> &mut Option<KindBlockAst> {
        match kind {
            "budget" => &mut self.budget,
            "hedge" => &mut self.hedge,
            "throttle" => &mut self.throttle,
            _ => &mut self.limiter,
        }
    }
}
