//! A call at its node on a run that takes time: the event loop's side of
//! the node's [`ServerSide`]. The server side decides (error shares and
//! faults in force, capacity, the rate limit, workers and queue, service
//! time); these methods of [`Timed`] keep what it decided (the call's
//! phase, the node's levels and counts) and schedule the events that
//! follow (a token's wait, a queue timeout, the end of service, a queued
//! call's start), check the deadline the node knows, and return a
//! [`Step`]: what the event loop (`flow/`) does next with the call.
//! What happens after the service (tries downstream, the answer back up)
//! is the loop's. The rules are in the module doc of [`super`].

use squall_lang::{FaultSpec, NodeSpec, RequestSpec};

use crate::observe::Observations;
use crate::outcome::{fail, Answer, FailKind};
use crate::server::node::{Arrival, Join, ServerSide, REFUSED};
use crate::server::replicas::Replicas;
use crate::time::Time;

use super::super::{event::Event, SimError};
use super::calls::{Phase, NONE};
use super::recorder::Count;
use super::Timed;

/// What the event loop does next with a call after the server's stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// Nothing now: it waits for an event (a token, a worker, the end of
    /// its service), or it is a work queue's message.
    Wait,
    /// It is past the rate limit: on to the workers ([`Timed::join`]).
    Limit,
    /// Its own service is over at once: on to its tries downstream, its
    /// fields, or its answer.
    Proceed,
    /// It answers this at once.
    Answer(Answer),
}

impl Step {
    /// What follows [`Timed::start_service`]: on at once when it says so,
    /// else a wait for the end of the service.
    #[inline]
    pub(super) fn after_service(at_once: bool) -> Step {
        if at_once {
            Step::Proceed
        } else {
            Step::Wait
        }
    }
}

impl Timed {
    /// Call `c` reaches `node` (its replica `r` of `servers`) at `now`: a work queue takes
    /// it as a message; past the deadline the node knows it fails;
    /// otherwise [`ServerSide::arrive`] decides (a refusal for capacity is
    /// counted in `obs`).
    #[inline]
    pub(super) fn arrive(
        &mut self,
        now: Time,
        c: u32,
        node: usize,
        (servers, r): (&mut Replicas, usize),
        faults: &[FaultSpec],
        obs: &mut Observations,
    ) -> Result<Step, Box<SimError>> {
        if self.is_work_queue(node) {
            self.enqueue_message(now, c, node)?;
            return Ok(Step::Wait);
        }
        let deadline = self.known_deadline(c);
        if deadline.is_some_and(|d| now >= d) {
            return Ok(Step::Answer(fail(FailKind::Deadline)));
        }
        let field = self.calls.get(c).field;
        let field = if field == NONE { 0 } else { field as usize };
        Ok(
            match servers
                .at(r)
                .arrive(faults, now, self.res, field, deadline, self.key(c))
            {
                Arrival::Pass => Step::Limit,
                Arrival::Refused(a) => Step::Answer(a),
                Arrival::NoCapacity => {
                    let t = self.tick_of(now);
                    obs.nodes[node].refused[obs.slots.index(t)] += 1;
                    servers.refused_at(r, t);
                    Step::Answer(REFUSED)
                }
                Arrival::Throttled(a) => {
                    self.recorder.count(node, Count::Throttled, now, 1);
                    Step::Answer(a)
                }
                Arrival::Wait(at) => {
                    let gen = self.calls.enter(c, Phase::Token);
                    self.events
                        .schedule(at.units(), Event::Wake { call: c, gen })?;
                    Step::Wait
                }
            },
        )
    }

