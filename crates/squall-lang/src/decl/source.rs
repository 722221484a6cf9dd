//! A source as declared: the node it enters and its arrivals as written.

use crate::ast::{AtTime, Ident, OpAst, RateAst, RequestAst, Timed};
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
    pub times: Vec<AtTime>,
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
    /// `serial every ...` as written (serial clients).
    pub serial: Option<Timed>,
    /// `priority N` as written.
    pub priority: Option<Timed>,
}

/// A source that feeds a sender (`enters outbox`, where `outbox` is a
/// `sender` block): each request it makes is a record the sender creates
/// at that moment. Its `entry` is unused (0); `sender` names the block.
#[derive(Debug, Clone)]
pub struct FeedDecl {
    /// The sender it feeds, as written after `enters`.
    pub sender: Ident,
    /// The source, read like any other (rates, periods, `at` times).
    pub source: SourceDecl,
}
