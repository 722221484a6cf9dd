//! [`Runner`]: the event loop of one run.
//!
//! The runner pops events in `(time, sequence)` order until the queue is
//! empty or the next event falls after the last tick: a source's tick lets
//! it send its requests ([`Sources`]), an `at` source sends one request and
//! schedules its next send, a sequential source starts its next operation,
//! and a retry event makes a service's next try. Every call a node sees is
//! counted here ([`Runner::observe`]): calls and distinct ids per tick, and
//! distinct ids per named window. What happens to a call is in `call` (down
//! the path and back up) and `answer` (a node's own answer).

use squall_lang::Schedule;

use crate::observe::accounting::End;
use crate::observe::windows::Windows;
use crate::observe::Observations;
use crate::outcome::Answer;
use crate::queue::EventQueue;
use crate::rng::Generator;
use crate::sending::{Senders, SendersRef};
use crate::server::replicas::CallNow;

use super::{
    clients::Clients, event::Event, keep::Keep, node_state::NodeState, operation::Operations,
    requests::Requests, source::Sources, tick::TickCounts, timed::Timed, SimError, Simulation,
    NEVER, NO_COLUMN,
};

impl<'m> Simulation<'m> {
    /// Runs the model to its last tick.
    pub fn run(&self) -> Result<Observations, SimError> {
        Runner::new(self).run()
    }

    /// Runs `senders` on the timed path's loop (`timed/flow/`), the
    /// Runner holding them beside its nodes: they start at time 0, in
    /// declaration order, before any other event (`sending/run.rs`).
    pub(crate) fn run_sending<'s>(&'s self, senders: &'s mut Senders<'m>) -> Result<(), SimError> {
        let mut r = Runner::new(self);
        senders.start(&mut r.timed.events)?;
        r.senders = SendersRef::new(senders);
        r.run_timed().map(drop)
    }
}

/// The state of a run in progress.
pub(super) struct Runner<'s, 'm> {
    pub(super) sim: &'s Simulation<'m>,
    pub(super) queue: EventQueue<Event>,
    pub(super) requests: Requests,
    pub(super) nodes: Vec<NodeState>,
    pub(super) obs: Observations,
    /// Arrival state of every source.
    pub(super) sources: Sources,
    /// Named generators, then the run's default one.
    pub(super) gens: Vec<Generator>,
    /// The running operation of each sequential source.
    pub(super) operations: Operations,
    next_id: u64,
    /// Named windows, for distinct ids per window.
    windows: Windows,
    /// Requests whose next try falls after the last tick.
    pub(super) past_end: u64,
    /// The state of a run in which calls take time (empty otherwise).
    pub(super) timed: Timed,
    /// The clients sources stand for, and their breakers.
    pub(super) clients: Clients,
    /// The senders and providers of a run of senders (`sending/`); none
    /// in a run of services.
    pub(super) senders: SendersRef<'s, 'm>,
    /// The zero-time walk hands every answer to `answer_seen`: the run
    /// keeps a call log, or counts each replica's answers per window
    /// (`SimulationBuilder::replica_windows`, on a model with `replicas`).
    pub(super) per_answer: bool,
    /// The tick and request slot of the call being made, for the
    /// balancers that count per window (`server/replicas.rs`; a retry
    /// sets it only where they do: `retry_sides`).
    pub(super) call_now: CallNow,
    /// Some path has a retry budget, a breaker or a throttle, or the run
    /// keeps `call_now`: [`Runner::retry_past_sides`].
    retry_sides: bool,
    /// The zero-time path's counts of the tick being run, added to the
    /// node series when the loop moves on (`tick.rs`).
    pub(super) now: TickCounts,
}

