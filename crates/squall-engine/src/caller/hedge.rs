//! Hedged tries (gRFC A6 `hedgingPolicy`): [`Hedges`], the tries in flight
//! of every hedging call of a run, and the rule that says what a hedging
//! call does when one of them answers ([`HedgeStep`]).
//!
//! A node with `hedge grpc { max_attempts N  hedging_delay D }` sends its
//! first try downstream and, while no try has answered success, another
//! every `D` until `N` tries are out; all of them stay in flight at once.
//! The tries of one call are its *kids* (the call's `child` stays `NONE`).
//! As each answers ([`Hedges::answered`]):
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
//! when the file is read. When a caller above gives up on a hedging call
//! without cancelling it, the tries already out are not marked as wasted
//! work (those sent later are).
//!
//! Only the timed path hedges (a node that hedges takes time). The node's
//! policy is its caller side's ([`super::CallerSide::hedge`]); the kid
//! lists are per call, like the rest of a try's state, and held by the
//! timed path's state beside its call slab. The event loop
//! (`simulation/timed/flow/`) acts on what these methods return: it
//! sends the try, sets the timer, cancels the kids [`Hedges::take`] gives
//! back, and answers the call.

use squall_lang::HedgeSpec;

use crate::outcome::{Answer, Failure};

/// What a hedging call does after one of its tries answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HedgeStep {
    /// It answers this; the tries still out are cancelled first
    /// ([`Hedges::take`]).
    Finish(Answer),
    /// It sends its next try now.
    Send,
    /// It waits for the tries still out.
    Wait,
}

/// The tries in flight of every hedging call of a run, by call index.
#[derive(Debug, Default)]
pub(crate) struct Hedges {
    kids: Vec<Vec<u32>>,
}

impl Hedges {
    /// The kids (tries in flight) of call `c`.
    fn kids(&mut self, c: u32) -> &mut Vec<u32> {
        let kids = &mut self.kids;
        if kids.len() <= c as usize {
            kids.resize_with(c as usize + 1, Vec::new);
        }
        &mut kids[c as usize]
    }

    /// Call `c`, hedging under `spec`, sent `kid` as its try number
    /// `tries`: the delay \[ticks\] until its next try, or `None` when that
    /// was its last.
    pub(crate) fn sent(&mut self, spec: &HedgeSpec, c: u32, kid: u32, tries: u32) -> Option<u64> {
        self.kids(c).push(kid);
        (tries < spec.max_attempts).then_some(spec.delay)
    }

    /// Try `kid` of call `c` (hedging under `spec`, `tries` tries sent so
    /// far) answered `answer`; `terminal` says whether a failure is fatal
    /// (the request's classification). What the call does next.
    pub(crate) fn answered(
        &mut self,
        spec: &HedgeSpec,
        c: u32,
        kid: u32,
        tries: u32,
        answer: Answer,
        terminal: impl FnOnce(Failure) -> bool,
    ) -> HedgeStep {
        self.kids(c).retain(|&k| k != kid);
        let Answer::Fail(f) = answer else {
            return HedgeStep::Finish(answer);
        };
        if terminal(f) {
            return HedgeStep::Finish(answer);
        }
        if tries < spec.max_attempts {
            return HedgeStep::Send;
        }
        if self.kids(c).is_empty() {
            return HedgeStep::Finish(answer);
        }
        HedgeStep::Wait
    }

    /// The tries call `c` still has out, which it gives up: the loop
    /// cancels them (the call answers, or is cancelled from above).
    pub(crate) fn take(&mut self, c: u32) -> Vec<u32> {
        std::mem::take(self.kids(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{fail, FailKind};

    const SPEC: HedgeSpec = HedgeSpec {
        max_attempts: 3,
        delay: 5,
    };

    /// A6's rules, worked by hand on a call with at most 3 tries 5 ticks
    /// apart: the delay comes back until the third try; a retryable
    /// failure with tries left sends at once; with none left the call
    /// waits for the others and answers the last failure; a terminal
    /// failure or a success ends it. Exact values: no arithmetic involved.
    #[test]
    fn a_hedging_call_follows_grfc_a6() {
        let mut h = Hedges::default();
        let (retryable, terminal) = (|_| false, |_| true);
        assert_eq!(h.sent(&SPEC, 7, 100, 1), Some(5));
        assert_eq!(h.sent(&SPEC, 7, 101, 2), Some(5));
        let e503 = fail(FailKind::Status(503));
        assert_eq!(
            h.answered(&SPEC, 7, 100, 2, e503, retryable),
            HedgeStep::Send
        );
        assert_eq!(h.sent(&SPEC, 7, 102, 3), None);
        assert_eq!(
            h.answered(&SPEC, 7, 101, 3, e503, retryable),
            HedgeStep::Wait
        );
        assert_eq!(
            h.answered(&SPEC, 7, 102, 3, e503, retryable),
            HedgeStep::Finish(e503)
        );
        assert!(h.take(7).is_empty());
        // A terminal failure ends the call with tries left and one out.
        h.sent(&SPEC, 8, 200, 1);
        h.sent(&SPEC, 8, 201, 2);
        let e404 = fail(FailKind::Status(404));
        assert_eq!(
            h.answered(&SPEC, 8, 200, 2, e404, terminal),
            HedgeStep::Finish(e404)
        );
        assert_eq!(h.take(8), vec![201]);
        // A success ends it whatever the classification says.
        h.sent(&SPEC, 9, 300, 1);
        assert_eq!(
            h.answered(&SPEC, 9, 300, 1, Answer::Ok, terminal),
            HedgeStep::Finish(Answer::Ok)
        );
    }
}