    /// Call `c` is past the rate limit of its node (`spec`, its `server`)
    /// at `now`: at the bottom of a path its scripted answer to `request`
    /// is decided now (a composite response is assembled from its fields
    /// after the node's own work, not here), and it meets the workers
    /// ([`ServerSide::join`]): served, queued until its queue timeout or
    /// the deadline, or refused as overflow.
    #[inline]
    pub(super) fn join<'r>(
        &mut self,
        now: Time,
        c: u32,
        spec: &NodeSpec,
        request: impl FnOnce() -> &'r RequestSpec,
        server: &mut ServerSide,
        faults: &[FaultSpec],
    ) -> Result<Step, Box<SimError>> {
        let (node, _, leaf) = self.node_of(c);
        if leaf && spec.composite.is_none() {
            let tick = self.tick_of(now);
            self.calls.get_mut(c).answer = server.answer(&spec.routes, request(), tick);
        }
        let deadline = self.known_deadline(c);
        let gen = self.calls.enter(c, Phase::Queued);
        let calls = &self.calls;
        let join = server.join(now, (c, gen), || calls.get(c).source as usize);
        if join != Join::Overflow {
            let queued = matches!(join, Join::Queued { .. });
            self.recorder.admitted(node, now, queued);
        }
        match join {
            Join::Serve => {
                self.worker_taken(now, c, node);
                Ok(Step::after_service(
                    self.start_service(now, c, server, faults)?,
                ))
            }
            Join::Queued { until } => {
                self.queue_change(node, c, now, 1);
                // One wake: the queue timeout or the deadline, whichever
                // comes first.
                self.wake_at_first(c, gen, until, deadline)?;
                Ok(Step::Wait)
            }
            Join::Overflow => {
                self.recorder.count(node, Count::Overflow, now, 1);
                Ok(Step::Answer(fail(FailKind::Overflow)))
            }
        }
    }

    /// Schedules an [`Event::Workers`] at each tick at which a fault
    /// changes a node's workers (`changes`: the node's
    /// [`ServerSide::worker_changes`]), so that the fault takes effect at
    /// those moments and not at the node's next arrival.
    pub(super) fn schedule_worker_faults(
        &mut self,
        faults: &[FaultSpec],
        changes: impl Fn(&FaultSpec) -> Option<[u64; 2]>,
    ) -> Result<(), Box<SimError>> {
        for f in faults {
            let Some(ticks) = changes(f) else {
                continue;
            };
            for tick in ticks {
                let at = self.res.at_tick(tick);
                if at < self.end {
                    let node = f.node as u32;
                    self.events.schedule(at.units(), Event::Workers { node })?;
                }
            }
        }
        Ok(())
    }

    /// A `workers` fault on `node` starts or ends at `now`: its `server`
    /// sets the workers in force, and queued calls take the workers a
    /// raise frees.
    pub(super) fn apply_worker_faults(
        &mut self,
        now: Time,
        node: usize,
        server: &mut ServerSide,
        faults: &[FaultSpec],
    ) -> Result<(), Box<SimError>> {
        server.set_workers(faults, self.tick_of(now));
        loop {
            let calls = &self.calls;
            let next = server.take_free(now, |(q, g)| calls.current(q, g));
            if server.sheds() {
                self.answer_shed(now, node, server)?;
            }
            let Some((q, _)) = next else {
                return Ok(());
            };
            self.hand_worker(now, q, node)?;
        }
    }

    /// The calls `node`'s discipline shed at `now` (CoDel, when a worker
    /// took them) leave its queue; each answers as a queue timeout at a
    /// wake at `now` (`Phase::Shed`), in the order shed. Out of line: a
    /// node whose discipline sheds nothing never calls it.
    #[cold]
    #[inline(never)]
    fn answer_shed(
        &mut self,
        now: Time,
        node: usize,
        server: &mut ServerSide,
    ) -> Result<(), Box<SimError>> {
        while let Some((q, _)) = server.take_shed() {
            self.queue_change(node, q, now, -1);
            let gen = self.calls.enter(q, Phase::Shed);
            self.events
                .schedule(now.units(), Event::Wake { call: q, gen })?;
        }
        Ok(())
    }

    /// Queued call `q` takes a worker of `node` that the server side gave
    /// it, and starts at a wake at `now` (not inline, so a long queue never
    /// deepens the stack).
    fn hand_worker(&mut self, now: Time, q: u32, node: usize) -> Result<(), Box<SimError>> {
        self.queue_change(node, q, now, -1);
        self.worker_taken(now, q, node);
        let gen = self.calls.enter(q, Phase::Dequeued);
        self.events
            .schedule(now.units(), Event::Wake { call: q, gen })?;
        Ok(())
    }

    /// Queued call `c` leaves `node`'s queue (its `server`'s) at `now`
    /// without service.
    pub(super) fn leave_queue(
        &mut self,
        now: Time,
        (node, c): (usize, u32),
        server: &mut ServerSide,
    ) {
        server.leave_queue();
        self.queue_change(node, c, now, -1);
    }

    /// Call `c` holds one of `node`'s workers from `now`.
    fn worker_taken(&mut self, now: Time, c: u32, node: usize) {
        self.recorder.busy(node, now, 1);
        let call = self.calls.get_mut(c);
        call.holds_worker = true;
        call.served = now;
    }

    /// A worker of `node` is free at `now`: the queued call its `server`
    /// picks takes it. Inlined where a call leaves its worker (two
    /// places): out of line, its prologue and result cost a third of it.
    #[inline]
    pub(super) fn free_worker(
        &mut self,
        now: Time,
        node: usize,
        server: &mut ServerSide,
    ) -> Result<(), Box<SimError>> {
        self.recorder.busy(node, now, -1);
        let calls = &self.calls;
        let next = server.release(now, |(q, g)| calls.current(q, g));
        if server.sheds() {
            self.answer_shed(now, node, server)?;
        }
        match next {
            Some((q, _)) => self.hand_worker(now, q, node),
            None => Ok(()),
        }
    }

    /// Call `c` starts its node's own service time at `now` (an
    /// `optimistic` node's call reads the version, [`ServerSide::begin`];
    /// [`ServerSide::service_time`]): one that takes none goes on at once
    /// (true, [`Step::Proceed`]); otherwise it wakes at the end of its
    /// service, or at the deadline the node knows when that comes first
    /// (false, [`Step::Wait`]). A bool, not a [`Step`]: `Result<bool, _>`
    /// comes back in two registers, a `Result<Step, _>` (32 bytes, the
    /// size of an [`Answer`]) through memory.
    pub(super) fn start_service(
        &mut self,
        now: Time,
        c: u32,
        server: &mut ServerSide,
        faults: &[FaultSpec],
    ) -> Result<bool, Box<SimError>> {
        let gen = self.calls.enter(c, Phase::Service);
        let key = self.key(c);
        server.begin(c, key);
        let d = server.service_time(faults, now, self.res, key);
        if d.is_zero() {
            return Ok(true);
        }
        let end = now.after(d);
        self.calls.get_mut(c).service_end = end;
        let at = self.known_deadline(c).map_or(end, |dl| end.min(dl));
        self.events
            .schedule(at.units(), Event::Wake { call: c, gen })?;
        Ok(false)
    }
}