impl<'s, 'm> Runner<'s, 'm> {
    pub(super) fn new(sim: &'s Simulation<'m>) -> Self {
        let m = sim.model;
        let depth = sim.paths.iter().map(Vec::len).max().unwrap_or(1).max(1);
        let names: Vec<&str> = m.nodes.iter().map(|n| n.name.as_str()).collect();
        let mut timed = Timed::new(m, sim.seed, sim.force_timed, sim.observe);
        if sim.replica_queue {
            timed.keep_replica_queues(m);
        }
        let mut nodes: Vec<NodeState> = (0..m.nodes.len())
            .map(|i| NodeState::new(m, i, sim.scopes, timed.on, sim.seed))
            .collect();
        for (i, n) in nodes.iter().enumerate() {
            // The walk's plan reads the model as the node states are built.
            assert_eq!(n.caller.held(), crate::caller::CallerSide::holds(m, i));
        }
        let clients = Clients::new(m, sim.seed, &mut nodes);
        let tally = (sim.replica_windows || sim.replica_latency)
            && nodes.iter().any(|n| n.servers.replicated());
        let call_now = CallNow::default();
        if tally {
            let bounds: Vec<(u64, u64)> = m.windows.iter().map(|w| (w.from, w.to)).collect();
            for n in &mut nodes {
                n.servers
                    .tally_windows(&bounds, &call_now, sim.replica_latency);
            }
        }
        // A request's last tick at each node it counts distinct ids at.
        let columns = sim.column.iter().filter(|&&c| c != NO_COLUMN).count();
        let operations = Operations::new(&m.sources);
        let keep = Keep {
            breakers: nodes.iter().any(|n| n.caller.has_breaker()),
            budgets: nodes.iter().any(|n| n.caller.has_budget()),
            ids: sim.call_log.is_some(),
            clients: timed.on || m.sources.iter().any(|s| s.clients.is_some()),
            operations: operations.any(),
            ..Keep::default()
        }
        .retries(
            m.nodes
                .iter()
                .filter_map(|n| n.retry.as_ref())
                .chain(sim.kinds.iter().filter_map(|k| k.entry_retry.as_ref())),
        );
        let mut gens: Vec<Generator> = m
            .rngs
            .iter()
            .map(|r| Generator::from_spec(r, sim.seed))
            .collect();
        gens.push(Generator::default_for(sim.seed));
        let composite: Vec<bool> = m.nodes.iter().map(|n| n.composite.is_some()).collect();
        let mut obs = Observations::new(m.ticks, super::timed::slots(m), &names, m.windows.len())
            .with_composites(&composite)
            .with_sources(m.sources.len());
        obs.route_calls = m.nodes.iter().map(|n| vec![0; n.routes.len()]).collect();
        obs.distinct_at.clone_from(&sim.distinct_at);
        obs.ops = vec![Vec::new(); m.sources.len()];
        obs.traces = vec![Vec::new(); m.nodes.len()];
        if keep.breakers && sim.breaker_log {
            obs.breakers = nodes
                .iter()
                .map(|n| {
                    let (shared, total) = n.caller.breakers.counts();
                    crate::observe::BreakerLog {
                        shared: shared as u32,
                        total: total as u32,
                        changes: Vec::new(),
                    }
                })
                .collect();
        }
        obs.paths.clone_from(&sim.scope_names);
        obs.call_log = sim.call_log.map(crate::observe::CallLog::new);
        if let Some(log) = &mut obs.call_log {
            log.units_per_tick = timed.per_tick();
        }
        Runner {
            sim,
            queue: EventQueue::new(),
            requests: Requests::new(depth, columns, m.ticks, keep),
            nodes,
            obs,
            sources: Sources::new(m.sources.len(), sim.seed),
            gens,
            operations,
            next_id: 1,
            windows: Windows::new(m.windows.iter().map(|w| (w.from, w.to)).collect()),
            past_end: 0,
            timed,
            clients,
            senders: SendersRef::default(),
            per_answer: tally || sim.call_log.is_some(),
            call_now,
            retry_sides: tally || sim.steps.iter().flatten().any(|s| s.budget || s.guarded),
            now: TickCounts::new(m.nodes.len(), &sim.steps),
        }
    }

    pub(super) fn run(mut self) -> Result<Observations, SimError> {
        if self.timed.on {
            return self.run_timed();
        }
        let m = self.sim.model;
        if m.start <= m.ticks {
            for (s, spec) in m.sources.iter().enumerate() {
                let source = s as u32;
                match &spec.schedule {
                    Schedule::Rate => self.queue.schedule(m.start, Event::Source { source })?,
                    Schedule::At(times) => {
                        if let Some(&t) = times.first() {
                            self.queue.schedule(t, Event::At { source, index: 0 })?;
                        }
                    }
                    Schedule::Sequential(ops) => {
                        if !ops.is_empty() {
                            self.queue
                                .schedule(m.start, Event::Op { source, index: 0 })?;
                        }
                    }
                }
            }
        }
        // Events left in the work budget (`obs.events` from it at the
        // end), and a tick at a time: its counts flushed when it comes.
        let mut left = self.sim.max_events;
        let end = m.ticks.saturating_add(1);
        while let Some(t) = self.queue.next_time_before(end) {
            if t != self.now.tick {
                self.now.flush(&mut self.obs, &mut self.windows, t);
            }
            // Most events are retries: other events go out of line.
            loop {
                match self.queue.pop_now() {
                    Some(Event::Retry { slot, pos }) => {
                        left = left.checked_sub(1).ok_or_else(|| self.past_budget(t))?;
                        self.retry(t, slot, pos as usize)?;
                    }
                    Some(ev) => {
                        left = left.checked_sub(1).ok_or_else(|| self.past_budget(t))?;
                        self.source_event(t, ev)?;
                    }
                    None => break,
                }
            }
        }
        self.now.flush(&mut self.obs, &mut self.windows, NEVER);
        self.obs.events += self.sim.max_events - left;
        self.obs.accounting.in_flight = self.requests.live + self.past_end;
        super::node_state::record_servers(&self.nodes, &mut self.obs);
        // The walk asks no server side at a node that passes every call
        // (`plan.rs`), so picks no replica there: a node with one replica
        // received every call its series counts.
        let obs = &mut self.obs;
        for (i, r) in obs.replicas.iter_mut().enumerate() {
            if !self.nodes[i].servers.replicated() {
                r.calls = vec![obs.nodes[i].calls.iter().map(|&c| u64::from(c)).sum()];
            }
        }
        Ok(self.obs)
    }

