//! [`NodeState`]: the run-time state of one node, one field per component.
//!
//! A node's capacity ([`Capacity`]), its failing faults ([`Failing`]), the
//! circuit breakers on its downstream calls ([`Breaker`]), where its route
//! scripts stand ([`Script`]) and, for a composite response, its ledger:
//! the tick of each field's last fresh value.

use squall_lang::Model;

use crate::policy::breaker::any::AnyBreaker;
use crate::policy::breaker::Breaker;
use crate::policy::budget::Budget;
use crate::server::capacity::Capacity;
use crate::server::fault::Failing;
use crate::server::script::Script;

use super::NEVER;

/// Per-node run-time state.
#[derive(Debug, Clone)]
pub(super) struct NodeState {
    /// Calls per tick, and what is left in the current tick.
    pub(super) capacity: Capacity,
    /// Faults that make the node fail.
    pub(super) failing: Failing,
    /// The breakers on its downstream calls: one, or one per request path
    /// (indexed like [`Kind::scope`](super::kind::Kind::scope)).
    pub(super) breakers: Vec<AnyBreaker>,
    /// How many of `breakers` are the node's own (the rest are per-client
    /// breakers of the sources that enter it: `clients`).
    pub(super) shared_breakers: usize,
    /// The retry budget on its retries, if any.
    pub(super) budget: Option<Budget>,
    /// The per-client budgets of the sources that enter it (`clients`).
    pub(super) client_budgets: Vec<Budget>,
    /// Requests open at the node (its retry loop started, not yet
    /// answered) and, of those, waiting for a retry: the concurrency an
    /// Envoy budget reads (kept only for a node with a budget).
    pub(super) open: u64,
    pub(super) waiting: u64,
    /// Its scripted routes' positions and call counts.
    pub(super) script: Script,
    /// Tick of each composite field's last fresh value (the ledger).
    pub(super) ledger: Vec<u64>,
}

impl NodeState {
    /// The budget a call spends: the per-client budget `client` (from
    /// [`super::runner::Runner::client_budget`]) or the node's own. The
    /// one place either path picks it.
    #[inline]
    pub(super) fn budget_mut(&mut self, client: Option<usize>) -> Option<&mut Budget> {
        client.map_or(self.budget.as_mut(), |i| self.client_budgets.get_mut(i))
    }

    /// The state of node `i` of `model` before the run, with `scopes`
    /// distinct request paths for a `per path` breaker.
    pub(super) fn new(model: &Model, i: usize, scopes: usize) -> Self {
        let n = &model.nodes[i];
        let breakers: Vec<AnyBreaker> = match (&n.breaker, &n.library_breaker) {
            (Some(b), _) if b.per_path => {
                vec![AnyBreaker::Consecutive(Breaker::new(b.clone())); scopes]
            }
            (Some(b), _) => vec![AnyBreaker::Consecutive(Breaker::new(b.clone()))],
            (None, Some(l)) => vec![AnyBreaker::library(l, model.seed, i)],
            (None, None) => Vec::new(),
        };
        NodeState {
            capacity: Capacity::new(model, i),
            failing: Failing::new(model, i),
            shared_breakers: breakers.len(),
            breakers,
            budget: n.budget.as_ref().map(Budget::from_spec),
            client_budgets: Vec::new(),
            open: 0,
            waiting: 0,
            script: Script::new(n.routes.len()),
            ledger: vec![NEVER; n.composite.as_ref().map_or(0, |c| c.fields.len())],
        }
    }
}
