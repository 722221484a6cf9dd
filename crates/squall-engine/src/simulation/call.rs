//! A call down a request's path and its answer back up.
//!
//! Calls take no time: a call made in tick `t` is answered in tick `t`.
//! [`Runner::arrive`] walks down the path until a node answers by itself
//! ([`Runner::own_answer`]: the server side's answer), opening each
//! service's retry loop and asking its breaker or throttle
//! ([`Runner::admit_guarded`]) on the way; each path position's step
//! (`plan.rs`) says which of these its node holds, so a plain node pays
//! one test for each it lacks, and a stretch of nodes that only count
//! the call (`Step::bare`) is passed at once. [`Runner::deliver`]
//! carries the answer back up: each service with a breaker records it
//! (one [`TraceRow`]), and
//! the first service whose retry policy allows another try
//! ([`retry::next_wait`]) schedules it and the request waits. When the
//! answer reaches the source, [`Runner::finish`] ends the request (and
//! records a sequential source's operation). A success answered below
//! nodes that only count it (no breaker, throttle, budget or gate above:
//! the step's `quiet_above`) is counted at them (once, in the tick's
//! counts: `tick.rs`) and ends the request
//! without the walk up, unless the run sees every answer (`per_answer`).

use crate::caller::{unbudgeted, Decision, NO_GRANT};
use crate::observe::trace::{self, TraceRow};
use crate::observe::CallRow;
use crate::outcome::{Answer, FailKind, Failure};
use crate::policy::breaker::{counts_against_dependency, Admission, State};
use crate::policy::retry::{self, RetryLoop};
use crate::server::composite::Assembly;
use crate::server::node::Own;

use super::clients::Part;
use super::{event::Event, runner::Runner, SimError};

impl Runner<'_, '_> {
    /// A call arrives at path position `pos`: walk down until some node
    /// answers by itself, then carry the answer up.
    #[inline(always)]
    pub(super) fn arrive(&mut self, t: u64, slot: u32, pos: usize) -> Result<(), Box<SimError>> {
        let source = self.requests.source[slot as usize] as usize;
        self.walk_down(t, slot, source, pos)
    }

    /// [`Runner::arrive`] with the request's `source` at hand (a request
    /// that enters).
    #[inline(never)]
    pub(super) fn walk_down(
        &mut self,
        t: u64,
        slot: u32,
        source: usize,
        mut pos: usize,
    ) -> Result<(), Box<SimError>> {
        debug_assert_eq!(source, self.requests.source[slot as usize] as usize);
        let depth = self.requests.depth;
        // The path's steps borrow the simulation, not `self`: looked up
        // once, not at every node the walk passes (the calls below take
        // `&mut self`); each step says what its node holds. A step is
        // read where the walk asks it, not copied: a copy put each of its
        // flags in a stack slot of its own (storm-1 paid 29 M
        // instructions for it).
        let sim = self.sim;
        let steps = &sim.steps[source][..];
        loop {
            let mut step = &steps[pos];
            if step.bare != 0 {
                // A stretch of bare positions (`plan.rs`): its calls are
                // counted once for it, and its retry loops opened. The
                // stretch ends above a position that is not bare.
                let n = step.bare as usize;
                self.now.positions[step.at as usize].passed += 1;
                self.requests.open_loops(slot as usize * depth + pos, n, t);
                pos += n;
                step = &steps[pos];
            }
            let node = step.node as usize;
            self.observe(t, slot, node, step.column);
            // A node that passes every call (`plan.rs`) is not asked: its
            // own answer would be to pass it on (and its one replica's
            // calls are its series', `Runner::run`).
            let own = if step.passes {
                None
            } else {
                self.own_answer(t, slot, node, step.leaf, 0)
            };
            if let Some(answer) = own {
                self.count_answer(t, node, answer);
                if self.per_answer {
                    self.answer_seen(t, slot, pos, node, (answer, true));
                } else if answer == Answer::Ok && step.quiet_above {
                    // All `deliver` would do above (`plan.rs`): a success
                    // at each node there, counted once for them (`tick.rs`).
                    self.now.positions[step.at as usize].quiet_ok += 1;
                    return self.end(t, slot, source, Answer::Ok);
                }
                return self.deliver(t, slot, pos as isize - 1, answer, true);
            }
            // The node's first try at its downstream.
            let k = slot as usize * depth + pos;
            self.requests.open_loop(k, t);
            if step.budget {
                self.open_budget(t, slot, node, k);
            }
            if step.guarded {
                if let Some(blocked) = self.admit_guarded(t, slot, pos, node) {
                    return self.deliver(t, slot, pos as isize, blocked, false);
                }
            }
            pos += 1;
        }
    }

