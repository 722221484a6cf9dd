//! The run of a model that takes time: the event loop, a call's tries
//! downstream with timeouts, retries and cancellation, and the answer back
//! up. A call's way through its own node (deadline, faults, capacity, rate
//! limit, workers and queue, service time) is the server's stage, in
//! `arrival.rs`. The rules are in the module doc of [`super`].

use squall_lang::{RetrySpec, Schedule};

use crate::caller::NO_GRANT;

use crate::observe::Observations;
use crate::outcome::{fail, Answer, FailKind, Failure};
use crate::policy::breaker::counts_against_dependency;
use crate::policy::retry::RetryLoop;
use crate::time::Time;

use super::super::{event::Event, runner::Runner, SimError};
use super::calls::{Phase, NONE};
use super::recorder::Count;

/// Events between two looks at the work budget and the queue's stale
/// timers (the budget's own event is always looked at).
const LOOK_EVERY: u64 = 1024;

impl Runner<'_, '_> {
    /// The event loop of a run that takes time.
    pub(in crate::simulation) fn run_timed(mut self) -> Result<Observations, SimError> {
        let m = self.sim.model;
        let res = self.timed.res;
        self.schedule_worker_faults()?;
        if m.start <= m.ticks {
            for (s, spec) in m.sources.iter().enumerate() {
                let source = s as u32;
                match &spec.schedule {
                    Schedule::Rate if spec.closed() => {
                        self.start_clients(res.at_tick(m.start), s)?
                    }
                    Schedule::Rate => self.next_arrival(res.at_tick(m.start), s)?,
                    Schedule::At(times) => {
                        if let Some(&t) = times.first() {
                            self.timed
                                .events
                                .schedule(res.at_tick(t).units(), Event::At { source, index: 0 })?;
                        }
                    }
                    Schedule::Sequential(_) => self.start_sequential(s)?,
                }
            }
        }
        let end = self.timed.end;
        // The work budget and the queue's stale timers are looked at every
        // `LOOK_EVERY` events, and at the event past the budget exactly.
        let mut look_at = 0u64;
        while let Some((t, ev)) = self.timed.events.pop_before(end.units()) {
            self.obs.events += 1;
            let now = Time::from_units(t);
            if self.obs.events >= look_at {
                if self.obs.events > self.sim.max_events {
                    return Err(self.over_budget(res.tick_of(now)));
                }
                self.timed.drop_stale_wakes();
                look_at = (self.obs.events + LOOK_EVERY).min(self.sim.max_events.saturating_add(1));
            }
            match ev {
                Event::Source { source } => {
                    let s = source as usize;
                    if self.timed.sources.sends(s) {
                        self.enter_timed(now, s, self.sim.kind_base[s])?;
                    }
                    self.next_arrival(now, s)?;
                }
                Event::At { source, index } => {
                    let s = source as usize;
                    self.enter_timed(now, s, self.sim.kind_base[s])?;
                    if let Schedule::At(times) = &m.sources[s].schedule {
                        if let Some(&next) = times.get(index as usize + 1) {
                            self.timed.events.schedule(
                                res.at_tick(next).units(),
                                Event::At {
                                    source,
                                    index: index + 1,
                                },
                            )?;
                        }
                    }
                }
                Event::Wake { call, gen } => self.wake(now, call, gen)?,
                Event::Op { source, index } => self.start_op(now, source as usize, index)?,
                Event::Think { source, client } => {
                    self.client_sends(now, source as usize, client)?;
                }
                Event::Workers { node } => self.apply_worker_faults(now, node as usize)?,
                Event::Retry { .. } => {}
                Event::Send(e) => self.senders.handle(now, e, &mut self.timed.events)?,
            }
        }
        // What is left at the end: calls by phase, requests still open.
        let mut open = 0;
        for c in &self.timed.calls.calls {
            if !c.live {
                continue;
            }
            let acc = &mut self.timed.recorder.calls;
            match c.phase {
                Phase::Queued | Phase::Token => acc.queued += 1,
                Phase::Dequeued | Phase::Service => acc.in_service += 1,
                Phase::Waiting | Phase::Backoff => acc.waiting += 1,
            }
            if c.parent == NONE {
                open += 1;
            }
        }
        self.obs.accounting.in_flight = open;
        for (i, n) in self.nodes.iter().enumerate() {
            self.obs.route_calls[i] = n.server.route_calls().to_vec();
        }
        let recorder = std::mem::take(&mut self.timed.recorder);
        self.obs.timed = Some(recorder.finish(end));
        self.timed.finish_queues(end, &mut self.obs);
        Ok(self.obs)
    }

