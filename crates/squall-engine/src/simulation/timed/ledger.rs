//! The timed path's ledger of requests and calls, kept by [`Timed`]: a
//! request's references, start and deadline by slot, a new call's place
//! on its source's path, the deadline a call's node knows, and the work
//! an orphan wasted. The event loop (`flow.rs`) calls these and does the
//! rest (the request slab, the node's arrival).

use squall_lang::{DeadlineSpec, SourceSpec};

use crate::time::Time;

use super::calls::{Call, NONE};
use super::recorder::Count;
use super::Timed;

impl Timed {
    /// Request `slot` opens at `now`, under its source's `deadline` if it
    /// has one: it holds one reference to itself while it is open.
    pub(super) fn open_request(&mut self, slot: u32, now: Time, deadline: Option<&DeadlineSpec>) {
        let i = slot as usize;
        if self.refs.len() <= i {
            self.refs.resize(i + 1, 0);
            self.started.resize(i + 1, Time::ZERO);
            self.deadline.resize(i + 1, Time::NEVER);
        }
        self.refs[i] = 1;
        self.started[i] = now;
        self.deadline[i] = deadline.map_or(Time::NEVER, |d| now.after(self.res.duration(d.after)));
    }

    /// A new call of request `slot` (from `source`, whose request walks
    /// `path`) at position `pos`, made by `parent` (`NONE`: the entry
    /// call) at `now`; it refers to its request, and inherits its
    /// parent's try number and orphanhood.
    pub(super) fn new_call(
        &mut self,
        slot: u32,
        pos: u32,
        parent: u32,
        now: Time,
        source: u32,
        path: &[usize],
    ) -> u32 {
        self.refs[slot as usize] += 1;
        self.recorder.calls.arrived += 1;
        let c = self.calls.alloc(slot, pos, parent, now);
        let call = self.calls.get_mut(c);
        call.source = source;
        call.node = path.get(pos as usize).map_or(NONE, |&n| n as u32);
        call.leaf = pos as usize + 1 == path.len();
        if parent != NONE {
            self.calls.get_mut(c).try_no = self.calls.get(parent).tries;
        }
        if parent != NONE && self.calls.get(parent).orphan {
            self.calls.get_mut(c).orphan = true;
            self.calls.get_mut(c).orphaned_at = now;
        }
        c
    }

    /// One reference to request `slot` goes: true when it was the last
    /// (the loop frees the slot).
    pub(super) fn drop_ref(&mut self, slot: u32) -> bool {
        let r = &mut self.refs[slot as usize];
        *r -= 1;
        *r == 0
    }

    /// The deadline the node of call `c` knows, if any (`sources`: the
    /// model's). Asked several times for every call: when no source has a
    /// deadline it answers at once.
    #[inline]
    pub(super) fn known_deadline(&self, c: u32, sources: &[SourceSpec]) -> Option<Time> {
        if !self.any_deadline {
            return None;
        }
        let call = self.calls.get(c);
        let d = self.deadline[call.slot as usize];
        if d == Time::NEVER {
            return None;
        }
        let propagate = sources[call.source as usize]
            .deadline
            .as_ref()
            .is_some_and(|d| d.propagate);
        (call.pos == 0 || propagate).then_some(d)
    }

    /// Orphan `call` at `node` stops working at `now`: the service time it
    /// had since it (or its caller) was given up on is wasted.
    pub(super) fn wasted_busy(&mut self, now: Time, node: usize, call: &Call) {
        if call.orphan {
            let from = call.served.max(call.orphaned_at);
            let busy = now.since(from).units();
            self.recorder.count(node, Count::WastedBusy, now, busy);
        }
    }
}