    /// The request in `slot` opens its retry loop (`k` in the slab) at
    /// `node`, which has a budget: out of line, as `heard_guarded`.
    #[inline(never)]
    fn open_budget(&mut self, t: u64, slot: u32, node: usize, k: usize) {
        self.first_try(t, slot, node);
        self.requests.grant[k] = NO_GRANT;
    }

    /// The answer a node gives by itself, without calling downstream
    /// ([`ServerSide::own_answer`](crate::server::node::ServerSide::own_answer)):
    /// a refusal for capacity is counted, and a composite response is
    /// assembled from its fields. `field`: the composite field the call
    /// fetches (0 otherwise). Inlined into the walk down the path, as
    /// the server side's method is; a composite response's assembly stays
    /// out of line (on d829814 the whole answer was one out-of-line
    /// function and the storm benchmark paid 12 % more instructions).
    #[inline(always)]
    fn own_answer(
        &mut self,
        t: u64,
        slot: u32,
        node: usize,
        leaf: bool,
        field: usize,
    ) -> Option<Answer> {
        let (sim, requests, now) = (self.sim, &self.requests, &mut self.now);
        let request = || &sim.kinds[requests.kind[slot as usize] as usize].request;
        // In the tick's counts, as `observe`.
        let count = || now.nodes[node].refused += 1;
        let (spec, faults) = (|| &sim.model.nodes[node], &sim.model.faults);
        let servers = &mut self.nodes[node].servers;
        let r = servers.pick();
        match servers
            .at(r)
            .own_answer(spec, faults, t, field, leaf, request, count)
        {
            Own::Pass => None,
            Own::Answer(answer) => Some(answer),
            Own::Assemble => Some(self.assemble(t, slot, node)),
        }
    }

    /// A composite response: every field fetched from its node in this
    /// tick (counted and logged there), added under the policy with the
    /// ledger's fallback ([`Assembly`]), then answered or dropped.
    #[inline(never)]
    fn assemble(&mut self, t: u64, slot: u32, node: usize) -> Answer {
        let sim = self.sim;
        let Some(spec) = &sim.model.nodes[node].composite else {
            return Answer::Ok;
        };
        let mut assembly = Assembly::default();
        for (i, f) in spec.fields.iter().enumerate() {
            self.observe(t, slot, f.source, sim.column[f.source]);
            let answer = self
                .own_answer(t, slot, f.source, true, i)
                .unwrap_or(Answer::Ok);
            self.count_answer(t, f.source, answer);
            self.nodes[f.source]
                .servers
                .answered_held(t, slot, answer, true);
            // Logged at the start of the tick the fetch is made in.
            let at = t.saturating_mul(self.timed.per_tick());
            self.log_call(at, slot, f.source, 1, answer, 0);
            let ledger = self.nodes[node].servers.ledger_mut();
            assembly.add(spec, i, answer, t, ledger);
        }
        let i = self.obs.slots.index(t);
        assembly.finish(spec, i, self.obs.nodes[node].composite.as_mut())
    }

    /// Which of `node`'s breakers guards the request in `slot`, if any
    /// (its client's own at the entry node, else the node's): both paths
    /// ask here.
    #[inline]
    pub(super) fn breaker_scope(&self, slot: u32, node: usize) -> Option<usize> {
        if self.nodes[node].caller.breakers.is_empty() {
            return None;
        }
        self.guarding_breaker(slot, node)
    }

    /// [`Self::breaker_scope`] at a node with breakers: out of line, so a
    /// node without one pays one test.
    #[inline(never)]
    fn guarding_breaker(&self, slot: u32, node: usize) -> Option<usize> {
        let b = &self.nodes[node].caller.breakers;
        let (shared, total) = b.counts();
        let mut client = None;
        if total > shared {
            let source = self.requests.source[slot as usize] as usize;
            if self.sim.model.sources[source].entry == node {
                client = self
                    .clients
                    .part(Part::Breaker, source, self.requests.client(slot));
            }
        }
        b.guarding(client, || self.path_scope(slot))
    }

    /// The request path of the request in `slot`, as an index into the
    /// model's distinct paths.
    #[inline]
    fn path_scope(&self, slot: u32) -> usize {
        self.sim.kinds[self.requests.kind[slot as usize] as usize].scope
    }

