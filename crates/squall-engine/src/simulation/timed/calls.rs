//! The slab of calls in flight: one record per try that reached a node and
//! has not answered yet, reused once it answers.
//!
//! A request in a run that takes time is a chain of calls: the entry call
//! at its entry node, the try that node sent downstream, and so on. A
//! caller that times out leaves its try behind (an *orphan*, which keeps
//! working unless cancelled) and starts a new one, so a request can have
//! more calls in flight than its path has nodes; this is why the state of
//! a try lives here and not in the request.

use crate::caller::{Decision, NO_GRANT};
use crate::observe::trace::SentTry;
use crate::outcome::Answer;
use crate::policy::breaker::{Admission, State};
use crate::policy::retry::RetryLoop;
use crate::queue::Timer;
use crate::time::Time;

/// No call.
pub(super) const NONE: u32 = u32::MAX;

/// Where a call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// Waiting for a token of its node's rate limit.
    Token,
    /// Waiting in the node's queue for a worker.
    Queued,
    /// Given a worker by a call that left; starts service at its wake.
    Dequeued,
    /// Taken from the queue and shed by its discipline (CoDel): answers a
    /// queue timeout at its wake.
    Shed,
    /// In the node's own service time.
    Service,
    /// Its node waits for the answer of its try downstream (`child`).
    Waiting,
    /// Its node waits before its next try downstream.
    Backoff,
    /// A try on a faulted link on its way down: reaches its node at its
    /// wake (`links.rs`).
    Transit,
    /// An answer on its way back over a link (or a try a link failed):
    /// its caller hears `answer` at its wake.
    Back,
    /// A try or an answer a link lost: nobody hears it; its caller's timer
    /// ends the try.
    Lost,
}

/// One call in flight.
#[derive(Debug, Clone, Copy)]
pub(super) struct Call {
    /// The request (slot in the request slab).
    pub(super) slot: u32,
    /// Position of the serving node in the request's path.
    pub(super) pos: u32,
    /// The caller's call, or `NONE` for the entry call.
    pub(super) parent: u32,
    /// The try it waits for downstream, or `NONE`.
    pub(super) child: u32,
    /// Bumped at every change of phase and when the record is freed: an
    /// event carries the generation it was scheduled under and is ignored
    /// when the call has moved on.
    pub(super) gen: u32,
    pub(super) phase: Phase,
    /// Tries made downstream.
    pub(super) tries: u32,
    /// Which try of its caller it is (1 for the entry call).
    pub(super) try_no: u32,
    /// Tick of its first try downstream (for a retry policy's deadline).
    pub(super) first_try: u64,
    /// Previous backoff wait \[ticks\] (decorrelated jitter), or `u64::MAX`.
    pub(super) prev_wait: u64,
    /// Retries its backoff does not count (pushback).
    pub(super) skip: u32,
    /// It holds one of its node's workers.
    pub(super) holds_worker: bool,
    /// Its work is for a caller that gave up: it, or a call above it,
    /// timed out at its caller (counted as wasted work).
    pub(super) orphan: bool,
    /// Its own caller gave up on it: its answer goes nowhere. Only the top
    /// call of an orphaned chain is detached; the calls below it still
    /// answer to it.
    pub(super) detached: bool,
    /// When it was sent (its caller's side measures its try from here).
    pub(super) sent: Time,
    /// When it reached its node (later than `sent` over a link with a
    /// delay), took a worker, became an orphan.
    pub(super) arrived: Time,
    pub(super) served: Time,
    pub(super) orphaned_at: Time,
    /// When its own service time ends.
    pub(super) service_end: Time,
    /// A leaf's answer, decided at arrival and given after its service.
    pub(super) answer: Answer,
    /// The breaker's epoch when its current try was sent.
    pub(super) admitted_epoch: u64,
    /// The state its current try found at the breaker, and the tick it
    /// was sent (for the breaker's trace: [`Call::sent`]). Two fields, not
    /// a [`SentTry`], which would pad the call by a word.
    admitted_state: State,
    sent_tick: u64,
    /// What the budget's last grant cost, or [`crate::caller::NO_GRANT`].
    pub(super) grant: u32,
    /// A retry the budget granted has not answered yet (Envoy's open
    /// retries; only at a node with a budget).
    pub(super) retry_open: bool,
    /// In use (not on the free list).
    pub(super) live: bool,
    /// For a call fetching a field of its caller's composite response:
    /// the field's index (`NONE` for a call down the path).
    pub(super) field: u32,
    /// Its request's source, the node at `pos` on that source's path
    /// (`NONE` past its end) and whether that node answers by itself (the
    /// path's last, or a field's node): looked up once, when the call is
    /// made or sent for a field (`node_of`).
    pub(super) source: u32,
    pub(super) node: u32,
    pub(super) leaf: bool,
    /// The replica of its node it reached (0 without `replicas`).
    pub(super) replica: u16,
    /// A try its caller's concurrency limiter let through: the tries its
    /// caller had in flight when it was sent, itself included (what the
    /// limiter hears with its round trip); 0 for one sent without a
    /// limiter.
    pub(super) limit_inflight: u16,
    /// Its try's timer (the timeout, or the deadline it knows), when the
    /// calendar's ring holds it: cancelled when the try answers first
    /// (`flow/back.rs`), so that it is not popped to do nothing. Four
    /// bytes the record's padding had free.
    pub(super) timer: Timer,
}

impl Call {
    /// It moves to `phase`: its generation is bumped (events scheduled
    /// before go stale) and returned, to schedule under.
    #[inline(always)]
    fn enter(&mut self, phase: Phase) -> u32 {
        self.gen = self.gen.wrapping_add(1);
        self.phase = phase;
        self.gen
    }

