//! The way back up on a run that takes time: a call answers
//! (`complete_call`) and its caller's try ends, is retried after its wait
//! or answers up in turn (`after_try`, the retry decision of the caller
//! side); a hedging caller acts on what its [`Hedges`](crate::caller::Hedges)
//! decides; a chain given up on is cancelled (`cancel_chain`). The second
//! half of the timed loop (`mod.rs` has the dispatch and the way down).

use squall_lang::RetrySpec;

use crate::caller::{HedgeStep, NO_GRANT};

use crate::outcome::{fail, Answer, FailKind, Failure};
use crate::policy::breaker::counts_against_dependency;
use crate::policy::limiter::Sample;
use crate::policy::retry::{classify, Class};
use crate::rng::{mix_key, Generator, Purpose, Stream};
use crate::time::Time;

use super::super::super::clients::Part;
use super::super::super::{event::Event, runner::Runner, SimError};
use super::super::calls::{Call, Phase, NONE};
use super::super::recorder::Count;

impl Runner<'_, '_> {
    /// Cancels call `c` and the calls below it: each leaves its queue or
    /// frees its worker now.
    pub(in crate::simulation::timed) fn cancel_chain(
        &mut self,
        now: Time,
        mut c: u32,
    ) -> Result<(), Box<SimError>> {
        while c != NONE {
            let call = *self.timed.calls.get(c);
            if self.timed.drop_on_link(c, &call) {
                self.drop_refs(call.slot, 1);
                return Ok(());
            }
            let (node, _, _) = self.timed.node_of(c);
            let servers = &mut self.nodes[node].servers;
            servers.done(call.replica as usize, 0, None);
            let server = servers.at(call.replica as usize);
            if call.phase == Phase::Queued {
                self.timed.leave_queue(now, (node, c), server);
            }
            if call.holds_worker {
                self.timed.wasted_busy(now, node, c);
                self.timed.free_worker(now, node, server)?;
            }
            for child in self.timed.fetches.cancel(c) {
                self.cancel_chain(now, child)?;
            }
            if call.child != NONE {
                self.nodes[node].caller.back();
                if self.nodes[node].caller.has_limiter() {
                    self.limiter_back(now, node, call.child, Sample::Cancelled);
                }
            }
            if self.nodes[node].caller.hedge().is_some() {
                for k in self.timed.hedges.take(c) {
                    self.cancel_chain(now, k)?;
                }
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
            self.drop_refs(call.slot, 1);
            c = call.child;
        }
        Ok(())
    }

    /// The node of call `c` answers `answer` at `now`.
    pub(in crate::simulation::timed) fn complete_call(
        &mut self,
        now: Time,
        c: u32,
        answer: Answer,
    ) -> Result<(), Box<SimError>> {
        // The record's fields, read once here (nothing below changes them
        // before the record is released): no copy of the whole, and no
        // lookup of the record after each step.
        let call = self.timed.calls.get(c);
        let (node, source) = (call.node as usize, call.source as usize);
        let (slot, parent, arrived) = (call.slot, call.parent, call.arrived);
        let (r, holds_worker) = (call.replica as usize, call.holds_worker);
        let (try_no, tries, grant, orphan) = (call.try_no, call.tries, call.grant, call.orphan);
        let up = Up::of(call);
        let tick = self.timed.tick_of(now);
        let budget = self.nodes[node].caller.has_budget();
        let servers = &mut self.nodes[node].servers;
        servers.answered(r, tick, answer, (now, arrived), holds_worker);
        if holds_worker {
            if orphan {
                self.timed.wasted_busy(now, node, c);
            }
            let tm = &mut self.timed;
            tm.recorder.latency(node, now, now.since(arrived));
            tm.free_worker(now, node, servers.at(r))?;
        }
        self.timed.recorder.calls.answered += 1;
        if answer == Answer::Ok {
            self.timed.recorder.answered_ok(node, arrived);
        }
        let i = self.timed.cursor.index(&self.obs.slots, tick);
        self.obs.nodes[node].count_answer(i, tick, answer);
        let latency = now.since(arrived).units();
        self.log_call(now.units(), slot, node, try_no, answer, latency);
        if budget {
            self.close_retry(c, node);
            let client = self.client_part(Part::Budget, slot, node);
            let caller = &mut self.nodes[node].caller;
            caller.leave(tries > 0, Some(answer), grant, client);
        }
        if orphan {
            self.timed.recorder.count(node, Count::WastedCalls, now, 1);
        }
        if self.timed.links.answers(node) {
            let faults = &self.sim.model.faults;
            if self
                .timed
                .link_answer(now, c, node, answer, faults)?
                .is_some()
            {
                return Ok(());
            }
        }
        self.timed.calls.release(c);
        if parent == NONE {
            self.tally_end_at(i, slot, answer);
            self.op_ended(now, (slot, source), answer, tries)?;
            let started = self.timed.started[slot as usize];
            self.timed
                .recorder
                .end_to_end(source, now, now.since(started), answer == Answer::Ok);
            let client = self.requests.client(slot);
            // The entry call's reference and the request's own.
            self.drop_refs(slot, 2);
            let spec = &self.sim.model.sources[source];
            return self.timed.client_done(now, source, spec, client);
        }
        self.answer_up(now, tick, c, up, answer)
    }

    /// Call `c` (released), on a link, reaches its caller at `now` with
    /// its `answer`: a link's failure, or its node's answer after the
    /// answer leg's delay.
    pub(super) fn off_link(&mut self, now: Time, c: u32) -> Result<(), Box<SimError>> {
        let call = self.timed.calls.get(c);
        let (answer, up) = (call.answer, Up::of(call));
        self.timed.calls.release(c);
        let tick = self.timed.tick_of(now);
        self.answer_up(now, tick, c, up, answer)
    }

    /// The `answer` of call `c` (released; `up`, what its record said of
    /// where its answer goes) goes up to its caller at `now` (tick
    /// `tick`): a field to its composite, a try to its caller side.
    #[inline(always)]
    fn answer_up(
        &mut self,
        now: Time,
        tick: u64,
        c: u32,
        up: Up,
        answer: Answer,
    ) -> Result<(), Box<SimError>> {
        let Up {
            slot,
            detached,
            parent: p,
            field,
            sent,
        } = up;
        self.drop_refs(slot, 1);
        if detached {
            return Ok(());
        }
        if field != NONE {
            if self.timed.fetches.answered(p, field as usize, answer) {
                let (pnode, _, _) = self.timed.node_of(p);
                return self.assemble_fetch(now, p, pnode);
            }
            return Ok(());
        }
        // The caller's try answered: its timer goes stale.
        let caller_call = self.timed.calls.get_mut(p);
        caller_call.child = NONE;
        let pnode = caller_call.node as usize;
        let caller = &mut self.nodes[pnode].caller;
        caller.back();
        let (limiter, guarded, hedge) = (caller.has_limiter(), caller.guarded(), caller.hedge());
        if limiter {
            self.limiter_back(now, pnode, c, Sample::of(answer));
        }
        if guarded {
            let took = self.timed.ticks_since(now, sent);
            self.guard_heard(tick, p, pnode, answer, took);
        }
        if let Some(spec) = hedge {
            let request = &self.sim.kinds[self.requests.kind[slot as usize] as usize].request;
            let terminal = |f: Failure| classify(f.kind, request) == Class::Terminal;
            let tries = self.timed.calls.get(p).tries;
            return match self
                .timed
                .hedges
                .answered(&spec, p, c, tries, answer, terminal)
            {
                HedgeStep::Finish(answer) => self.finish_hedged(now, p, answer),
                HedgeStep::Send => self.send_hedge(now, p),
                HedgeStep::Wait => Ok(()),
            };
        }
        // Its timer would pop to do nothing: the calendar drops it (a
        // retry or the answer moves `p` on, so the timer is stale).
        let call = self.timed.calls.get(p);
        let (timer, gen) = (call.timer, call.gen);
        let mine = |e: &Event| matches!(*e, Event::Wake { call, gen: g } if call == p && g == gen);
        self.timed.events.cancel(timer, mine);
        self.after_try(now, p, answer)
    }

    /// The throttle and the breaker of call `p`'s node `node` hear the
    /// `answer` to its try, which took `took` ticks, at `tick`: out of
    /// line, so a node without either pays the one test of
    /// [`CallerSide::guarded`](crate::caller::CallerSide::guarded).
    #[inline(never)]
    pub(super) fn guard_heard(
        &mut self,
        tick: u64,
        p: u32,
        node: usize,
        answer: Answer,
        took: u64,
    ) {
        let slot = self.timed.calls.get(p).slot;
        if self.nodes[node].caller.throttles.is_some() {
            self.throttle_heard(tick, slot, node, answer);
        }
        if let Some(scope) = self.breaker_scope(slot, node) {
            let epoch = self.timed.calls.get(p).admitted_epoch;
            let failed = counts_against_dependency(answer);
            let after = self.breaker_record(node, scope, failed, took, tick, epoch);
            let (sent, scope) = (self.timed.calls.get(p).sent(), self.scope_of(slot, node));
            self.trace(node, || sent.answered(scope, answer, after));
        }
    }

    /// Call `c` at a hedging node sends a try downstream (its caller
    /// side's [`Hedges`](crate::caller::Hedges) keeps it), and sets its
    /// timer for the next one or the deadline; past the deadline, or
    /// refused by the breaker, the call answers instead.
    pub(super) fn send_hedge(&mut self, now: Time, c: u32) -> Result<(), Box<SimError>> {
        let (node, _, _) = self.timed.node_of(c);
        let Some(spec) = self.nodes[node].caller.hedge() else {
            return Ok(());
        };
        let tick = self.timed.tick_of(now);
        let deadline = self.timed.known_deadline(c);
        if deadline.is_some_and(|d| now >= d) {
            return self.finish_hedged(now, c, fail(FailKind::Deadline));
        }
        let call = self.timed.calls.get_mut(c);
        call.tries += 1;
        let (tries, slot, pos, source) = (call.tries, call.slot, call.pos, call.source);
        if let Some(open) = self.admit_try(tick, c, node) {
            return self.finish_hedged(now, c, open);
        }
        if tries > 1 {
            let i = self.obs.slots.index(tick);
            self.obs.nodes[node].count_hedged(i);
            if !self.timed.calls.get(c).orphan {
                self.requests.retried[slot as usize] = true;
            }
        }
        let child = self.new_call((slot, source), pos + 1, c, now);
        let delay = self.timed.hedges.sent(&spec, c, child, tries);
        // The timer first: if the try answers in this moment and the call
        // moves on, the timer goes stale with the generation.
        let gen = self.timed.calls.enter(c, Phase::Waiting);
        let next = delay.map(|d| now.after(self.timed.res.ticks(d)));
        self.timed.wake_at_first(c, gen, next, deadline)?;
        self.send_down(now, node, child)
    }

    /// Hedging call `p` answers `answer`: the tries still out are cancelled
    /// (their work so far is wasted).
    pub(super) fn finish_hedged(
        &mut self,
        now: Time,
        p: u32,
        answer: Answer,
    ) -> Result<(), Box<SimError>> {
        for k in self.timed.hedges.take(p) {
            self.timed.calls.orphan_chain(k);
            self.cancel_chain(now, k)?;
        }
        self.complete_call(now, p, answer)
    }

    /// The try of call `c` ended with `answer`: success answers up; a
    /// failure is retried after a wait when the policy allows and the
    /// wait ends before the deadline, or answers up.
    pub(super) fn after_try(
        &mut self,
        now: Time,
        c: u32,
        answer: Answer,
    ) -> Result<(), Box<SimError>> {
        if self.timed.calls.get(c).retry_open {
            let (node, _, _) = self.timed.node_of(c);
            self.close_retry(c, node);
        }
        let Answer::Fail(f) = answer else {
            return self.complete_call(now, c, answer);
        };
        let (node, source, _) = self.timed.node_of(c);
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
        let tick = self.timed.tick_of(now);
        let Some(wait) = self.timed_wait(tick, c, f, policy, kind) else {
            return self.complete_call(now, c, answer);
        };
        let at = now.after(self.timed.res.ticks(wait));
        if self.timed.known_deadline(c).is_some_and(|d| at >= d) {
            return self.complete_call(now, c, answer);
        }
        if !call.orphan {
            self.requests.retried[call.slot as usize] = true;
            if call.pos == 0 {
                self.operations.wait(source, &sim.kinds[kind], wait);
            }
        }
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
    pub(super) fn timed_wait(
        &mut self,
        tick: u64,
        c: u32,
        f: Failure,
        policy: &RetrySpec,
        kind: usize,
    ) -> Option<u64> {
        let (node, _, _) = self.timed.node_of(c);
        let call = self.timed.calls.get(c);
        let (slot, mut state) = (call.slot, call.retry_loop());
        // Under `draws common` the default generator's jitter draws come
        // from the call's key and its try (`keys.rs`), for this decision.
        let keyed = self.timed.key(c).map(|k| {
            let key = mix_key(k, u64::from(state.tries));
            Generator::SplitMix(Stream::keyed(key, Purpose::Jitter))
        });
        let saved = match (keyed, self.gens.last_mut()) {
            (Some(g), Some(last)) => Some(std::mem::replace(last, g)),
            _ => None,
        };
        let (sim, budget) = (self.sim, self.nodes[node].caller.has_budget());
        let request = &sim.kinds[kind].request;
        let d = self.decide(tick, slot, (node, budget), f, policy, request, &mut state);
        if d.wait.is_some() {
            let i = self.obs.slots.index(tick);
            self.obs.nodes[node].count_retries(i, 1);
        }
        if let (Some(g), Some(last)) = (saved, self.gens.last_mut()) {
            *last = g;
        }
        self.timed.calls.get_mut(c).decided(&state, &d);
        d.wait
    }

    /// The request in `slot` (from source `s`) ended at `now` with
    /// `answer` after `tries` tries at its entry node: an operation is
    /// recorded and the next one starts at that moment
    /// (`Operations::ended`, as on the zero-time path).
    pub(super) fn op_ended(
        &mut self,
        now: Time,
        (slot, s): (u32, usize),
        answer: Answer,
        tries: u32,
    ) -> Result<(), Box<SimError>> {
        let sim = self.sim;
        let kind = &sim.kinds[self.requests.kind[slot as usize] as usize];
        if kind.op.is_none() {
            return Ok(());
        }
        let tries = sim.model.nodes[sim.paths[s][0]].downstream.map(|_| tries);
        let (spec, t) = (&sim.model.sources[s], self.timed.tick_of(now));
        if let Some((record, next)) = self.operations.ended(s, spec, kind, t, tries, answer) {
            self.obs.ops[s].push(record);
            if let Some(index) = next {
                let source = s as u32;
                self.timed
                    .events
                    .schedule(now.units(), Event::Op { source, index })?;
            }
        }
        Ok(())
    }

    /// Call `c` at `node` leaves its retry open (its retry answered, or
    /// the call ends).
    pub(in crate::simulation::timed) fn close_retry(&mut self, c: u32, node: usize) {
        let call = self.timed.calls.get_mut(c);
        if call.retry_open {
            call.retry_open = false;
            self.nodes[node].caller.retry_closed();
        }
    }
}

/// Where a call's answer goes, as its record says (read before the record
/// is released): its request, whether its caller gave up on it, its
/// caller's call, its field of a composite response (`NONE`: a try down
/// the path), and when it was sent.
#[derive(Debug, Clone, Copy)]
struct Up {
    slot: u32,
    detached: bool,
    parent: u32,
    field: u32,
    sent: Time,
}

impl Up {
    #[inline(always)]
    fn of(call: &Call) -> Up {
        Up {
            slot: call.slot,
            detached: call.detached,
            parent: call.parent,
            field: call.field,
            sent: call.sent,
        }
    }
}