    /// Which of `node`'s `part`s the request in `slot` asks: its
    /// client's own at its source's entry node (an index among the node's
    /// per-client parts), `None` for the node's own. Both paths ask here.
    pub(super) fn client_part(&self, part: Part, slot: u32, node: usize) -> Option<usize> {
        let source = self.requests.source[slot as usize] as usize;
        let k = self.requests.client(slot);
        (self.sim.model.sources[source].entry == node)
            .then(|| self.clients.part(part, source, k))?
    }

    /// The throttle of `node` decides on a try of the request in `slot` at
    /// `t` (both paths): `Some(answer)` when it rejects the try locally.
    pub(super) fn throttle_try(&mut self, t: u64, slot: u32, node: usize) -> Option<Answer> {
        let (client, i) = (
            self.client_part(Part::Throttle, slot, node),
            self.obs.slots.index(t),
        );
        let caller = &mut self.nodes[node].caller;
        caller
            .throttles
            .admit(client, t, &mut self.obs.nodes[node], i)
    }

    /// The throttle of `node` hears `answer` to a try it let go (both paths).
    pub(super) fn throttle_heard(&mut self, t: u64, slot: u32, node: usize, answer: Answer) {
        let client = self.client_part(Part::Throttle, slot, node);
        self.nodes[node]
            .caller
            .throttles
            .answered(client, t, answer);
    }

    /// The path a `per path` breaker of `node` guards for this request, as
    /// an index into the model's distinct paths; `None` for a breaker over
    /// all calls or for one client.
    pub(super) fn scope_of(&self, slot: u32, node: usize) -> Option<usize> {
        let b = self.breaker_scope(slot, node)?;
        self.nodes[node]
            .caller
            .breakers
            .path_of(b, self.path_scope(slot))
    }

    /// The request in `slot` opens its retry loop at `node` (both paths):
    /// the budget it spends hears of it.
    #[inline]
    pub(super) fn first_try(&mut self, tick: u64, slot: u32, node: usize) {
        if !self.nodes[node].caller.has_budget() {
            return;
        }
        let client = self.client_part(Part::Budget, slot, node);
        self.nodes[node].caller.first_try(tick, client);
    }

    /// Breaker `scope` of `node` decides on a try at `tick` (both paths).
    #[inline]
    pub(super) fn breaker_admit(&mut self, node: usize, scope: usize, tick: u64) -> Admission {
        let log = self.obs.breakers.get_mut(node);
        self.nodes[node].caller.breakers.admit(scope, tick, log)
    }

    /// Breaker `scope` of `node` hears the answer (`failed` or not) to a
    /// try it let go in `epoch`, which took `duration` ticks (both paths;
    /// 0 on the zero-time path); the state after.
    #[inline]
    pub(super) fn breaker_record(
        &mut self,
        node: usize,
        scope: usize,
        failed: bool,
        duration: u64,
        tick: u64,
        epoch: u64,
    ) -> State {
        let log = self.obs.breakers.get_mut(node);
        self.nodes[node]
            .caller
            .breakers
            .answered(scope, failed, duration, tick, epoch, log)
    }

    /// The breaker of `node` refused a try of the request in `slot` at
    /// `tick`, in state `before` (both paths): counted as blocked, and a
    /// row of its trace; the answer the try fails with.
    pub(super) fn refused(&mut self, tick: u64, slot: u32, node: usize, a: Admission) -> Answer {
        let i = self.obs.slots.index(tick);
        self.obs.nodes[node].blocked[i] += 1;
        let answer = Answer::Fail(Failure {
            kind: FailKind::CircuitOpen {
                remaining: a.remaining,
            },
            not_before: None,
        });
        let scope = self.scope_of(slot, node);
        self.trace(node, || TraceRow {
            time: tick,
            sent: false,
            scope,
            before: a.before,
            answer,
            after: a.before,
        });
        answer
    }

