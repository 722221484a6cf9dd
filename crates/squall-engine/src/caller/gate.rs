//! [`Gates`]: a node's retry gate counts ([`RetryGate`]), its own and one
//! per client of a source with `clients N` entering it.
//!
//! The node has a gate when a retry policy it runs names one (its own
//! `retry { ... gate 10% }`, or the policy of an operation of a source
//! entering it). The counts are per client, as `retry_sim` gives each
//! client its own strategy; the threshold is read from the policy that
//! decides the retry. [`super::Budgets`] holds the gates beside the budgets
//! and tells both of the same moments, so there is one copy of the rule
//! for both engine paths ([`crate::policy::retry::budgeted_next_wait`]).

use squall_lang::{Model, RetrySpec, Schedule};

use crate::policy::gate::RetryGate;

use super::per_client::PerClient;

/// A node's retry gates, in the one pointer of a [`PerClient`].
#[derive(Debug, Clone, Default)]
pub(crate) struct Gates(PerClient<RetryGate>);

impl Gates {
    /// The gates of node `i` of `model`: one when a policy it runs has a
    /// gate, none otherwise. The window is the first gated policy's: the
    /// node's own, else its entering operations' in order (one node's
    /// policies with different windows share the first one's counts).
    pub(crate) fn new(model: &Model, i: usize) -> Self {
        let gated = |r: &Option<RetrySpec>| r.as_ref().filter(|r| r.gate.is_some()).cloned();
        let ops = model
            .sources
            .iter()
            .filter(|s| s.entry == i)
            .flat_map(|s| match &s.schedule {
                Schedule::Sequential(ops) => ops.as_slice(),
                _ => &[],
            })
            .find_map(|op| gated(&op.retry));
        let policy = gated(&model.nodes[i].retry).or(ops);
        let window = policy.as_ref().and_then(|r| r.gate_window);
        Gates(PerClient::new(policy.map(|_| RetryGate::new(window))))
    }

    /// True when the node has a gate.
    #[inline(always)]
    pub(crate) fn is_some(&self) -> bool {
        self.0.is_some()
    }

    /// Fresh gates for `count` clients; the index of the first (the same
    /// as the clients' budgets', as [`super::Budgets`] adds both together).
    pub(crate) fn add_clients(&mut self, count: u32) -> Option<usize> {
        self.0.add_clients(count, |own, _| own.fresh())
    }

    /// The gate a request counts in: client `client`'s, or the node's.
    #[inline]
    pub(crate) fn pick(&mut self, client: Option<usize>) -> Option<&mut RetryGate> {
        self.0.pick(client)
    }
}
