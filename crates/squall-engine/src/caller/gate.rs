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

use squall_lang::{Model, Schedule};

use crate::policy::gate::RetryGate;

/// A node's retry gates.
#[derive(Debug, Clone, Default)]
pub(crate) struct Gates {
    own: Option<RetryGate>,
    clients: Vec<RetryGate>,
}

impl Gates {
    /// The gates of node `i` of `model`: one when a policy it runs has a
    /// gate, none otherwise.
    pub(crate) fn new(model: &Model, i: usize) -> Self {
        let own_gate = model.nodes[i]
            .retry
            .as_ref()
            .is_some_and(|r| r.gate.is_some());
        let op_gate = model.sources.iter().filter(|s| s.entry == i).any(|s| {
            matches!(&s.schedule, Schedule::Sequential(ops)
                if ops.iter().any(|op| op.retry.as_ref().is_some_and(|r| r.gate.is_some())))
        });
        Gates {
            own: (own_gate || op_gate).then(RetryGate::default),
            clients: Vec::new(),
        }
    }

    /// True when the node has a gate.
    #[inline(always)]
    pub(crate) fn is_some(&self) -> bool {
        self.own.is_some()
    }

    /// Fresh gates for `count` clients, from index `base` on (the same
    /// indices as the clients' budgets).
    pub(crate) fn add_clients(&mut self, base: usize, count: u32) {
        if self.own.is_some() {
            self.clients.resize(base, RetryGate::default());
            self.clients
                .extend((0..count).map(|_| RetryGate::default()));
        }
    }

    /// The gate a request counts in: client `client`'s, or the node's.
    #[inline]
    pub(crate) fn pick(&mut self, client: Option<usize>) -> Option<&mut RetryGate> {
        self.own.as_ref()?;
        client.map_or(self.own.as_mut(), |i| self.clients.get_mut(i))
    }
}