    /// A source's event on the zero-time path (a rate source's tick, an
    /// `at` source's send, a sequential source's operation).
    #[inline(never)]
    fn source_event(&mut self, t: u64, ev: Event) -> Result<(), Box<SimError>> {
        let m = self.sim.model;
        match ev {
            Event::Source { source } => self.source_tick(t, source as usize)?,
            Event::At { source, index } => {
                let s = source as usize;
                self.enter(t, s, self.sim.kind_base[s])?;
                if let Schedule::At(times) = &m.sources[s].schedule {
                    if let Some(&next) = times.get(index as usize + 1) {
                        self.queue.schedule(
                            next,
                            Event::At {
                                source,
                                index: index + 1,
                            },
                        )?;
                    }
                }
            }
            Event::Op { source, index } => {
                let s = source as usize;
                self.operations.start(s, t);
                self.enter(t, s, self.sim.kind_base[s] + index)?;
            }
            Event::Retry { .. }
            | Event::Wake { .. }
            | Event::Think { .. }
            | Event::Workers { .. }
            | Event::Send(_) => {}
        }
        Ok(())
    }

    /// The run stops at tick `t` past its work budget: the culprit is
    /// found from the series, so the tick's counts go in first.
    #[cold]
    fn past_budget(&mut self, t: u64) -> SimError {
        self.now.flush(&mut self.obs, &mut self.windows, t);
        self.over_budget(t)
    }

    /// Why the run stopped at tick `t` past its work budget
    /// ([`crate::error::over_budget`]).
    pub(super) fn over_budget(&self, t: u64) -> SimError {
        crate::error::over_budget(self.sim.model, &self.obs, self.sim.max_events, t)
    }

    pub(super) fn source_tick(&mut self, t: u64, s: usize) -> Result<(), Box<SimError>> {
        let spec = &self.sim.model.sources[s];
        let n = self.sources.arrivals(s, spec, t);
        let kind = self.sim.kind_base[s];
        for _ in 0..n {
            self.enter(t, s, kind)?;
        }
        if t < self.sim.model.ticks {
            self.queue
                .schedule(t + 1, Event::Source { source: s as u32 })?;
        }
        Ok(())
    }

    /// A new request of `kind` from source `s` enters its entry node (on
    /// the zero-time path: its arrival counted in the tick's counts).
    pub(super) fn enter(&mut self, t: u64, s: usize, kind: u32) -> Result<(), Box<SimError>> {
        let slot = self.admit(s, kind);
        self.now.run.arrivals += 1;
        self.call_now.set((t, slot));
        self.walk_down(t, slot, s, 0)
    }

    /// A slot for a new request of `kind` from source `s`, counted as an
    /// arrival in series slot `i` (the timed path, which finds the slot
    /// of its tick with its [`SlotCursor`](crate::observe::slots::SlotCursor)).
    #[inline]
    pub(super) fn new_request_at(&mut self, i: usize, s: usize, kind: u32) -> u32 {
        let slot = self.admit(s, kind);
        self.obs.arrivals[i] += 1;
        slot
    }