    /// A new request of `kind` from source `s` at `now`.
    pub(super) fn enter_timed(&mut self, now: Time, s: usize, kind: u32) -> Result<(), SimError> {
        let tick = self.timed.res.tick_of(now);
        let slot = self.new_request(tick, s, kind);
        let i = slot as usize;
        let tm = &mut self.timed;
        if tm.refs.len() <= i {
            tm.refs.resize(i + 1, 0);
            tm.started.resize(i + 1, Time::ZERO);
            tm.deadline.resize(i + 1, Time::NEVER);
        }
        tm.refs[i] = 1;
        tm.started[i] = now;
        tm.deadline[i] = self.sim.model.sources[s]
            .deadline
            .as_ref()
            .map_or(Time::NEVER, |d| now.after(tm.res.duration(d.after)));
        let c = self.new_call(slot, 0, NONE, now);
        self.arrive_timed(now, c)
    }

    pub(super) fn new_call(&mut self, slot: u32, pos: u32, parent: u32, now: Time) -> u32 {
        let tm = &mut self.timed;
        tm.refs[slot as usize] += 1;
        tm.recorder.calls.arrived += 1;
        let c = tm.calls.alloc(slot, pos, parent, now);
        let source = self.requests.source[slot as usize];
        let path = &self.sim.paths[source as usize];
        let call = tm.calls.get_mut(c);
        call.source = source;
        call.node = path.get(pos as usize).map_or(NONE, |&n| n as u32);
        call.leaf = pos as usize + 1 == path.len();
        if parent != NONE {
            tm.calls.get_mut(c).try_no = tm.calls.get(parent).tries;
        }
        if parent != NONE && tm.calls.get(parent).orphan {
            tm.calls.get_mut(c).orphan = true;
            tm.calls.get_mut(c).orphaned_at = now;
        }
        c
    }

    /// One reference to request `slot` goes; the last frees its slot.
    fn drop_ref(&mut self, slot: u32) {
        let r = &mut self.timed.refs[slot as usize];
        *r -= 1;
        if *r == 0 {
            self.requests.release(slot);
        }
    }

    /// The node at `call`'s position and its source's path.
    pub(super) fn node_of(&self, c: u32) -> (usize, usize, bool) {
        let call = self.timed.calls.get(c);
        let source = call.source as usize;
        if call.field != NONE {
            // A field's node answers by itself (`composite`).
            return (call.field_node as usize, source, true);
        }
        (call.node as usize, source, call.leaf)
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
    ) -> Result<(), SimError> {
        let wake = match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(at) = wake {
            self.timed
                .events
                .schedule(at.units(), Event::Wake { call: c, gen })?;
        }
        Ok(())
    }

    /// The deadline the node of `c` knows, if any. Asked several times
    /// for every call: when no source has a deadline it answers at once.
    #[inline]
    pub(super) fn known_deadline(&self, c: u32) -> Option<Time> {
        if !self.timed.any_deadline {
            return None;
        }
        let call = self.timed.calls.get(c);
        let d = self.timed.deadline[call.slot as usize];
        if d == Time::NEVER {
            return None;
        }
        let source = call.source as usize;
        let propagate = self.sim.model.sources[source]
            .deadline
            .as_ref()
            .is_some_and(|d| d.propagate);
        (call.pos == 0 || propagate).then_some(d)
    }

    /// Call `c`'s own service is over: a leaf answers, another node sends
    /// its first try downstream.
    pub(super) fn proceed(&mut self, now: Time, c: u32) -> Result<(), SimError> {
        let (node, _, leaf) = self.node_of(c);
        if leaf && self.sim.model.nodes[node].composite.is_some() {
            return self.fetch_fields(now, c, node);
        }
        if leaf {
            let a = self.timed.calls.get(c).answer;
            return self.complete_call(now, c, a);
        }
        let tick = self.timed.res.tick_of(now);
        self.timed.calls.get_mut(c).first_try = tick;
        let (node, _, _) = self.node_of(c);
        if self.hedges(node) {
            return self.send_hedge(now, c);
        }
        let slot = self.timed.calls.get(c).slot;
        self.first_try(tick, slot, node);
        self.send_try(now, c)
    }

