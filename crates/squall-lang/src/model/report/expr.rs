//! Resolved report expressions and the built-in functions they call.

use serde::Serialize;

use super::{Metric, SendMetric};

/// A resolved expression.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum RExpr {
    /// A constant.
    Number(f64),
    /// A param's value in the row's run.
    Param(String),
    /// A measured value; `None` parts come from the row's context.
    Metric {
        /// Which variant.
        variant: Option<usize>,
        /// Which window.
        window: Option<usize>,
        /// Which node.
        node: Option<usize>,
        /// Which replica of the node (`api[1].calls`); `None`: the node,
        /// the sum over its replicas.
        #[serde(skip_serializing_if = "Option::is_none")]
        replica: Option<u32>,
        /// What.
        metric: Metric,
    },
    /// A measure's value in a variant (`None`: the row's).
    Measure {
        /// Which variant.
        variant: Option<usize>,
        /// Which measure.
        measure: usize,
    },
    /// A sending study's value (`fixed.outbox.delivered`); `None`
    /// variant: the row's.
    Sending {
        /// Which variant.
        variant: Option<usize>,
        /// Which sender, by index in the scenario.
        sender: usize,
        /// What.
        metric: SendMetric,
    },
    /// A built-in function.
    Call(Func, Vec<RExpr>),
    /// `-x`
    Neg(Box<RExpr>),
    /// `a op b`
    Binary(crate::ast::BinOp, Box<RExpr>, Box<RExpr>),
}

/// Built-in functions, with their name arguments bound.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Func {
    /// `recovery(node, fault, threshold)`: ticks from the fault's last tick to
    /// the first later tick where the node's calls are at or below threshold.
    Recovery {
        /// The node.
        node: usize,
        /// The fault, by index in the scenario.
        fault: usize,
    },
    /// `peak(node)`: the most calls the node saw in one tick.
    Peak {
        /// The node.
        node: usize,
    },
    /// `peak_tick(node)`: the first tick with the most calls.
    PeakTick {
        /// The node.
        node: usize,
    },
    /// `call_bound(node)`: the most calls one request can make at the node
    /// (the product of the tries of every service above it).
    CallBound {
        /// The node.
        node: usize,
    },
    /// `route_calls(node, route)`: calls a scripted route answered.
    RouteCalls {
        /// The node.
        node: usize,
        /// The route, by index among the node's routes.
        route: usize,
    },
    /// `fields(node)`: fields of a composite response.
    Fields {
        /// The node.
        node: usize,
    },
    /// `marker(node)`: bytes of a composite response's freshness marker.
    Marker {
        /// The node.
        node: usize,
    },
    /// `response_bytes(node)`: the sum of a composite response's field sizes.
    ResponseBytes {
        /// The node.
        node: usize,
    },
    /// `ledger_entries(node)`: entries of a composite response's ledger.
    LedgerEntries {
        /// The node.
        node: usize,
    },
    /// `minutes(ticks)`: ticks as minutes of wall-clock time.
    Minutes,
    /// `seconds(ticks)`: ticks as seconds of wall-clock time.
    Seconds,
    /// `per_second(rate)`: a rate per tick as a rate per second of
    /// wall-clock time.
    PerSecond,
    /// `min(a, b, ...)`
    Min,
    /// `max(a, b, ...)`
    Max,
    /// `abs(a)`
    Abs,
}
