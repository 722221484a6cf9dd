//! A breaker's trace on the timed path: the same rows as the zero-time
//! path's ([`crate::observe::trace`]). A try the breaker did not send
//! leaves a row at the tick it was refused (`Runner::refused`, shared with
//! the zero-time path); a try it sent leaves a row at
//! the tick it was sent, with the state it found, the answer that came
//! back (a timeout when the caller's timer fired first) and the state
//! after, recorded when the answer (or the timeout) arrives. Rows are in
//! the order their answers arrive, so a sent row can follow a later one.

use crate::observe::trace::TraceRow;
use crate::outcome::Answer;
use crate::policy::breaker::{Admission, State};

use super::super::runner::Runner;

impl Runner<'_, '_> {
    /// Call `c`'s try was sent through its node's breaker at `tick`.
    pub(super) fn admitted(&mut self, c: u32, tick: u64, a: Admission) {
        let call = self.timed.calls.get_mut(c);
        call.admitted_epoch = a.epoch;
        call.admitted_state = a.before;
        call.sent_tick = tick;
    }

    /// Call `c`'s try through the breaker of `node` ended with `answer`,
    /// leaving the breaker in `after`.
    pub(super) fn trace_answered(&mut self, c: u32, node: usize, answer: Answer, after: State) {
        let call = *self.timed.calls.get(c);
        let scope = self.scope_of(call.slot, node);
        self.trace(node, || TraceRow {
            time: call.sent_tick,
            sent: true,
            scope,
            before: call.admitted_state,
            answer,
            after,
        });
    }
}
