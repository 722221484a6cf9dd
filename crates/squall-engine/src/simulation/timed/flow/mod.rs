//! The run of a model that takes time: the event loop and a call's tries
//! downstream with timeouts; the answer back up, retries and cancellation
//! are the loop's second file, `back.rs`. A call's way through its own node (deadline, faults, capacity, rate
//! limit, workers and queue, service time) is the server's stage
//! (`arrival.rs`, which returns the loop's next [`Step`]), and a composite
//! response's fields are the server side's [`Fetches`](crate::server::composite::Fetches)
//! (`composite.rs`). The rules are in the module doc of [`super`].

use crate::observe::Observations;
use crate::outcome::{fail, Answer, FailKind};
use crate::policy::limiter::Sample;
use crate::queue::Timer;
use crate::time::Time;

use super::super::clients::Part;
use super::super::{event::Event, runner::Runner, SimError};
use super::arrival::Step;
use super::calls::{Phase, NONE};
use super::links::Leg;
use super::recorder::Count;

/// Events between two looks at the work budget and the queue's stale
/// timers (the budget's own event is always looked at).
const LOOK_EVERY: u64 = 1024;

mod back;

impl Runner<'_, '_> {
    /// The event loop of a run that takes time.
    pub(in crate::simulation) fn run_timed(mut self) -> Result<Observations, SimError> {
        let m = self.sim.model;
        let res = self.timed.res;
        let nodes = &self.nodes;
        let changes = |f: &squall_lang::FaultSpec| nodes[f.node].servers.first().worker_changes(f);
        self.timed.schedule_worker_faults(&m.faults, changes)?;
        self.timed.start_sources(m, &mut self.sources)?;
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
                    let stream = self.sources.stream(s);
                    self.timed.next_arrival(now, s, &m.sources[s], stream)?;
                }
                Event::At { source, index } => {
                    let s = source as usize;
                    self.enter_timed(now, s, self.sim.kind_base[s])?;
                    self.timed.next_at(&m.sources[s], source, index)?;
                }
                Event::Wake { call, gen } => self.wake(now, call, gen)?,
                Event::Op { source, index } => {
                    let s = source as usize;
                    self.operations.start(s, res.tick_of(now));
                    self.enter_timed(now, s, self.sim.kind_base[s] + index)?;
                }
                Event::Think { source, client } => {
                    self.clients.sending = Some(client);
                    let s = source as usize;
                    self.enter_timed(now, s, self.sim.kind_base[s])?;
                }
                Event::Workers { node } => {
                    // Each replica sets the workers its faults leave it.
                    let (n, faults) = (node as usize, &m.faults);
                    for r in 0..self.nodes[n].servers.len() {
                        let server = self.nodes[n].servers.at(r);
                        self.timed.apply_worker_faults(now, n, server, faults)?;
                    }
                }
                Event::Retry { .. } => {}
                Event::Send(e) => self.senders.handle(now, e, &mut self.timed.events)?,
            }
        }
        self.timed.finish(&self.nodes, &mut self.obs);
        Ok(self.obs)
    }

    /// A new request of `kind` from source `s` at `now`.
    pub(super) fn enter_timed(
        &mut self,
        now: Time,
        s: usize,
        kind: u32,
    ) -> Result<(), Box<SimError>> {
        let t = self.timed.tick_of(now);
        let i = self.timed.cursor.index(&self.obs.slots, t);
        let slot = self.new_request_at(i, s, kind);
        let deadline = self.sim.model.sources[s].deadline.as_ref();
        self.timed.open_request(slot, now, deadline);
        let c = self.new_call((slot, s as u32), 0, NONE, now);
        self.arrive_timed(now, c)
    }

    /// A new call of request `slot` from `source` at path position `pos`
    /// from `parent`.
    #[inline]
    pub(super) fn new_call(
        &mut self,
        (slot, source): (u32, u32),
        pos: u32,
        parent: u32,
        now: Time,
    ) -> u32 {
        let path = &self.sim.paths[source as usize];
        self.timed.new_call(slot, pos, parent, now, source, path)
    }

    /// Call `c` reaches its node at `now`: counted, then the server's
    /// stage (`arrival.rs`).
    pub(super) fn arrive_timed(&mut self, now: Time, c: u32) -> Result<(), Box<SimError>> {
        let call = self.timed.calls.get(c);
        let (node, slot) = (call.node as usize, call.slot);
        let t = self.timed.tick_of(now);
        let ti = self.timed.cursor.index(&self.obs.slots, t);
        self.observe_at(ti, t, slot, node);
        // The balancer picks the replica the call meets (`server/replicas.rs`).
        self.call_now.set((t, slot));
        let r = self.nodes[node].servers.pick();
        self.timed.calls.get_mut(c).replica = r as u16;
        let (servers, faults) = (&mut self.nodes[node].servers, &self.sim.model.faults);
        let step = self
            .timed
            .arrive(now, c, node, (servers, r), faults, &mut self.obs)?;
        self.go_on(now, c, step)
    }

    /// Does what the server's stage decided for call `c` at `now` (a loop,
    /// not a recursion, so that it inlines into its callers).
    #[inline]
    fn go_on(&mut self, now: Time, c: u32, mut step: Step) -> Result<(), Box<SimError>> {
        loop {
            match step {
                Step::Wait => return Ok(()),
                Step::Limit => {
                    // Past the rate limit: the workers (`arrival.rs`). The
                    // request's kind is looked up only when a leaf's answer
                    // asks for it.
                    let call = self.timed.calls.get(c);
                    let (node, slot) = (call.node as usize, call.slot as usize);
                    let r = call.replica as usize;
                    let (sim, kinds) = (self.sim, &self.requests.kind);
                    let request = || &sim.kinds[kinds[slot] as usize].request;
                    let (spec, server) = (&sim.model.nodes[node], self.nodes[node].servers.at(r));
                    step = self
                        .timed
                        .join(now, c, spec, request, server, &sim.model.faults)?;
                }
                Step::Proceed => return self.proceed(now, c),
                Step::Answer(a) => return self.complete_call(now, c, a),
            }
        }
    }

    /// `n` references to request `slot` go; the last frees its slot.
    fn drop_refs(&mut self, slot: u32, n: u32) {
        if self.timed.drop_refs(slot, n) {
            self.requests.release(slot);
        }
    }

    /// Call `c` at composite node `node` is done with its own work at
    /// `now`: it sends one call per field, all now, and waits for them
    /// (`composite.rs`).
    fn fetch_fields(&mut self, now: Time, c: u32, node: usize) -> Result<(), Box<SimError>> {
        let sim = self.sim;
        let Some(spec) = &sim.model.nodes[node].composite else {
            return Ok(());
        };
        let (own, deadline) = (
            self.nodes[node].caller.timeout(),
            self.timed.known_deadline(c),
        );
        if self.timed.start_fetch(now, c, spec, own, deadline)? {
            return self.assemble_fetch(now, c, node);
        }
        let call = self.timed.calls.get(c);
        let (request, pos) = ((call.slot, call.source), call.pos);
        for (i, f) in spec.fields.iter().enumerate() {
            let child = self.new_call(request, pos + 1, c, now);
            self.timed.field_call(c, i, child, f.source);
            self.arrive_timed(now, child)?;
        }
        Ok(())
    }

    /// Response call `p` at `node` has every field in or out at `now`: it
    /// answers what its policy makes of them.
    fn assemble_fetch(&mut self, now: Time, p: u32, node: usize) -> Result<(), Box<SimError>> {
        // The ledger is the service's, kept by replica 0.
        let (spec, server) = (&self.sim.model.nodes[node], self.nodes[node].servers.at(0));
        match self
            .timed
            .assemble_fetch(now, p, node, spec, server, &mut self.obs)
        {
            Some(answer) => self.complete_call(now, p, answer),
            None => Ok(()),
        }
    }

    /// Call `c`'s own service is over: an `optimistic` node commits it or
    /// answers the conflict
    /// ([`ServerSide::commit`](crate::server::node::ServerSide::commit)); then a leaf answers,
    /// another node sends its first try downstream.
    pub(super) fn proceed(&mut self, now: Time, c: u32) -> Result<(), Box<SimError>> {
        let call = self.timed.calls.get(c);
        let (node, leaf, own) = (call.node as usize, call.leaf, call.answer);
        let (r, slot) = (call.replica as usize, call.slot);
        let at = &mut self.nodes[node];
        if let Some(conflict) = at.servers.at(r).commit(c, own) {
            return self.complete_call(now, c, conflict);
        }
        if leaf && self.sim.model.nodes[node].composite.is_some() {
            return self.fetch_fields(now, c, node);
        }
        if leaf {
            return self.complete_call(now, c, own);
        }
        let (hedges, budget) = (at.caller.hedge().is_some(), at.caller.has_budget());
        let tick = self.timed.tick_of(now);
        self.timed.calls.get_mut(c).first_try = tick;
        if hedges {
            return self.send_hedge(now, c);
        }
        if budget {
            self.first_try(tick, slot, node);
        }
        self.send_try(now, c)
    }

    /// The node of call `c` sends a try downstream.
    fn send_try(&mut self, now: Time, c: u32) -> Result<(), Box<SimError>> {
        let call = self.timed.calls.get_mut(c);
        call.tries += 1;
        let (node, slot, pos) = (call.node as usize, call.slot, call.pos);
        let source = call.source;
        let tick = self.timed.tick_of(now);
        let deadline = self.timed.known_deadline(c);
        if deadline.is_some_and(|d| now >= d) {
            return self.complete_call(now, c, fail(FailKind::Deadline));
        }
        let mut held = 0;
        let caller = &self.nodes[node].caller;
        if caller.has_limiter() {
            match self.limit_try(now, tick, c, node) {
                Ok(n) => held = n,
                Err(limited) => return self.after_try(now, c, limited),
            }
        } else if caller.guarded() {
            if let Some(open) = self.guarded_try(tick, c, node) {
                return self.after_try(now, c, open);
            }
        }
        let child = self.new_call((slot, source), pos + 1, c, now);
        let caller = &mut self.nodes[node].caller;
        caller.sent();
        let mut budget = caller.timeout();
        let tm = &mut self.timed;
        if held != 0 {
            tm.calls.get_mut(child).limit_inflight = held;
        }
        let gen = tm.calls.wait_for(c, child);
        if let Some(d) = deadline {
            let left = d.since(now);
            budget = Some(budget.map_or(left, |b| b.min(left)));
        }
        let timer = match budget {
            Some(b) => self
                .timed
                .events
                .schedule_timer(now.after(b).units(), Event::Wake { call: c, gen })?,
            None => Timer::NONE,
        };
        self.timed.calls.get_mut(c).timer = timer;
        self.send_down(now, node, child)
    }

    /// Try `child` of `node` goes down: over a link with faults
    /// (`links.rs`), or straight to its node.
    #[inline(always)]
    pub(super) fn send_down(
        &mut self,
        now: Time,
        node: usize,
        child: u32,
    ) -> Result<(), Box<SimError>> {
        if self.timed.links.sends(node) {
            return self.over_link(now, node, child);
        }
        self.arrive_timed(now, child)
    }

    /// [`Self::send_down`] from a node with link faults: the try reaches
    /// its node now or later, its caller hears the link's answer now or
    /// later, or it is lost. Out of line, so a node without link faults
    /// pays one test.
    #[inline(never)]
    fn over_link(&mut self, now: Time, node: usize, child: u32) -> Result<(), Box<SimError>> {
        let faults = &self.sim.model.faults;
        match self.timed.link_request(now, node, child, faults) {
            Leg::After(d) if d.units() == 0 => self.arrive_timed(now, child),
            Leg::After(d) => self
                .timed
                .on_link(child, Phase::Transit, Some(now.after(d))),
            Leg::Fail(answer, d) => {
                self.timed.calls.get_mut(child).answer = answer;
                if d.units() == 0 {
                    return self.off_link(now, child);
                }
                self.timed.on_link(child, Phase::Back, Some(now.after(d)))
            }
            Leg::Lost => self.timed.on_link(child, Phase::Lost, None),
        }
    }

    /// The throttle and the breaker of call `c`'s node let its try go
    /// (noting the epoch it went in), or fail it fast: `Some(throttled)`,
    /// counted as rejected locally, or `Some(circuit open)`, counted as blocked.
    #[inline]
    pub(super) fn admit_try(&mut self, tick: u64, c: u32, node: usize) -> Option<Answer> {
        if !self.nodes[node].caller.guarded() {
            return None;
        }
        self.guarded_try(tick, c, node)
    }

    /// [`Self::admit_try`] at a node with a throttle or breakers: out of
    /// line, so a node without either pays one test.
    #[inline(never)]
    fn guarded_try(&mut self, tick: u64, c: u32, node: usize) -> Option<Answer> {
        let slot = self.timed.calls.get(c).slot;
        if self.nodes[node].caller.throttles.is_some() {
            if let Some(rejected) = self.throttle_try(tick, slot, node) {
                return Some(rejected);
            }
        }
        let scope = self.breaker_scope(slot, node)?;
        let a = self.breaker_admit(node, scope, tick);
        if !a.sent {
            return Some(self.refused(tick, slot, node, a));
        }
        self.timed.calls.get_mut(c).admitted(tick, a);
        None
    }

    /// The concurrency limiter of call `c`'s node (then its breaker) lets
    /// its try go, `Ok(tries in flight with it)`, or fails it fast:
    /// `Err(limited)`, counted as limited, or `Err(circuit open)`, when
    /// the limiter's place is given back unsampled. Out of line, so a
    /// node without a limiter pays one test.
    #[inline(never)]
    fn limit_try(&mut self, now: Time, tick: u64, c: u32, node: usize) -> Result<u16, Answer> {
        let client = self.client_part(Part::Limiter, self.timed.calls.get(c).slot, node);
        let Some(n) = self.nodes[node].caller.acquire(now, client) else {
            self.timed.recorder.count(node, Count::Limited, now, 1);
            return Err(fail(FailKind::Limited));
        };
        if let Some(open) = self.admit_try(tick, c, node) {
            let caller = &mut self.nodes[node].caller;
            caller.release(now, now, n, Sample::Cancelled, client);
            return Err(open);
        }
        // The limits are at most 65 535 (`resolve/limiters.rs`).
        Ok(n as u16)
    }

    /// Try `t` of `node` (its record, live or just released), sent at
    /// `sent` with `inflight` tries out, ended at `now` as `sample`: its
    /// limiter hears it. Out of line, as [`Self::limit_try`].
    #[inline(never)]
    pub(super) fn limiter_back(&mut self, now: Time, node: usize, t: u32, sample: Sample) {
        let try_ = *self.timed.calls.get(t);
        let client = self.client_part(Part::Limiter, try_.slot, node);
        let (sent, inflight) = (try_.sent, u32::from(try_.limit_inflight));
        let caller = &mut self.nodes[node].caller;
        caller.release(now, sent, inflight, sample, client);
    }

    /// A scheduled event for call `c`, if it is still current.
    fn wake(&mut self, now: Time, c: u32, gen: u32) -> Result<(), Box<SimError>> {
        if !self.timed.calls.current(c, gen) {
            return Ok(());
        }
        let (node, _, _) = self.timed.node_of(c);
        let phase = self.timed.calls.get(c).phase;
        if self.timed.is_work_queue(node) && !matches!(phase, Phase::Transit | Phase::Back) {
            if let Some(answer) = self.timed.message_wake(now, c, node)? {
                self.complete_call(now, c, answer)?;
                self.timed.dispatch_messages(now, node)?;
            }
            return Ok(());
        }
        let past_deadline = self.timed.known_deadline(c).is_some_and(|d| now >= d);
        match phase {
            Phase::Queued => {
                if past_deadline {
                    return self.stop_at_deadline(now, c);
                }
                let r = self.timed.calls.get(c).replica as usize;
                self.timed
                    .leave_queue(now, (node, c), self.nodes[node].servers.at(r));
                self.timed.recorder.count(node, Count::QueueTimeout, now, 1);
                self.complete_call(now, c, fail(FailKind::QueueTimeout))
            }
            Phase::Shed => {
                self.timed.recorder.count(node, Count::QueueTimeout, now, 1);
                self.complete_call(now, c, fail(FailKind::QueueTimeout))
            }
            Phase::Dequeued => {
                let r = self.timed.calls.get(c).replica as usize;
                let (server, faults) = (self.nodes[node].servers.at(r), &self.sim.model.faults);
                let at_once = self.timed.start_service(now, c, server, faults)?;
                self.go_on(now, c, Step::after_service(at_once))
            }
            Phase::Token => self.go_on(now, c, Step::Limit),
            Phase::Service if now < self.timed.calls.get(c).service_end => {
                self.stop_at_deadline(now, c)
            }
            Phase::Service => self.proceed(now, c),
            Phase::Waiting if self.timed.fetches.fetching(c) => {
                let (out, done) = self.timed.fields_out(now, c, node);
                for child in out.into_iter().flatten() {
                    self.give_up(now, c, child)?;
                }
                if done {
                    return self.assemble_fetch(now, c, node);
                }
                Ok(())
            }
            Phase::Waiting => self.time_out(now, c),
            Phase::Backoff => self.send_try(now, c),
            Phase::Transit => {
                self.timed.calls.get_mut(c).arrived = now;
                self.arrive_timed(now, c)
            }
            Phase::Back => self.off_link(now, c),
            Phase::Lost => Ok(()),
        }
    }

    /// The deadline call `c`'s node knows has passed while it waits in the
    /// queue or is in service: a detached call (nobody waits for it) is
    /// cancelled; a call whose caller still waits answers *deadline
    /// exceeded* (its caller's own timer, set for the same moment, normally
    /// comes first).
    fn stop_at_deadline(&mut self, now: Time, c: u32) -> Result<(), Box<SimError>> {
        let call = *self.timed.calls.get(c);
        if call.detached {
            return self.cancel_chain(now, c);
        }
        if call.phase == Phase::Queued {
            let (node, _, _) = self.timed.node_of(c);
            let server = self.nodes[node].servers.at(call.replica as usize);
            self.timed.leave_queue(now, (node, c), server);
        }
        self.complete_call(now, c, fail(FailKind::Deadline))
    }

    /// The try of call `c` timed out at `now`.
    fn time_out(&mut self, now: Time, c: u32) -> Result<(), Box<SimError>> {
        let (node, _, _) = self.timed.node_of(c);
        if self.nodes[node].caller.hedge().is_some() {
            return self.send_hedge(now, c);
        }
        let tick = self.timed.tick_of(now);
        self.timed.recorder.count(node, Count::Timeout, now, 1);
        let child = std::mem::replace(&mut self.timed.calls.get_mut(c).child, NONE);
        // The try took from its send (its callee's arrival) to now.
        let took = match child {
            NONE => 0,
            child => self
                .timed
                .ticks_since(now, self.timed.calls.get(child).sent),
        };
        if child != NONE {
            self.nodes[node].caller.back();
            if self.nodes[node].caller.has_limiter() {
                self.limiter_back(now, node, child, Sample::Dropped);
            }
        }
        self.give_up(now, c, child)?;
        if self.nodes[node].caller.guarded() {
            self.guard_heard(tick, c, node, fail(FailKind::Timeout), took);
        }
        self.after_try(now, c, fail(FailKind::Timeout))
    }

    /// The node of call `c` gives up on its call `child` at `now`: with
    /// `cancel` on the node, or past a propagated deadline, the chain is
    /// cancelled; otherwise it is left behind as orphans.
    fn give_up(&mut self, now: Time, c: u32, child: u32) -> Result<(), Box<SimError>> {
        let (node, _, _) = self.timed.node_of(c);
        if self.nodes[node].caller.cancels() || self.timed.propagated_past(now, c) {
            return self.cancel_chain(now, child);
        }
        // A try a link lost has nothing left to do: it goes.
        if child != NONE && self.timed.calls.get(child).phase == Phase::Lost {
            return self.cancel_chain(now, child);
        }
        if child != NONE {
            self.timed.calls.get_mut(child).detached = true;
        }
        self.timed.orphan_from(now, child);
        Ok(())
    }
}
