//! A node's own answer on the zero-time path, given without calling
//! downstream: the event loop's side of the node's
//! [`ServerSide`](crate::server::node::ServerSide).
//!
//! [`Runner::own_answer`] asks the server side whether it refuses the call
//! (a failing fault, no capacity: a refusal is counted here), and at the
//! bottom of a path for its answer: its composite response or its
//! scripted routes. [`Runner::assemble`] makes the calls a composite
//! response fans out to, one per field, each counted at the field's node.

use crate::outcome::Answer;
use crate::server::composite::Assembly;

use super::runner::Runner;

impl Runner<'_, '_> {
    /// The answer a node gives by itself, without calling downstream: a
    /// failing fault, no capacity, or (at the bottom of a path) its script.
    /// `field` is the composite field the call fetches (0 otherwise).
    #[inline]
    pub(super) fn own_answer(
        &mut self,
        t: u64,
        slot: u32,
        node: usize,
        leaf: bool,
        field: usize,
    ) -> Option<Answer> {
        if let Some(answer) = self.refusal(t, node, field) {
            return Some(answer);
        }
        if !leaf {
            return None;
        }
        Some(self.leaf_answer(t, slot, node))
    }

    /// The answer of a node that does not serve the call at all: a failing
    /// fault in force, or no per-tick capacity left (counted).
    #[inline(always)]
    fn refusal(&mut self, t: u64, node: usize, field: usize) -> Option<Answer> {
        let m = self.sim.model;
        let obs = &mut self.obs;
        let count = || {
            let i = obs.slots.index(t);
            obs.nodes[node].refused[i] += 1;
        };
        self.nodes[node].server.refuse(&m.faults, t, field, count)
    }

    /// The answer of a node at the bottom of a path that serves the call:
    /// its composite response, its scripted routes, or success.
    pub(super) fn leaf_answer(&mut self, t: u64, slot: u32, node: usize) -> Answer {
        let m = self.sim.model;
        if m.nodes[node].composite.is_some() {
            return self.assemble(t, slot, node);
        }
        let request = &self.sim.kinds[self.requests.kind[slot as usize] as usize].request;
        self.nodes[node]
            .server
            .answer(&m.nodes[node].routes, request, t)
    }

    /// A composite response: fetch every field from its node, fall back on
    /// the ledger where the policy allows, and answer or drop by the policy.
    fn assemble(&mut self, t: u64, slot: u32, node: usize) -> Answer {
        let sim = self.sim;
        let Some(spec) = &sim.model.nodes[node].composite else {
            return Answer::Ok;
        };
        let mut assembly = Assembly::default();
        for (i, f) in spec.fields.iter().enumerate() {
            self.observe(t, slot, f.source);
            let answer = self
                .own_answer(t, slot, f.source, true, i)
                .unwrap_or(Answer::Ok);
            self.count_answer(t, f.source, answer);
            // Logged at the start of the tick the fetch is made in.
            let at = t.saturating_mul(self.timed.per_tick());
            self.log_call(at, slot, f.source, 1, answer, 0);
            let ledger = self.nodes[node].server.ledger_mut();
            assembly.add(spec, i, answer, t, ledger);
        }
        let i = self.obs.slots.index(t);
        assembly.finish(spec, i, self.obs.nodes[node].composite.as_mut())
    }
}
