//! A call at its node on a run that takes time: the event loop's side of
//! the node's [`ServerSide`](crate::server::node::ServerSide). The server
//! side decides (error shares and faults in force, capacity, the rate
//! limit, workers and queue, service time); this file counts what it
//! decided and schedules the events that follow (a token's wait, a queue
//! timeout, the end of service, a queued call's start), and checks the
//! deadline the node knows. What happens after the service (tries
//! downstream, the answer back up) is `flow.rs`'s. The rules are in the
//! module doc of [`super`].

use crate::outcome::{fail, FailKind};
use crate::server::node::{Arrival, Join, REFUSED};
use crate::time::Time;

use super::super::{event::Event, runner::Runner, SimError};
use super::calls::{Phase, NONE};
use super::recorder::Count;

impl Runner<'_, '_> {
    /// Call `c` reaches its node at `now`.
    pub(super) fn arrive_timed(&mut self, now: Time, c: u32) -> Result<(), SimError> {
        let (node, _, _) = self.node_of(c);
        let slot = self.timed.calls.get(c).slot;
        let tick = self.timed.res.tick_of(now);
        self.observe(tick, slot, node);
        if self.timed.is_work_queue(node) {
            return self.timed.enqueue_message(now, c, node);
        }
        let deadline = self.known_deadline(c);
        if deadline.is_some_and(|d| now >= d) {
            return self.complete_call(now, c, fail(FailKind::Deadline));
        }
        let field = self.timed.calls.get(c).field;
        let field = if field == NONE { 0 } else { field as usize };
        let m = self.sim.model;
        let res = self.timed.res;
        match self.nodes[node]
            .server
            .arrive(&m.faults, now, res, field, deadline)
        {
            Arrival::Pass => self.after_limit(now, c),
            Arrival::Refused(a) => self.complete_call(now, c, a),
            Arrival::NoCapacity => {
                let i = self.obs.slots.index(tick);
                self.obs.nodes[node].refused[i] += 1;
                self.complete_call(now, c, REFUSED)
            }
            Arrival::Throttled(a) => {
                self.timed.recorder.count(node, Count::Throttled, now, 1);
                self.complete_call(now, c, a)
            }
            Arrival::Wait(at) => {
                let gen = self.timed.calls.enter(c, Phase::Token);
                self.timed
                    .events
                    .schedule(at.units(), Event::Wake { call: c, gen })?;
                Ok(())
            }
        }
    }

    /// Call `c` is past its node's rate limit at `now`: a leaf decides its
    /// answer, and the call meets the workers.
    pub(super) fn after_limit(&mut self, now: Time, c: u32) -> Result<(), SimError> {
        let (node, _, leaf) = self.node_of(c);
        let slot = self.timed.calls.get(c).slot;
        let tick = self.timed.res.tick_of(now);
        // A composite response is assembled from its fields after the
        // node's own work (`composite`), not here.
        if leaf && self.sim.model.nodes[node].composite.is_none() {
            let a = self.leaf_answer(tick, slot, node);
            self.timed.calls.get_mut(c).answer = a;
        }
        let deadline = self.known_deadline(c);
        let gen = self.timed.calls.enter(c, Phase::Queued);
        let join = self.nodes[node].server.join(now, (c, gen));
        if join != Join::Overflow {
            let queued = matches!(join, Join::Queued { .. });
            self.timed.recorder.admitted(node, now, queued);
        }
        match join {
            Join::Serve => {
                self.worker_taken(now, c, node);
                self.start_service(now, c)
            }
            Join::Queued { until } => {
                self.timed.recorder.queue(node, now, 1);
                // One wake: the queue timeout or the deadline, whichever
                // comes first.
                self.wake_at_first(c, gen, until, deadline)
            }
            Join::Overflow => {
                self.timed.recorder.count(node, Count::Overflow, now, 1);
                self.complete_call(now, c, fail(FailKind::Overflow))
            }
        }
    }

