//! The event loop's side of the faults on links (`links.rs` decides): a
//! try or an answer kept on a link as a call record in phase `Transit`,
//! `Back` or `Lost`, its wake, and its end.

use squall_lang::FaultSpec;

use crate::outcome::Answer;
use crate::time::Time;

use super::super::{event::Event, SimError};
use super::calls::{Call, Phase, NONE};
use super::links::Leg;
use super::Timed;

/// The event loop's side of the links: a record on a link, its wake, and
/// its end.
impl Timed {
    /// What the link does to the try `child` that `caller` sends at `now`
    /// (`request`, above); a try failed or lost there is counted as ended
    /// on the link.
    pub(super) fn link_request(
        &mut self,
        now: Time,
        caller: usize,
        child: u32,
        faults: &[FaultSpec],
    ) -> Leg {
        let (callee, _, _) = self.node_of(child);
        let tick = self.tick_of(now);
        let key = self.key(child);
        let leg = self
            .links
            .request(faults, tick, caller, callee, self.res, key);
        if !matches!(leg, Leg::After(_)) {
            self.recorder.calls.link += 1;
        }
        leg
    }

    /// What the link does to the answer call `c` gives at `now`: `None`
    /// when it goes up at once (no fault in force, or nobody waits for
    /// it); otherwise the call is kept on the link, as an answer that
    /// arrives later or is lost.
    pub(super) fn link_answer(
        &mut self,
        now: Time,
        c: u32,
        node: usize,
        answer: Answer,
        faults: &[FaultSpec],
    ) -> Result<Option<()>, Box<SimError>> {
        let call = *self.calls.get(c);
        if call.parent == NONE || call.field != NONE || call.detached {
            return Ok(None);
        }
        let (caller, _, _) = self.node_of(call.parent);
        let tick = self.tick_of(now);
        let replica = call.replica as usize;
        let key = self.key(c);
        match self
            .links
            .answer(faults, tick, caller, node, replica, self.res, key)
        {
            Leg::After(d) if d.units() == 0 => Ok(None),
            Leg::After(d) | Leg::Fail(_, d) => {
                self.calls.get_mut(c).answer = answer;
                self.on_link(c, Phase::Back, Some(now.after(d)))?;
                Ok(Some(()))
            }
            Leg::Lost => {
                self.on_link(c, Phase::Lost, None)?;
                Ok(Some(()))
            }
        }
    }

    /// Call `c` goes on a link in `phase` until `wake` (never for a lost
    /// one).
    pub(super) fn on_link(
        &mut self,
        c: u32,
        phase: Phase,
        wake: Option<Time>,
    ) -> Result<(), Box<SimError>> {
        self.calls.get_mut(c).child = NONE;
        let gen = self.calls.enter(c, phase);
        if let Some(at) = wake {
            self.events
                .schedule(at.units(), Event::Wake { call: c, gen })?;
        }
        Ok(())
    }

    /// Call `c` (a copy of it in `call`), on a link, is dropped: its caller
    /// gave up on it. A try still on its way down is counted as cancelled
    /// (it never reached its node); an answer or a failed or lost try was
    /// counted already. True when it was on a link (the caller then drops
    /// its request's reference).
    pub(super) fn drop_on_link(&mut self, c: u32, call: &Call) -> bool {
        match call.phase {
            Phase::Transit => self.recorder.calls.cancelled += 1,
            Phase::Back | Phase::Lost => {}
            _ => return false,
        }
        self.calls.release(c);
        true
    }
}
