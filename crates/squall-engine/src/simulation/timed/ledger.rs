//! The timed path's ledger of requests and calls, kept by [`Timed`]: a
//! request's references, start and deadline by slot, a new call's place
//! on its source's path, the deadline a call's node knows, and the work
//! an orphan wasted. The event loop (`flow/`) calls these and does the
//! rest (the request slab, the node's arrival).

use squall_lang::DeadlineSpec;

use crate::time::Time;

use super::super::{event::Event, SimError};
use super::calls::{New, NONE};
use super::keys::Keys;
use super::recorder::Count;
use super::Timed;

impl Timed {
    /// Request `slot` opens at `now`, under its source's `deadline` if it
    /// has one: it holds one reference to itself while it is open.
    #[inline]
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
    #[inline(always)]
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
        let (try_no, orphan) = match parent {
            NONE => (1, false),
            p => {
                let p = self.calls.get(p);
                (p.tries, p.orphan)
            }
        };
        let at = New {
            slot,
            pos,
            parent,
            source,
            node: path.get(pos as usize).map_or(NONE, |&n| n as u32),
            leaf: pos as usize + 1 == path.len(),
            try_no,
            orphan,
        };
        let c = self.calls.alloc(at, now);
        if self.keys.on {
            self.key_call(c, parent, source);
        }
        c
    }

    /// New call `c` from `parent` (`NONE`: the entry call of a request
    /// from `source`) gets its key (`keys.rs`). Out of line, so that
    /// [`Timed::new_call`] stays small enough to inline where keys are off.
    #[inline(never)]
    fn key_call(&mut self, c: u32, parent: u32, source: u32) {
        let key = match parent {
            NONE => self.keys.request(source as usize),
            p => Keys::child(self.keys.of(p), self.calls.get(p).tries),
        };
        self.keys.set(c, key);
    }

    /// Call `c`'s key when the run keys its draws (`draws common`).
    #[inline]
    pub(super) fn key(&self, c: u32) -> Option<u64> {
        self.keys.on.then(|| self.keys.of(c))
    }

    /// `n` references to request `slot` go: true when they were the last
    /// (the loop frees the slot).
    #[inline]
    pub(super) fn drop_refs(&mut self, slot: u32, n: u32) -> bool {
        let r = &mut self.refs[slot as usize];
        *r -= n;
        *r == 0
    }

    /// Orphan call `c` at `node` stops working at `now`: the service time it
    /// had since it (or its caller) was given up on is wasted.
    #[inline]
    pub(super) fn wasted_busy(&mut self, now: Time, node: usize, c: u32) {
        let call = self.calls.get(c);
        if call.orphan {
            self.orphan_busy(now, node, call.served.max(call.orphaned_at));
        }
    }

    /// [`Timed::wasted_busy`] of an orphan, wasted since `from`: out of
    /// line, so a call that is not one pays one test.
    #[inline(never)]
    fn orphan_busy(&mut self, now: Time, node: usize, from: Time) {
        let busy = now.since(from).units();
        self.recorder.count(node, Count::WastedBusy, now, busy);
    }

    /// The tick that holds `now`. Every step of an event asks for the
    /// tick of the same moment, so the last answer is kept: one division
    /// per moment, not one per step.
    #[inline]
    pub(super) fn tick_of(&self, now: Time) -> u64 {
        let (at, tick) = self.tick.get();
        if at == now.units() {
            return tick;
        }
        let tick = self.res.tick_of(now);
        self.tick.set((now.units(), tick));
        tick
    }

    /// The node of call `c`, its source, and whether the node answers by
    /// itself (the bottom of the path, or a composite field's node: set
    /// when the field is sent, `composite.rs`).
    #[inline]
    pub(super) fn node_of(&self, c: u32) -> (usize, usize, bool) {
        let call = self.calls.get(c);
        (call.node as usize, call.source as usize, call.leaf)
    }

    /// The deadline the node of `c` knows, if any (the entry node, or
    /// every node when its source propagates it). Asked several times for
    /// every call: when no source has a deadline it answers at once.
    #[inline]
    pub(super) fn known_deadline(&self, c: u32) -> Option<Time> {
        if !self.any_deadline {
            return None;
        }
        let call = self.calls.get(c);
        let d = self.deadline[call.slot as usize];
        if d == Time::NEVER {
            return None;
        }
        (call.pos == 0 || self.propagate[call.source as usize]).then_some(d)
    }

    /// True when call `c`'s request has a propagated deadline and it has
    /// passed at `now` (the calls below it are cancelled, not left behind).
    pub(super) fn propagated_past(&self, now: Time, c: u32) -> bool {
        let call = self.calls.get(c);
        self.propagate[call.source as usize] && now >= self.deadline[call.slot as usize]
    }

    /// Wakes call `c` at generation `gen` at the earlier of `a` and `b`
    /// (a timer and the deadline the node knows), or not at all when
    /// neither is set: one wake per wait, whichever comes first.
    pub(super) fn wake_at_first(
        &mut self,
        c: u32,
        gen: u32,
        a: Option<Time>,
        b: Option<Time>,
    ) -> Result<(), Box<SimError>> {
        let wake = match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(at) = wake {
            self.events
                .schedule(at.units(), Event::Wake { call: c, gen })?;
        }
        Ok(())
    }
}