    /// The node of call `c` sends a try downstream.
    fn send_try(&mut self, now: Time, c: u32) -> Result<(), SimError> {
        let (node, _, _) = self.node_of(c);
        let tick = self.timed.res.tick_of(now);
        self.timed.calls.get_mut(c).tries += 1;
        let deadline = self.known_deadline(c);
        if deadline.is_some_and(|d| now >= d) {
            return self.complete_call(now, c, fail(FailKind::Deadline));
        }
        let slot = self.timed.calls.get(c).slot;
        if let Some(open) = self.admit_try(tick, c, node) {
            return self.after_try(now, c, open);
        }
        let pos = self.timed.calls.get(c).pos;
        let child = self.new_call(slot, pos + 1, c, now);
        self.nodes[node].caller.sent();
        let tm = &mut self.timed;
        tm.calls.get_mut(c).child = child;
        let gen = tm.calls.enter(c, Phase::Waiting);
        let mut budget = self.nodes[node].caller.timeout();
        if let Some(d) = deadline {
            let left = d.since(now);
            budget = Some(budget.map_or(left, |b| b.min(left)));
        }
        if let Some(b) = budget {
            self.timed
                .events
                .schedule(now.after(b).units(), Event::Wake { call: c, gen })?;
        }
        self.arrive_timed(now, child)
    }

    /// The breaker of call `c`'s node lets its try go (noting the epoch it
    /// went in), or fails it fast: `Some(circuit open)`, counted as blocked.
    pub(super) fn admit_try(&mut self, tick: u64, c: u32, node: usize) -> Option<Answer> {
        let slot = self.timed.calls.get(c).slot;
        let scope = self.breaker_scope(slot, node)?;
        let a = self.breaker_admit(node, scope, tick);
        if !a.sent {
            return Some(self.refused(tick, slot, node, a));
        }
        self.timed.calls.get_mut(c).admitted(tick, a);
        None
    }

    /// A scheduled event for call `c`, if it is still current.
    fn wake(&mut self, now: Time, c: u32, gen: u32) -> Result<(), SimError> {
        if !self.timed.calls.current(c, gen) {
            return Ok(());
        }
        let (node, _, _) = self.node_of(c);
        if self.timed.is_work_queue(node) {
            if let Some(answer) = self.timed.message_wake(now, c, node)? {
                self.complete_call(now, c, answer)?;
                self.timed.dispatch_messages(now, node)?;
            }
            return Ok(());
        }
        let past_deadline = self.known_deadline(c).is_some_and(|d| now >= d);
        match self.timed.calls.get(c).phase {
            Phase::Queued => {
                if past_deadline {
                    return self.stop_at_deadline(now, c);
                }
                let (node, _, _) = self.node_of(c);
                self.leave_queue(now, node);
                self.timed.recorder.count(node, Count::QueueTimeout, now, 1);
                self.complete_call(now, c, fail(FailKind::QueueTimeout))
            }
            Phase::Dequeued => self.start_service(now, c),
            Phase::Token => self.after_limit(now, c),
            Phase::Service if now < self.timed.calls.get(c).service_end => {
                self.stop_at_deadline(now, c)
            }
            Phase::Service => self.proceed(now, c),
            Phase::Waiting if self.timed.fetches.fetching(c) => self.fetch_wake(now, c),
            Phase::Waiting => self.time_out(now, c),
            Phase::Backoff => self.send_try(now, c),
        }
    }

    /// The deadline call `c`'s node knows has passed while it waits in the
    /// queue or is in service: a detached call (nobody waits for it) is
    /// cancelled; a call whose caller still waits answers *deadline
    /// exceeded* (its caller's own timer, set for the same moment, normally
    /// comes first).
    fn stop_at_deadline(&mut self, now: Time, c: u32) -> Result<(), SimError> {
        let call = *self.timed.calls.get(c);
        if call.detached {
            return self.cancel_chain(now, c);
        }
        if call.phase == Phase::Queued {
            let (node, _, _) = self.node_of(c);
            self.leave_queue(now, node);
        }
        self.complete_call(now, c, fail(FailKind::Deadline))
    }

