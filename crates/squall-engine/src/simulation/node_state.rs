//! [`NodeState`]: the run-time state of one node, one field per component.
//!
//! A node's caller side ([`CallerSide`]: breakers, retry budgets, per-try
//! timeout, hedging) and its server sides ([`Replicas`], one
//! [`ServerSide`](crate::server::node::ServerSide) per replica: faults,
//! capacity, script and composite ledger, rate limit, workers and queue,
//! latency). Both paths drive the same two.

use squall_lang::Model;

use crate::observe::{Observations, ReplicaCounts};

use crate::caller::CallerSide;
use crate::server::replicas::Replicas;
use crate::time::Resolution;

/// Per-node run-time state.
#[derive(Debug, Clone)]
pub(super) struct NodeState {
    /// What the node does around the calls it sends downstream.
    pub(super) caller: CallerSide,
    /// What the node does to the calls it receives: one server side per
    /// replica, behind its balancer (one without `replicas`).
    pub(super) servers: Replicas,
}

impl NodeState {
    /// The state of node `i` of `model` before the run, with `scopes`
    /// distinct request paths for a `per path` breaker, on a run that
    /// takes time (`timed`) or not, under the run's `seed`.
    pub(super) fn new(model: &Model, i: usize, scopes: usize, timed: bool, seed: u64) -> Self {
        let res = timed.then(|| Resolution::fine(model.clock));
        NodeState {
            caller: CallerSide::new(model, i, scopes, timed, seed),
            servers: Replicas::new(model, i, seed, res),
        }
    }
}

/// What the nodes' server sides counted over the run, into `obs` (both
/// paths, at the end of the run): each scripted route's calls, and, when
/// some node has `replicas`, each replica's calls and refusals.
pub(super) fn record_servers(nodes: &[NodeState], obs: &mut Observations) {
    for (i, n) in nodes.iter().enumerate() {
        obs.route_calls[i] = n.servers.route_calls();
    }
    if nodes.iter().any(|n| n.servers.replicated()) {
        obs.replicas = nodes
            .iter()
            .map(|n| ReplicaCounts {
                calls: n.servers.calls().to_vec(),
                refused: n.servers.refused(),
                windows: n.servers.windows().map(<[_]>::to_vec).unwrap_or_default(),
                latency: n.servers.latency(),
                queue: Vec::new(),
            })
            .collect();
    }
}
