//! Hedged tries (gRFC A6 `hedgingPolicy`) on a run that takes time.
//!
//! A node with `hedge grpc { max_attempts N  hedging_delay D }` sends its
//! first try downstream and, while no try has answered success, another
//! every `D` until `N` tries are out; all of them stay in flight at once.
//! The tries of one call are its *kids* (the call's `child` stays `NONE`).
//! As each answers:
//!
//! * success: the call answers success; every other try still out is
//!   cancelled (it leaves its queue or frees its worker at once, counted as
//!   `cancelled`, and the service time it had had as `wasted_busy`);
//! * a fatal failure (terminal under the usual classification): the others
//!   are cancelled and the call answers that failure;
//! * a non-fatal one (retryable or unknown): the next try goes at once if
//!   any is left, and the ones after it `D` later ("later hedges resume at
//!   hedgingDelay"); with none left, the call waits for the tries still
//!   out, and answers the last failure when none is.
//!
//! The deadline the node knows bounds the whole: at it the tries still out
//! are cancelled and the call answers *deadline exceeded*; no try starts at
//! or after it. With `D = 0` all `N` tries go at once. A try the node's
//! breaker refuses counts as a fatal failure (circuit open is terminal).
//! Each try beyond a call's first counts in the node's `hedged` series.
//! A hedging node has no `retry` (as in A6), no per-try `timeout` and no
//! retry budget (A6 throttles hedges too; not built): all three are refused
//! when the file is read. When a
//! caller above gives up on a hedging call without cancelling it, the
//! tries already out are not marked as wasted work (those sent later are).

use crate::outcome::{fail, Answer, FailKind};
use crate::policy::retry::{classify, Class};
use crate::time::Time;

use super::super::{runner::Runner, SimError};
use super::calls::{Phase, NONE};

impl Runner<'_, '_> {
    /// True when `node` hedges its calls downstream.
    pub(super) fn hedges(&self, node: usize) -> bool {
        self.nodes[node].caller.hedge().is_some()
    }

    /// The kids (tries in flight) of call `c`.
    fn kids(&mut self, c: u32) -> &mut Vec<u32> {
        let kids = &mut self.timed.hedge_kids;
        if kids.len() <= c as usize {
            kids.resize_with(c as usize + 1, Vec::new);
        }
        &mut kids[c as usize]
    }

    /// Call `c` at a hedging node sends a try downstream, and sets its
    /// timer for the next one (or for the deadline).
    pub(super) fn send_hedge(&mut self, now: Time, c: u32) -> Result<(), SimError> {
        let (node, _, _) = self.timed.node_of(c);
        let Some(spec) = self.nodes[node].caller.hedge() else {
            return Ok(());
        };
        let tick = self.timed.res.tick_of(now);
        let deadline = self.timed.known_deadline(c);
        if deadline.is_some_and(|d| now >= d) {
            return self.finish_hedged(now, c, fail(FailKind::Deadline));
        }
        let call = self.timed.calls.get_mut(c);
        call.tries += 1;
        let tries = call.tries;
        let slot = call.slot;
        if let Some(open) = self.admit_try(tick, c, node) {
            return self.finish_hedged(now, c, open);
        }
        if tries > 1 {
            let i = self.obs.slots.index(tick);
            let series = &mut self.obs.nodes[node];
            if series.hedged.is_empty() {
                series.hedged = vec![0; series.calls.len()];
            }
            series.hedged[i] += 1;
            if !self.timed.calls.get(c).orphan {
                self.requests.retried[slot as usize] = true;
            }
        }
        let pos = self.timed.calls.get(c).pos;
        let child = self.new_call(slot, pos + 1, c, now);
        self.kids(c).push(child);
        // The timer first: if the try answers in this moment and the call
        // moves on, the timer goes stale with the generation.
        let gen = self.timed.calls.enter(c, Phase::Waiting);
        let next = (tries < spec.max_attempts).then(|| now.after(self.timed.res.ticks(spec.delay)));
        self.timed.wake_at_first(c, gen, next, deadline)?;
        self.arrive_timed(now, child)
    }

    /// The timer of hedging call `c` fired: the deadline, or the next try.
    pub(super) fn hedge_timer(&mut self, now: Time, c: u32) -> Result<(), SimError> {
        if self.timed.known_deadline(c).is_some_and(|d| now >= d) {
            return self.finish_hedged(now, c, fail(FailKind::Deadline));
        }
        self.send_hedge(now, c)
    }

    /// Kid `kid` of hedging call `p` answered `answer` (the breaker has
    /// recorded it).
    pub(super) fn hedge_answer(
        &mut self,
        now: Time,
        p: u32,
        kid: u32,
        answer: Answer,
    ) -> Result<(), SimError> {
        self.kids(p).retain(|&k| k != kid);
        let Answer::Fail(f) = answer else {
            return self.finish_hedged(now, p, answer);
        };
        let (node, _, _) = self.timed.node_of(p);
        let kind = self.requests.kind[self.timed.calls.get(p).slot as usize] as usize;
        if classify(f.kind, &self.sim.kinds[kind].request) == Class::Terminal {
            return self.finish_hedged(now, p, answer);
        }
        let max = self.nodes[node]
            .caller
            .hedge()
            .map_or(0, |h| h.max_attempts);
        if self.timed.calls.get(p).tries < max {
            return self.send_hedge(now, p);
        }
        if self.kids(p).is_empty() {
            return self.finish_hedged(now, p, answer);
        }
        Ok(())
    }

    /// Hedging call `p` answers `answer`: the tries still out are cancelled
    /// (their work so far is wasted).
    fn finish_hedged(&mut self, now: Time, p: u32, answer: Answer) -> Result<(), SimError> {
        let kids = std::mem::take(self.kids(p));
        for k in kids {
            let mut x = k;
            while x != NONE {
                let call = self.timed.calls.get_mut(x);
                call.orphan = true;
                call.orphaned_at = call.orphaned_at.min(call.arrived);
                x = call.child;
            }
            self.cancel_chain(now, k)?;
        }
        self.complete_call(now, p, answer)
    }

    /// Hedging call `c` is cancelled from above: its tries go with it.
    pub(super) fn cancel_kids(&mut self, now: Time, c: u32) -> Result<(), SimError> {
        let kids = std::mem::take(self.kids(c));
        for k in kids {
            self.cancel_chain(now, k)?;
        }
        Ok(())
    }
}