    /// Schedules an [`Event::Workers`] at the start and at the end of every
    /// `workers` fault on a node with a worker pool, so that the fault
    /// takes effect at those moments and not at the node's next arrival.
    pub(super) fn schedule_worker_faults(&mut self) -> Result<(), SimError> {
        let m = self.sim.model;
        let tm = &mut self.timed;
        for f in &m.faults {
            if f.timed.workers.is_none() || !self.nodes[f.node].server.has_pool() {
                continue;
            }
            for tick in [f.from, f.to.saturating_add(1)] {
                let at = tm.res.at_tick(tick);
                if at < tm.end {
                    let node = f.node as u32;
                    tm.events.schedule(at.units(), Event::Workers { node })?;
                }
            }
        }
        Ok(())
    }

    /// A `workers` fault on `node` starts or ends at `now`: the server side
    /// sets the workers in force, and queued calls take the workers a
    /// raise frees.
    pub(super) fn apply_worker_faults(&mut self, now: Time, node: usize) -> Result<(), SimError> {
        let m = self.sim.model;
        let tick = self.timed.res.tick_of(now);
        self.nodes[node].server.set_workers(&m.faults, tick);
        loop {
            let calls = &self.timed.calls;
            let next = self.nodes[node]
                .server
                .take_free(|(q, g)| calls.current(q, g));
            let Some((q, _)) = next else {
                return Ok(());
            };
            self.hand_worker(now, q, node)?;
        }
    }

    /// Queued call `q` takes a worker of `node` that the server side gave
    /// it, and starts at a wake at `now` (not inline, so a long queue never
    /// deepens the stack).
    fn hand_worker(&mut self, now: Time, q: u32, node: usize) -> Result<(), SimError> {
        self.timed.recorder.queue(node, now, -1);
        self.worker_taken(now, q, node);
        let gen = self.timed.calls.enter(q, Phase::Dequeued);
        self.timed
            .events
            .schedule(now.units(), Event::Wake { call: q, gen })?;
        Ok(())
    }

    /// A queued call leaves `node`'s queue at `now` without service.
    pub(super) fn leave_queue(&mut self, now: Time, node: usize) {
        self.nodes[node].server.leave_queue();
        self.timed.recorder.queue(node, now, -1);
    }

    /// Call `c` holds one of `node`'s workers from `now`.
    fn worker_taken(&mut self, now: Time, c: u32, node: usize) {
        let tm = &mut self.timed;
        tm.recorder.busy(node, now, 1);
        let call = tm.calls.get_mut(c);
        call.holds_worker = true;
        call.served = now;
    }

    /// A worker of `node` is free at `now`: the queued call the server
    /// side picks takes it.
    pub(super) fn free_worker(&mut self, now: Time, node: usize) -> Result<(), SimError> {
        self.timed.recorder.busy(node, now, -1);
        let calls = &self.timed.calls;
        let next = self.nodes[node]
            .server
            .release(|(q, g)| calls.current(q, g));
        match next {
            Some((q, _)) => self.hand_worker(now, q, node),
            None => Ok(()),
        }
    }

    /// Call `c` starts its node's own service time.
    pub(super) fn start_service(&mut self, now: Time, c: u32) -> Result<(), SimError> {
        let (node, _, _) = self.node_of(c);
        let m = self.sim.model;
        let gen = self.timed.calls.enter(c, Phase::Service);
        let res = self.timed.res;
        let d = self.nodes[node].server.service_time(&m.faults, now, res);
        if d.is_zero() {
            return self.proceed(now, c);
        }
        // A known deadline before the end of service stops the call then.
        let end = now.after(d);
        self.timed.calls.get_mut(c).service_end = end;
        let at = self.known_deadline(c).map_or(end, |dl| end.min(dl));
        self.timed
            .events
            .schedule(at.units(), Event::Wake { call: c, gen })?;
        Ok(())
    }
}