    /// Its try was sent through its node's breaker at `tick`, with
    /// admission `a`: the epoch its answer is recorded under, and what the
    /// trace will show.
    pub(super) fn admitted(&mut self, tick: u64, a: Admission) {
        self.admitted_epoch = a.epoch;
        self.admitted_state = a.before;
        self.sent_tick = tick;
    }

    /// Its retry loop, as the caller side's retry rule reads it
    /// ([`crate::caller::Budgets::next_try`]).
    pub(super) fn retry_loop(&self) -> RetryLoop {
        RetryLoop {
            tries: self.tries,
            started: self.first_try,
            previous: (self.prev_wait != u64::MAX).then_some(self.prev_wait),
            skip: self.skip,
        }
    }

    /// Its caller side decided `d` on its retry loop, now `state`: the
    /// loop's state is kept, and a grant of its node's budget (a retry
    /// granted stays open until its answer comes back).
    pub(super) fn decided(&mut self, state: &RetryLoop, d: &Decision) {
        self.prev_wait = state.previous.unwrap_or(u64::MAX);
        self.skip = state.skip;
        if d.grant != NO_GRANT {
            self.grant = d.grant;
            self.retry_open = d.wait.is_some();
        }
    }

    /// Its current try, as the breaker's trace writes it once its answer
    /// is back.
    pub(super) fn sent(&self) -> SentTry {
        SentTry {
            tick: self.sent_tick,
            before: self.admitted_state,
        }
    }
}

/// Where a new call is and what it inherits (`Timed::new_call`): its
/// request, path position, caller, source, node and whether that node
/// answers by itself, its try number and orphanhood.
#[derive(Debug, Clone, Copy)]
pub(super) struct New {
    pub(super) slot: u32,
    pub(super) pos: u32,
    pub(super) parent: u32,
    pub(super) source: u32,
    pub(super) node: u32,
    pub(super) leaf: bool,
    pub(super) try_no: u32,
    pub(super) orphan: bool,
}

/// The slab.
#[derive(Debug, Default)]
pub(super) struct Calls {
    pub(super) calls: Vec<Call>,
    free: Vec<u32>,
    pub(super) live: u64,
}

impl Calls {
    /// A new call `at` its place, made at `now` (an orphan from then on
    /// when its caller is one), written once.
    #[inline]
    pub(super) fn alloc(&mut self, at: New, now: Time) -> u32 {
        self.live += 1;
        let fresh = Call {
            slot: at.slot,
            pos: at.pos,
            parent: at.parent,
            child: NONE,
            gen: 0,
            phase: Phase::Service,
            tries: 0,
            try_no: at.try_no,
            first_try: 0,
            prev_wait: u64::MAX,
            skip: 0,
            holds_worker: false,
            orphan: at.orphan,
            detached: false,
            sent: now,
            arrived: now,
            served: now,
            orphaned_at: if at.orphan { now } else { Time::NEVER },
            service_end: Time::NEVER,
            answer: Answer::Ok,
            admitted_epoch: 0,
            admitted_state: State::Closed,
            sent_tick: 0,
            grant: NO_GRANT,
            retry_open: false,
            live: true,
            replica: 0,
            limit_inflight: 0,
            timer: Timer::NONE,
            field: NONE,
            source: at.source,
            node: at.node,
            leaf: at.leaf,
        };
        if let Some(c) = self.free.pop() {
            let gen = self.calls[c as usize].gen;
            self.calls[c as usize] = Call { gen, ..fresh };
            c
        } else {
            self.calls.push(fresh);
            (self.calls.len() - 1) as u32
        }
    }

    /// Frees call `c`; events still scheduled for it go stale.
    pub(super) fn release(&mut self, c: u32) {
        let call = &mut self.calls[c as usize];
        call.gen = call.gen.wrapping_add(1);
        call.child = NONE;
        call.live = false;
        self.live -= 1;
        self.free.push(c);
    }

    /// Moves call `c` to `phase`; returns the generation to schedule under.
    pub(super) fn enter(&mut self, c: u32, phase: Phase) -> u32 {
        self.calls[c as usize].enter(phase)
    }

    /// Call `c` waits for its try `child` downstream ([`Phase::Waiting`]);
    /// returns the generation to schedule its timer under.
    #[inline]
    pub(super) fn wait_for(&mut self, c: u32, child: u32) -> u32 {
        let call = &mut self.calls[c as usize];
        call.child = child;
        call.enter(Phase::Waiting)
    }

    /// Call `c` and the calls below it become orphans, each from its
    /// arrival at the latest: their caller gave up on them (a hedging
    /// call answered without them).
    pub(super) fn orphan_chain(&mut self, mut c: u32) {
        while c != NONE {
            let call = self.get_mut(c);
            call.orphan = true;
            call.orphaned_at = call.orphaned_at.min(call.arrived);
            c = call.child;
        }
    }

    #[inline]
    pub(super) fn get(&self, c: u32) -> &Call {
        &self.calls[c as usize]
    }

    #[inline]
    pub(super) fn get_mut(&mut self, c: u32) -> &mut Call {
        &mut self.calls[c as usize]
    }

    /// True when `c` is still at generation `gen` (a freed record's
    /// generation was bumped, so an event from before the free never
    /// matches; nothing is looked up).
    pub(super) fn current(&self, c: u32, gen: u32) -> bool {
        self.calls.get(c as usize).is_some_and(|x| x.gen == gen)
    }
}
