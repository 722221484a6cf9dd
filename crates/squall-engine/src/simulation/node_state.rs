//! [`NodeState`]: the run-time state of one node, one field per component.
//!
//! A node's caller side ([`CallerSide`]: breakers, retry budgets, per-try
//! timeout, hedging), its capacity ([`Capacity`]), its failing faults
//! ([`Failing`]), where its route scripts stand ([`Script`]) and, for a
//! composite response, its ledger: the tick of each field's last fresh
//! value.

use squall_lang::Model;

use crate::caller::CallerSide;
use crate::server::capacity::Capacity;
use crate::server::fault::Failing;
use crate::server::script::Script;

use super::NEVER;

/// Per-node run-time state.
#[derive(Debug, Clone)]
pub(super) struct NodeState {
    /// What the node does around the calls it sends downstream.
    pub(super) caller: CallerSide,
    /// Calls per tick, and what is left in the current tick.
    pub(super) capacity: Capacity,
    /// Faults that make the node fail.
    pub(super) failing: Failing,
    /// Its scripted routes' positions and call counts.
    pub(super) script: Script,
    /// Tick of each composite field's last fresh value (the ledger).
    pub(super) ledger: Vec<u64>,
}

impl NodeState {
    /// The state of node `i` of `model` before the run, with `scopes`
    /// distinct request paths for a `per path` breaker, on a run that
    /// takes time (`timed`) or not.
    pub(super) fn new(model: &Model, i: usize, scopes: usize, timed: bool) -> Self {
        let n = &model.nodes[i];
        NodeState {
            caller: CallerSide::new(model, i, scopes, timed),
            capacity: Capacity::new(model, i),
            failing: Failing::new(model, i),
            script: Script::new(n.routes.len()),
            ledger: vec![NEVER; n.composite.as_ref().map_or(0, |c| c.fields.len())],
        }
    }
}