    /// A slot for a new request of `kind` from source `s`, its client
    /// picked, counted as entered (both paths; each counts the arrival in
    /// its own series).
    #[inline(always)]
    fn admit(&mut self, s: usize, kind: u32) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        let slot = self.requests.alloc(id, s as u32, kind);
        // A run that keeps no client has none to pick (no source has
        // clients, and it sends nothing: `pick` would answer 0).
        if self.requests.keeps_clients() {
            let client = self.clients.pick(s);
            self.requests.set_client(slot, client);
        }
        self.obs.accounting.entered += 1;
        self.obs.peak_in_flight = self.obs.peak_in_flight.max(self.requests.live);
        slot
    }

    /// The request ends with `answer` at its source (the zero-time path:
    /// counted in the tick's counts). Inlined where the walk ends a
    /// request; a sequential source's operation is recorded out of line
    /// ([`Runner::operation_ended`]).
    #[inline(always)]
    pub(super) fn finish(
        &mut self,
        t: u64,
        slot: u32,
        answer: Answer,
    ) -> Result<(), Box<SimError>> {
        let source = self.requests.source[slot as usize] as usize;
        self.end(t, slot, source, answer)
    }

    /// [`Runner::finish`] where the request's `source` is at hand (the
    /// walk down looked it up).
    #[inline(always)]
    pub(super) fn end(
        &mut self,
        t: u64,
        slot: u32,
        source: usize,
        answer: Answer,
    ) -> Result<(), Box<SimError>> {
        debug_assert!(self.obs.slots.is_per_tick() && t == self.now.tick);
        debug_assert_eq!(source, self.requests.source[slot as usize] as usize);
        self.obs.source_end(source as u32, t as usize, answer);
        let (run, retried) = (&mut self.now.run, &self.requests.retried);
        self.obs.accounting.count_end(answer, |e| match e {
            End::Completed => run.completed += 1,
            End::FirstTry => {
                if !retried[slot as usize] {
                    run.first_try += 1;
                }
            }
            End::Dropped => run.dropped += 1,
        });
        // Only a sequential source's requests are operations.
        if self.operations.any() {
            let kind = self.requests.kind[slot as usize] as usize;
            if self.sim.kinds[kind].op.is_some() {
                self.operation_ended(t, slot, source, kind, answer)?;
            }
        }
        self.requests.release(slot);
        Ok(())
    }

    /// The request in `slot`, an operation of the sequential `source` of
    /// `kind`, ended with `answer` at `t`: its record is kept and the
    /// source's next operation scheduled.
    #[inline(never)]
    fn operation_ended(
        &mut self,
        t: u64,
        slot: u32,
        source: usize,
        kind: usize,
        answer: Answer,
    ) -> Result<(), Box<SimError>> {
        let k = &self.sim.kinds[kind];
        let entry = self.sim.paths[source][0];
        let tries = self.sim.model.nodes[entry]
            .downstream
            .map(|_| self.requests.tries[slot as usize * self.requests.depth]);
        let spec = &self.sim.model.sources[source];
        if let Some((record, next)) = self.operations.ended(source, spec, k, t, tries, answer) {
            self.obs.ops[source].push(record);
            if let Some(index) = next {
                let source = source as u32;
                self.queue.schedule(t, Event::Op { source, index })?;
            }
        }
        Ok(())
    }

    /// Counts the end of the request in `slot` in series slot `ti` (the
    /// timed path, which finds it with its
    /// [`SlotCursor`](crate::observe::slots::SlotCursor), as for
    /// `NodeSeries::count_answer`; the zero-time path counts it in the
    /// tick's counts: [`Runner::finish`]).
    #[inline(always)]
    pub(super) fn tally_end_at(&mut self, ti: usize, slot: u32, answer: Answer) {
        self.obs
            .source_end(self.requests.source[slot as usize], ti, answer);
        let (obs, retried) = (&mut self.obs, &self.requests.retried);
        obs.accounting.count_end(answer, |e| match e {
            End::Completed => obs.completed[ti] += 1,
            End::FirstTry => {
                if !retried[slot as usize] {
                    obs.first_try[ti] += 1;
                }
            }
            End::Dropped => obs.dropped[ti] += 1,
        });
    }

    /// The service at `pos` of the request in `slot` makes its next try:
    /// at once, unless `retry_sides`.
    pub(super) fn retry(&mut self, t: u64, slot: u32, pos: usize) -> Result<(), Box<SimError>> {
        let depth = self.requests.depth;
        self.requests.tries[slot as usize * depth + pos] += 1;
        if self.retry_sides {
            return self.retry_past_sides(t, slot, pos);
        }
        self.arrive(t, slot, pos + 1)
    }

    /// [`Runner::retry`]'s try, its count made, where a path has a retry
    /// budget, a breaker or a throttle (the budget hears of it, and the
    /// breaker or throttle may block it) or the run keeps `call_now`.
    #[inline(never)]
    fn retry_past_sides(&mut self, t: u64, slot: u32, pos: usize) -> Result<(), Box<SimError>> {
        let source = self.requests.source[slot as usize] as usize;
        let step = self.sim.steps[source][pos];
        let node = step.node as usize;
        if step.budget {
            self.nodes[node].caller.retry_closed();
        }
        self.call_now.set((t, slot));
        // The service at `pos` sends its next try (after its breaker or
        // throttle agrees).
        if step.guarded {
            if let Some(blocked) = self.admit_guarded(t, slot, pos, node) {
                return self.deliver(t, slot, pos as isize, blocked, false);
            }
        }
        self.arrive(t, slot, pos + 1)
    }

    /// Counts a call at `node` from the request in `slot` on the
    /// zero-time path, whose series are per tick (a model that takes no
    /// time is counted per tick, `timed::slots`): slot `t` is tick `t`,
    /// and a tick the request was not seen in is a slot it was not.
    /// Distinct ids only where the run counts them: `column`, the node's
    /// column of last-seen ticks, or [`NO_COLUMN`] (a run that takes
    /// time, [`Runner::observe_at`], counts them at every node, its
    /// column).
    #[inline(always)]
    pub(super) fn observe(&mut self, t: u64, slot: u32, node: usize, column: u32) {
        debug_assert!(self.obs.slots.is_per_tick());
        debug_assert_eq!(t, self.now.tick);
        let counts = &mut self.now.nodes[node];
        counts.calls += 1;
        if column == NO_COLUMN {
            return;
        }
        let k = slot as usize * self.requests.columns + column as usize;
        let last = self.requests.last_seen.replace_short(k, t, self.now.short);
        if last != t {
            counts.unique += 1;
            // As `window_new`, into the tick's counts (`tick.rs`).
            let (seen, n) = (last.wrapping_add(1), self.now.nodes.len());
            for (j, &(_, from)) in self.now.open.iter().enumerate() {
                if seen > from {
                    break;
                }
                self.now.window_new[j * n + node] += 1;
            }
        }
    }

    /// [`Runner::observe`] with the slot `ti` of tick `t` already found
    /// (the timed path finds it with its [`SlotCursor`](crate::observe::slots::SlotCursor)).
    #[inline(always)]
    pub(super) fn observe_at(&mut self, ti: usize, t: u64, slot: u32, node: usize) {
        let series = &mut self.obs.nodes[node];
        series.calls[ti] += 1;
        // Distinct requests, at the nodes the run counts them at.
        let column = self.sim.column[node];
        if column == NO_COLUMN {
            return;
        }
        let k = slot as usize * self.requests.columns + column as usize;
        let last = self.requests.last_seen.replace(k, t);
        if last != t {
            // Per tick, a new tick is a new slot; per bin, only a bin the
            // request has not been seen in yet.
            if self.obs.slots.is_per_tick() || last == NEVER || self.obs.slots.index(last) != ti {
                series.unique[ti] += 1;
            }
            self.window_new(t, node, last);
        }
    }

    /// A call at `node` at tick `t` from a request last seen there at
    /// `last` (not `t`; [`NEVER`]: never) counts for every window it is
    /// new to: those it was last seen before the beginning of, or never
    /// (NEVER + 1 wraps to 0). The windows come latest first.
    #[inline(always)]
    fn window_new(&mut self, t: u64, node: usize, last: u64) {
        let seen = last.wrapping_add(1);
        for &(w, from) in self.windows.open_at(t) {
            if seen > from {
                break;
            }
            self.obs.window_unique[w][node] += 1;
        }
    }

    /// What a node's answer to the call at `pos` of the request in `slot`
    /// adds beyond its series on the zero-time path, when the run keeps
    /// any of it (`per_answer`): the call log's row, and the count of the
    /// replica the call was held at (`own`: the node's own answer, not
    /// one from below). A run with neither pays the one test the call log
    /// always cost.
    #[inline(never)]
    pub(super) fn answer_seen(
        &mut self,
        t: u64,
        slot: u32,
        pos: usize,
        node: usize,
        a: (Answer, bool),
    ) {
        let (answer, own) = a;
        if self.obs.call_log.is_some() {
            let try_no = self.try_at(slot, pos);
            self.log_call(t, slot, node, try_no, answer, 0);
        }
        self.nodes[node].servers.answered_held(t, slot, answer, own);
    }

    /// Which try of its caller the call at path position `pos` is (the
    /// entry call is try 1).
    fn try_at(&self, slot: u32, pos: usize) -> u32 {
        match pos.checked_sub(1) {
            None => 1,
            Some(p) => self.requests.tries[slot as usize * self.requests.depth + p],
        }
    }
}