    /// The try of call `c` timed out at `now`.
    fn time_out(&mut self, now: Time, c: u32) -> Result<(), SimError> {
        let (node, source, _) = self.node_of(c);
        if self.hedges(node) {
            return self.hedge_timer(now, c);
        }
        let tick = self.timed.res.tick_of(now);
        self.timed.recorder.count(node, Count::Timeout, now, 1);
        let child = std::mem::replace(&mut self.timed.calls.get_mut(c).child, NONE);
        // The try took from its send (its callee's arrival) to now.
        let took = match child {
            NONE => 0,
            child => self
                .timed
                .ticks_since(now, self.timed.calls.get(child).arrived),
        };
        if child != NONE {
            self.nodes[node].caller.back();
        }
        let slot = self.timed.calls.get(c).slot;
        let propagated_past = self.sim.model.sources[source]
            .deadline
            .as_ref()
            .is_some_and(|d| d.propagate)
            && now >= self.timed.deadline[slot as usize];
        if self.nodes[node].caller.cancels() || propagated_past {
            self.cancel_chain(now, child)?;
        } else {
            if child != NONE {
                self.timed.calls.get_mut(child).detached = true;
            }
            self.orphan_from(now, child);
        }
        if let Some(scope) = self.breaker_scope(slot, node) {
            let epoch = self.timed.calls.get(c).admitted_epoch;
            let after = self.breaker_record(node, scope, true, took, tick, epoch);
            let (sent, scope) = (self.timed.calls.get(c).sent(), self.scope_of(slot, node));
            self.trace(node, || {
                sent.answered(scope, fail(FailKind::Timeout), after)
            });
        }
        self.after_try(now, c, fail(FailKind::Timeout))
    }

    /// Cancels call `c` and the calls below it: each leaves its queue or
    /// frees its worker now.
    pub(super) fn cancel_chain(&mut self, now: Time, mut c: u32) -> Result<(), SimError> {
        while c != NONE {
            let call = *self.timed.calls.get(c);
            let (node, _, _) = self.node_of(c);
            if call.phase == Phase::Queued {
                self.leave_queue(now, node);
            }
            if call.holds_worker {
                self.wasted_busy(now, node, &call);
                self.free_worker(now, node)?;
            }
            self.cancel_fields(now, c)?;
            if call.child != NONE {
                self.nodes[node].caller.back();
            }
            if self.hedges(node) {
                self.cancel_kids(now, c)?;
            }
            self.close_retry(c, node);
            if self.nodes[node].caller.has_budget() {
                self.nodes[node]
                    .caller
                    .leave(call.tries > 0, None, NO_GRANT, None);
            }
            let tm = &mut self.timed;
            tm.recorder.count(node, Count::Cancelled, now, 1);
            tm.recorder.calls.cancelled += 1;
            tm.calls.release(c);
            self.drop_ref(call.slot);
            c = call.child;
        }
        Ok(())
    }

    fn wasted_busy(&mut self, now: Time, node: usize, call: &super::calls::Call) {
        if call.orphan {
            let from = call.served.max(call.orphaned_at);
            let busy = now.since(from).units();
            self.timed
                .recorder
                .count(node, Count::WastedBusy, now, busy);
        }
    }

    /// The node of call `c` answers `answer` at `now`.
    pub(super) fn complete_call(
        &mut self,
        now: Time,
        c: u32,
        answer: Answer,
    ) -> Result<(), SimError> {
        let call = *self.timed.calls.get(c);
        let (node, source, _) = self.node_of(c);
        let tick = self.timed.res.tick_of(now);
        if call.holds_worker {
            self.wasted_busy(now, node, &call);
            self.timed
                .recorder
                .latency(node, now, now.since(call.arrived));
            self.free_worker(now, node)?;
        }
        self.timed.recorder.calls.answered += 1;
        if answer == Answer::Ok {
            self.timed.recorder.answered_ok(node, call.arrived);
        }
        self.count_answer(tick, node, answer);
        let latency = now.since(call.arrived).units();
        self.log_call(now.units(), call.slot, node, call.try_no, answer, latency);
        if self.nodes[node].caller.has_budget() {
            self.close_retry(c, node);
            let client = self.client_budget(call.slot, node);
            let caller = &mut self.nodes[node].caller;
            caller.leave(call.tries > 0, Some(answer), call.grant, client);
        }
        if call.orphan {
            self.timed.recorder.count(node, Count::WastedCalls, now, 1);
        }
        self.timed.calls.release(c);
        if call.parent == NONE {
            self.tally_end(tick, call.slot, answer);
            self.op_ended(now, call.slot, answer, call.tries)?;
            let started = self.timed.started[call.slot as usize];
            self.timed
                .recorder
                .end_to_end(source, now, now.since(started), answer == Answer::Ok);
            let client = self.requests.client[call.slot as usize];
            self.drop_ref(call.slot);
            self.drop_ref(call.slot);
            return self.client_done(now, source, client);
        }
        self.drop_ref(call.slot);
        if call.detached {
            return Ok(());
        }
        let p = call.parent;
        if call.field != NONE {
            return self.field_answered(now, p, call.field as usize, answer);
        }
        // The caller's try answered: its timer goes stale.
        self.timed.calls.get_mut(p).child = NONE;
        let (pnode, _, _) = self.node_of(p);
        self.nodes[pnode].caller.back();
        if let Some(scope) = self.breaker_scope(call.slot, pnode) {
            let epoch = self.timed.calls.get(p).admitted_epoch;
            let failed = counts_against_dependency(answer);
            let took = self.timed.ticks_since(now, call.arrived);
            let after = self.breaker_record(pnode, scope, failed, took, tick, epoch);
            let (sent, scope) = (
                self.timed.calls.get(p).sent(),
                self.scope_of(call.slot, pnode),
            );
            self.trace(pnode, || sent.answered(scope, answer, after));
        }
        if self.hedges(pnode) {
            return self.hedge_answer(now, p, c, answer);
        }
        self.after_try(now, p, answer)
    }

