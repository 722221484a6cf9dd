//! A node's client-side throttle on both engine paths: the throttle a
//! request counts in, a try asked before it goes, and a sent try's answer
//! told (the rule is `policy/throttle.rs`, the node's throttles
//! `caller/throttle.rs`). The zero-time path asks in `call.rs` where it
//! asks the breaker; the timed path in `timed/flow/`, at the same moments.
//! Out of line: a node without a throttle pays the one test of
//! [`CallerSide::guarded`](crate::caller::CallerSide::guarded) it pays for
//! a breaker.

use crate::outcome::{fail, Answer, FailKind};
use crate::policy::breaker::counts_against_dependency;

use super::runner::Runner;

impl Runner<'_, '_> {
    /// Which of `node`'s throttles the request in `slot` counts in: its
    /// client's own at its source's entry node, else the node's (`None`).
    fn client_throttle(&self, slot: u32, node: usize) -> Option<usize> {
        let source = self.requests.source[slot as usize] as usize;
        if self.sim.model.sources[source].entry != node {
            return None;
        }
        self.clients
            .throttle(source, self.requests.client[slot as usize])
    }

    /// The throttle of `node` decides on a try of the request in `slot` at
    /// `tick`: `Some(answer)` when it rejects the try locally (counted in
    /// the node's `rejected_locally` series), `None` when the try goes.
    #[inline(never)]
    pub(super) fn throttle_admit(&mut self, tick: u64, slot: u32, node: usize) -> Option<Answer> {
        let client = self.client_throttle(slot, node);
        if self.nodes[node].caller.throttles.admit(client, tick) {
            return None;
        }
        let i = self.obs.slots.index(tick);
        self.obs.nodes[node].count_rejected_locally(i);
        Some(fail(FailKind::Throttled))
    }

    /// The throttle of `node` hears `answer` to a try of the request in
    /// `slot` it let go, at `tick`: accepted unless it counts against the
    /// dependency.
    #[inline(never)]
    pub(super) fn throttle_answered(&mut self, tick: u64, slot: u32, node: usize, answer: Answer) {
        let client = self.client_throttle(slot, node);
        let accepted = !counts_against_dependency(answer);
        self.nodes[node]
            .caller
            .throttles
            .answered(client, tick, accepted);
    }
}
