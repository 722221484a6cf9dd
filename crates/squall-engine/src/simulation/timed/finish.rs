//! The end of a run that takes time: what is left in flight is counted
//! (calls by phase, requests still open) and the recorder's and the work
//! queues' observations are written out ([`Timed::finish`]).

use crate::observe::Observations;

use super::super::node_state::NodeState;
use super::calls::{Phase, NONE};
use super::Timed;

impl Timed {
    /// The run ended (the event loop's last event came before `end`):
    /// every call still live is counted by phase, every request still open
    /// as in flight, and the observations of the recorder, the `nodes`'
    /// routes and the work queues go into `obs`.
    pub(super) fn finish(&mut self, nodes: &[NodeState], obs: &mut Observations) {
        let mut open = 0;
        for c in &self.calls.calls {
            if !c.live {
                continue;
            }
            let acc = &mut self.recorder.calls;
            match c.phase {
                Phase::Queued | Phase::Token | Phase::Shed => acc.queued += 1,
                Phase::Dequeued | Phase::Service => acc.in_service += 1,
                Phase::Waiting | Phase::Backoff => acc.waiting += 1,
                Phase::Transit => acc.on_link += 1,
                // Counted when the link failed or lost the try, or when its
                // node answered it; a lost try still live is also counted
                // apart (its caller has not given up on it yet).
                Phase::Back => {}
                Phase::Lost => acc.lost += 1,
            }
            if c.parent == NONE {
                open += 1;
            }
        }
        obs.accounting.in_flight = open;
        super::super::node_state::record_servers(nodes, obs);
        if let Some(q) = self.replica_queues.take() {
            for (kept, queue) in obs.replicas.iter_mut().zip(q.finish(self.end)) {
                kept.queue = queue;
            }
        }
        let end = self.end;
        let recorder = std::mem::take(&mut self.recorder);
        obs.timed = Some(recorder.finish(end));
        self.finish_queues(end, obs);
    }
}