    /// The try of call `c` ended with `answer`: success answers up; a
    /// failure is retried after a wait when the policy allows and the
    /// wait ends before the deadline, or answers up.
    fn after_try(&mut self, now: Time, c: u32, answer: Answer) -> Result<(), SimError> {
        if self.timed.calls.get(c).retry_open {
            let (node, _, _) = self.node_of(c);
            self.close_retry(c, node);
        }
        let Answer::Fail(f) = answer else {
            return self.complete_call(now, c, answer);
        };
        let (node, source, _) = self.node_of(c);
        let call = *self.timed.calls.get(c);
        let kind = self.requests.kind[call.slot as usize] as usize;
        let sim = self.sim;
        let policy = if call.pos == 0 {
            sim.kinds[kind].entry_retry.as_ref()
        } else {
            sim.model.nodes[node].retry.as_ref()
        };
        let Some(policy) = policy else {
            return self.complete_call(now, c, answer);
        };
        let tick = self.timed.res.tick_of(now);
        let Some(wait) = self.timed_wait(tick, c, f, policy, kind) else {
            return self.complete_call(now, c, answer);
        };
        let at = now.after(self.timed.res.ticks(wait));
        if self.known_deadline(c).is_some_and(|d| at >= d) {
            return self.complete_call(now, c, answer);
        }
        if !call.orphan {
            self.requests.retried[call.slot as usize] = true;
            if call.pos == 0 {
                self.op_wait(call.slot, wait);
            }
        }
        let _ = source;
        let gen = self.timed.calls.enter(c, Phase::Backoff);
        self.timed
            .events
            .schedule(at.units(), Event::Wake { call: c, gen })?;
        Ok(())
    }

    /// The wait \[ticks\] before call `c`'s next try, or `None` when it
    /// makes no more: the caller side's [`crate::caller::Decision`] on the
    /// call's own retry loop, the zero-time path's rule. A retry its
    /// node's budget granted stays open until its answer comes back
    /// ([`Self::close_retry`]).
    fn timed_wait(
        &mut self,
        tick: u64,
        c: u32,
        f: Failure,
        policy: &RetrySpec,
        kind: usize,
    ) -> Option<u64> {
        let call = *self.timed.calls.get(c);
        let mut state = RetryLoop {
            tries: call.tries,
            started: call.first_try,
            previous: (call.prev_wait != u64::MAX).then_some(call.prev_wait),
            skip: call.skip,
        };
        let (node, _, _) = self.node_of(c);
        let d = self.decide(tick, call.slot, node, f, policy, kind, &mut state);
        let x = self.timed.calls.get_mut(c);
        x.prev_wait = state.previous.unwrap_or(u64::MAX);
        x.skip = state.skip;
        if d.grant != NO_GRANT {
            x.grant = d.grant;
            x.retry_open = d.wait.is_some();
        }
        d.wait
    }

    /// Call `c` at `node` leaves its retry open (its retry answered, or
    /// the call ends).
    pub(super) fn close_retry(&mut self, c: u32, node: usize) {
        let call = self.timed.calls.get_mut(c);
        if call.retry_open {
            call.retry_open = false;
            self.nodes[node].caller.retry_closed();
        }
    }
}
