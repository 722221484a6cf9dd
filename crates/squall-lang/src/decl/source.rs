//! A source as declared: the node it enters and its arrivals as written.

use crate::ast::{OpAst, RateAst, RequestAst, Timed, Value};
use crate::model::Arrivals;

/// A source as declared.
#[derive(Debug, Clone)]
pub struct SourceDecl {
    /// Name.
    pub name: String,
    /// The node it enters.
    pub entry: usize,
    /// How arrivals are spread.
    pub arrivals: Arrivals,
    /// Its `rate` lines.
    pub rates: Vec<RateAst>,
    /// `at [..]` times.
    pub times: Vec<Value>,
    /// `request ...`
    pub request: Option<RequestAst>,
    /// `sequential { op ... }`
    pub ops: Vec<OpAst>,
    /// `deadline ...` as written.
    pub deadline: Option<Timed>,
    /// `clients N` as written.
    pub clients: Option<Timed>,
    /// `think ...` as written (a closed loop).
    pub think: Option<Timed>,
}