    /// The decision after a failed try of the request in `slot` at `node`
    /// under `policy` (both paths): the node's caller side, with the
    /// budget the request spends; a refusal is counted (the caller counts
    /// a retry). `budget`: the node has a retry budget or gate (its caller
    /// side's `has_budget`); a node without one is not reached.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn decide(
        &mut self,
        t: u64,
        slot: u32,
        (node, budget): (usize, bool),
        f: Failure,
        policy: &squall_lang::RetrySpec,
        request: &squall_lang::RequestSpec,
        state: &mut RetryLoop,
    ) -> Decision {
        if !budget {
            return unbudgeted(policy, request, f, t, state, &mut self.gens);
        }
        let client = self.client_part(Part::Budget, slot, node);
        let budgets = &mut self.nodes[node].caller.budgets;
        let d = budgets.next_try(policy, request, f, t, state, &mut self.gens, client);
        if d.refused {
            let i = self.obs.slots.index(t);
            self.obs.nodes[node].retries_refused[i] += 1;
        }
        d
    }

    /// Asks the throttle and the breaker of the service `node` at `pos`,
    /// a node with either (its step says so; the language gives a node
    /// one or the other, and a model built by hand with both asks the
    /// throttle first); `Some(answer)` when the try fails fast.
    #[inline(never)]
    pub(super) fn admit_guarded(
        &mut self,
        t: u64,
        slot: u32,
        pos: usize,
        node: usize,
    ) -> Option<Answer> {
        if self.nodes[node].caller.throttles.is_some() {
            if let Some(rejected) = self.throttle_try(t, slot, node) {
                return Some(rejected);
            }
        }
        let scope = self.breaker_scope(slot, node)?;
        let a = self.breaker_admit(node, scope, t);
        let k = slot as usize * self.requests.depth + pos;
        self.requests.sent_at[k] = t;
        self.requests.admitted[k] = a.before;
        self.requests.admitted_epoch[k] = a.epoch;
        if a.sent {
            return None;
        }
        Some(self.refused(t, slot, node, a))
    }

    /// Keeps a row of `node`'s breaker trace, built only when there is
    /// room for it.
    #[inline]
    pub(super) fn trace(&mut self, node: usize, row: impl FnOnce() -> TraceRow) {
        trace::keep(
            &mut self.obs.traces[node],
            &mut self.obs.trace_dropped[node],
            row,
        );
    }

    /// Logs an answered call when the run keeps a call log: `time` and
    /// `latency` in engine units, `try_no` the caller's try.
    #[inline]
    pub(super) fn log_call(
        &mut self,
        time: u64,
        slot: u32,
        node: usize,
        try_no: u32,
        answer: Answer,
        latency: u64,
    ) {
        if let Some(log) = &mut self.obs.call_log {
            log.push(CallRow {
                time,
                request: self.requests.id[slot as usize],
                node: node as u32,
                try_no,
                outcome: answer,
                latency,
            });
        }
    }

    /// Counts `node`'s answer at tick `t` on the zero-time path, whose
    /// series are per tick (as `observe`'s): no last success per bin is
    /// kept there (`last_ok` is empty). Inlined: it runs for every answer,
    /// and a call to it cost more than its work (issue 18's instruction
    /// counts).
    #[inline(always)]
    pub(super) fn count_answer(&mut self, t: u64, node: usize, answer: Answer) {
        debug_assert!(self.obs.slots.is_per_tick() && t == self.now.tick);
        let c = &mut self.now.nodes[node];
        match answer {
            Answer::Ok => c.ok += 1,
            Answer::Fail(_) => c.failed += 1,
        }
    }

    /// Carries `answer` up: it arrives at the service at position `q` from
    /// its downstream (`sent`: the try really went out). A service with
    /// tries left schedules a retry; otherwise it answers its own caller.
    pub(super) fn deliver(
        &mut self,
        t: u64,
        slot: u32,
        mut q: isize,
        answer: Answer,
        mut sent: bool,
    ) -> Result<(), Box<SimError>> {
        let source = self.requests.source[slot as usize] as usize;
        let depth = self.requests.depth;
        let kind = self.requests.kind[slot as usize] as usize;
        // As in `arrive`: the path's steps looked up once.
        let sim = self.sim;
        let steps = &sim.steps[source][..];
        let spec = &sim.kinds[kind];
        while q >= 0 {
            let pos = q as usize;
            let step = steps[pos];
            let node = step.node as usize;
            let k = slot as usize * depth + pos;
            if sent && step.guarded {
                self.heard_guarded(t, slot, node, k, answer);
            }
            if let Answer::Fail(f) = &answer {
                let policy = if pos == 0 {
                    spec.entry_retry.as_ref()
                } else {
                    step.retry
                };
                if let Some(policy) = policy {
                    let request = &spec.request;
                    if let Some(wait) =
                        self.retry_wait(t, slot, k, (node, step.budget), f, policy, request)
                    {
                        self.requests.retried[slot as usize] = true;
                        let at = t.saturating_add(wait);
                        if pos == 0 {
                            self.operations.wait(source, spec, wait);
                        }
                        if at <= self.sim.model.ticks {
                            self.queue.schedule(
                                at,
                                Event::Retry {
                                    slot,
                                    pos: pos as u32,
                                },
                            )?;
                        } else {
                            // The next try falls after the run: the request is
                            // still in flight at the end.
                            self.requests.release(slot);
                            self.past_end += 1;
                        }
                        return Ok(());
                    }
                }
            }
            self.count_answer(t, node, answer);
            if self.per_answer {
                self.answer_seen(t, slot, pos, node, (answer, false));
            }
            if step.budget {
                self.budget_leave(slot, pos, node, answer);
            }
            q -= 1;
            sent = true;
        }
        self.finish(t, slot, answer)
    }

    /// The throttle or breaker of `node` hears `answer` to the try it let
    /// go of the request in `slot` (`k`: its index in the slab); out of
    /// line, so the walk up a path of plain nodes keeps its registers.
    #[inline(never)]
    fn heard_guarded(&mut self, t: u64, slot: u32, node: usize, k: usize, answer: Answer) {
        if self.nodes[node].caller.throttles.is_some() {
            self.throttle_heard(t, slot, node, answer);
        }
        if let Some(scope) = self.breaker_scope(slot, node) {
            let epoch = self.requests.admitted_epoch[k];
            let failed = counts_against_dependency(answer);
            // A call here takes no time: duration 0.
            let after = self.breaker_record(node, scope, failed, 0, t, epoch);
            let scope = self.scope_of(slot, node);
            let (time, before) = (self.requests.sent_at[k], self.requests.admitted[k]);
            self.trace(node, || TraceRow {
                time,
                sent: true,
                scope,
                before,
                answer,
                after,
            });
        }
    }

    /// The wait before the next try of the service `node` (its retry loop
    /// at `k` in the slab, as the walk found it) under `policy`, or `None`
    /// when it makes no more tries (the caller side's [`Decision`] on the
    /// request's retry loop; a grant is kept for
    /// [`Self::budget_leave`]). A node without a budget or gate
    /// ([`unbudgeted`]) whose loop keeps only its tries (nothing for
    /// `Requests::save_loop` to keep), under a policy the retry rule
    /// takes its short way with, asks that way alone ([`retry::fixed_wait`]).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn retry_wait(
        &mut self,
        t: u64,
        slot: u32,
        k: usize,
        (node, budget): (usize, bool),
        f: &Failure,
        policy: &squall_lang::RetrySpec,
        request: &squall_lang::RequestSpec,
    ) -> Option<u64> {
        let plain = !budget && !self.requests.keeps_loop_extras();
        let wait = match retry::fixed_short_way(policy) {
            Some(wait) if plain => {
                let tries = self.requests.tries[k];
                retry::fixed_wait(policy, request, *f, t, tries, wait)
            }
            _ => self.kept_wait(t, slot, (k, node, budget), f, policy, request),
        };
        if wait.is_some() {
            // In the tick's counts (`tick.rs`), as `count_answer`.
            self.now.nodes[node].retries += 1;
        }
        wait
    }

    /// [`Self::retry_wait`] the general way: out of line.
    #[inline(never)]
    fn kept_wait(
        &mut self,
        t: u64,
        slot: u32,
        (k, node, budget): (usize, usize, bool),
        f: &Failure,
        policy: &squall_lang::RetrySpec,
        request: &squall_lang::RequestSpec,
    ) -> Option<u64> {
        let mut state = self.requests.retry_loop(k);
        let d = self.decide(t, slot, (node, budget), *f, policy, request, &mut state);
        self.requests.save_loop(k, &state);
        if d.grant != NO_GRANT {
            self.requests.grant[k] = d.grant;
        }
        d.wait
    }

    /// The request leaves a service with a budget with `answer`: a success
    /// is credited (gRPC's ratio, AWS's refund of the last retry's cost).
    #[inline(never)]
    fn budget_leave(&mut self, slot: u32, pos: usize, node: usize, answer: Answer) {
        let k = slot as usize * self.requests.depth + pos;
        let g = self.requests.grant[k];
        let own = self.client_part(Part::Budget, slot, node);
        self.nodes[node].caller.leave(true, Some(answer), g, own);
    }
}
