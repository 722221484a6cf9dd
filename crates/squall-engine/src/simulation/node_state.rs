//! [`NodeState`]: the run-time state of one node, one field per component.
//!
//! A node's caller side ([`CallerSide`]: breakers, retry budgets, per-try
//! timeout, hedging) and its server side ([`ServerSide`]: faults,
//! capacity, script and composite ledger, rate limit, workers and queue,
//! latency). Both paths drive the same two.

use squall_lang::Model;

use crate::caller::CallerSide;
use crate::server::node::ServerSide;
use crate::time::Resolution;

/// Per-node run-time state.
#[derive(Debug, Clone)]
pub(super) struct NodeState {
    /// What the node does around the calls it sends downstream.
    pub(super) caller: CallerSide,
    /// What the node does to the calls it receives.
    pub(super) server: ServerSide,
}

impl NodeState {
    /// The state of node `i` of `model` before the run, with `scopes`
    /// distinct request paths for a `per path` breaker, on a run that
    /// takes time (`timed`) or not, under the run's `seed`.
    pub(super) fn new(model: &Model, i: usize, scopes: usize, timed: bool, seed: u64) -> Self {
        let res = timed.then(|| Resolution::fine(model.clock));
        NodeState {
            caller: CallerSide::new(model, i, scopes, timed),
            server: ServerSide::new(model, i, seed, res),
        }
    }
}
