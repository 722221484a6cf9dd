//! A call at its node, the server's stage of a run that takes time: the
//! deadline the node knows, the faults in force (an error share, then the
//! zero-time path's checks), the rate limit, the worker pool and its queue,
//! worker faults, and the node's own service time. What happens after the
//! service (tries downstream, the answer back up) is `flow.rs`'s. The rules
//! are in the module doc of [`super`].

use crate::outcome::{Answer, FailKind, Failure};
use crate::server::station::Admission;
use crate::time::Time;

use super::super::{event::Event, runner::Runner, SimError};
use super::calls::{Phase, NONE};
use super::flow::fail;
use super::recorder::Count;

/// What a node's rate limit does with a call.
enum Limit {
    /// A token: on to the workers.
    Pass,
    /// No token: this answer.
    Refuse(Answer),
    /// A token owed: on to the workers at this moment.
    Wait(Time),
}

impl Runner<'_, '_> {
    /// Call `c` reaches its node at `now`.
    pub(super) fn arrive_timed(&mut self, now: Time, c: u32) -> Result<(), SimError> {
        let (node, _, _) = self.node_of(c);
        let slot = self.timed.calls.get(c).slot;
        let tick = self.timed.res.tick_of(now);
        self.observe(tick, slot, node);
        if self.is_work_queue(node) {
            return self.enqueue_message(now, c, node);
        }
        if self.known_deadline(c).is_some_and(|d| now >= d) {
            return self.complete_call(now, c, fail(FailKind::Deadline));
        }
        if let Some(a) = self.error_share(tick, node) {
            return self.complete_call(now, c, a);
        }
        let field = self.timed.calls.get(c).field;
        let field = if field == NONE { 0 } else { field as usize };
        if let Some(a) = self.refusal(tick, node, field) {
            return self.complete_call(now, c, a);
        }
        match self.rate_limit(now, c, node) {
            Limit::Pass => {}
            Limit::Refuse(a) => return self.complete_call(now, c, a),
            Limit::Wait(at) => {
                let gen = self.timed.calls.enter(c, Phase::Token);
                self.timed
                    .events
                    .schedule(at.units(), Event::Wake { call: c, gen })?;
                return Ok(());
            }
        }
        self.after_limit(now, c)
    }

    /// Call `c` is past its node's rate limit at `now`: a leaf decides its
    /// answer, and the call meets the worker pool.
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
        let tm = &mut self.timed;
        let gen = tm.calls.enter(c, Phase::Queued);
        let admission = match tm.servers[node].station.as_mut() {
            None => Admission::Serve,
            Some(st) => st.arrive((c, gen)),
        };
        if !matches!(admission, Admission::Overflow) {
            tm.recorder
                .admitted(node, now, matches!(admission, Admission::Queued));
        }
        match admission {
            Admission::Serve => {
                self.take_worker(now, c, node);
                self.start_service(now, c)
            }
            Admission::Queued => {
                tm.recorder.queue(node, now, 1);
                // One wake: the queue timeout or the deadline, whichever
                // comes first.
                let until = tm.servers[node].queue_timeout.map(|q| now.after(q));
                let wake = match (until, deadline) {
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
            Admission::Overflow => {
                tm.recorder.count(node, Count::Overflow, now, 1);
                self.complete_call(now, c, fail(FailKind::Overflow))
            }
        }
    }

    /// A fault in force with an error share fails this call: one draw per
    /// such fault from its own stream.
    fn error_share(&mut self, tick: u64, node: usize) -> Option<Answer> {
        let m = self.sim.model;
        let tm = &mut self.timed;
        for &k in &tm.servers[node].faults {
            let f = &m.faults[k];
            if let Some((share, code)) = f.timed.errors {
                if f.from <= tick && tick <= f.to && tm.fault_streams[k].next_f64() < share {
                    return Some(Answer::Fail(Failure {
                        kind: FailKind::Status(code),
                        not_before: None,
                    }));
                }
            }
        }
        None
    }

    /// The node's token bucket: a call passes with a token; without one
    /// it answers the throttle, or, at a limiter that waits, waits for its
    /// token unless that wait would pass the longest wait (then the
    /// throttle) or the deadline the node knows (then *deadline exceeded*).
    fn rate_limit(&mut self, now: Time, c: u32, node: usize) -> Limit {
        let deadline = self.known_deadline(c);
        let tm = &mut self.timed;
        let res = tm.res;
        let server = &mut tm.servers[node];
        let (Some(bucket), Some(limit)) = (server.bucket.as_mut(), server.limit.as_ref()) else {
            return Limit::Pass;
        };
        let wait = if limit.wait {
            let own = limit.max_wait.map(|m| res.duration(m));
            let left = deadline.map(|d| d.since(now));
            let max = match (own, left) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            match bucket.reserve(now, max) {
                Ok(w) if w.is_zero() => return Limit::Pass,
                Ok(w) => return Limit::Wait(now.after(w)),
                Err(w) => {
                    let within_own = own.is_none_or(|o| w.is_some_and(|w| w <= o));
                    if left.is_some() && within_own {
                        return Limit::Refuse(fail(FailKind::Deadline));
                    }
                    w
                }
            }
        } else {
            match bucket.take(now) {
                Ok(()) => return Limit::Pass,
                Err(w) => w,
            }
        };
        tm.recorder.count(node, Count::Throttled, now, 1);
        let k = tm.res.per_tick();
        let not_before = if limit.retry_after {
            wait.map(|w| now.after(w).units().div_ceil(k))
        } else {
            None
        };
        Limit::Refuse(Answer::Fail(Failure {
            kind: FailKind::Status(limit.status),
            not_before,
        }))
    }

    /// Schedules an [`Event::Workers`] at the start and at the end of every
    /// `workers` fault on a node with a worker pool, so that the fault
    /// takes effect at those moments and not at the node's next arrival.
    pub(super) fn schedule_worker_faults(&mut self) -> Result<(), SimError> {
        let m = self.sim.model;
        let tm = &mut self.timed;
        for f in &m.faults {
            if f.timed.workers.is_none() || tm.servers[f.node].station.is_none() {
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

    /// Workers in force at `node` at `now` (a fault may change them): calls
    /// in service keep their workers and a lowered count takes effect as
    /// they finish; a raise lets queued calls take the new workers at once.
    pub(super) fn apply_worker_faults(&mut self, now: Time, node: usize) -> Result<(), SimError> {
        let m = self.sim.model;
        let tick = self.timed.res.tick_of(now);
        let server = &self.timed.servers[node];
        if server.station.is_none() {
            return Ok(());
        }
        let mut workers = server.workers;
        for &k in &server.faults {
            let f = &m.faults[k];
            if let Some(w) = f.timed.workers {
                if f.from <= tick && tick <= f.to {
                    workers = w;
                }
            }
        }
        if let Some(st) = self.timed.servers[node].station.as_mut() {
            st.set_workers(workers);
        }
        loop {
            let tm = &mut self.timed;
            let Some(st) = tm.servers[node].station.as_mut() else {
                break;
            };
            let calls = &tm.calls;
            let Some((q, _)) = st.take_free(|(q, g)| calls.current(q, g)) else {
                break;
            };
            self.hand_worker(now, q, node)?;
        }
        Ok(())
    }

    /// Queued call `q` takes a worker of `node` that the station gave it,
    /// and starts at a wake at `now` (not inline, so a long queue never
    /// deepens the stack).
    fn hand_worker(&mut self, now: Time, q: u32, node: usize) -> Result<(), SimError> {
        self.timed.recorder.queue(node, now, -1);
        self.take_worker(now, q, node);
        let gen = self.timed.calls.enter(q, Phase::Dequeued);
        self.timed
            .events
            .schedule(now.units(), Event::Wake { call: q, gen })?;
        Ok(())
    }

    /// A queued call leaves `node`'s queue at `now` without service.
    pub(super) fn leave_queue(&mut self, now: Time, node: usize) {
        let tm = &mut self.timed;
        if let Some(st) = tm.servers[node].station.as_mut() {
            st.leave_queue();
        }
        tm.recorder.queue(node, now, -1);
    }

    /// Call `c` holds one of `node`'s workers from `now`.
    fn take_worker(&mut self, now: Time, c: u32, node: usize) {
        let tm = &mut self.timed;
        tm.servers[node].in_service += 1;
        tm.recorder.busy(node, now, 1);
        let call = tm.calls.get_mut(c);
        call.holds_worker = true;
        call.served = now;
    }

    /// A worker of `node` is free at `now`: the oldest live queued call
    /// takes it.
    pub(super) fn free_worker(&mut self, now: Time, node: usize) -> Result<(), SimError> {
        let tm = &mut self.timed;
        tm.servers[node].in_service -= 1;
        tm.recorder.busy(node, now, -1);
        let Some(st) = tm.servers[node].station.as_mut() else {
            return Ok(());
        };
        let calls = &tm.calls;
        let Some((q, _)) = st.finish(|(q, g)| calls.current(q, g)) else {
            return Ok(());
        };
        self.hand_worker(now, q, node)
    }

    /// Call `c` starts its node's own service time.
    pub(super) fn start_service(&mut self, now: Time, c: u32) -> Result<(), SimError> {
        let (node, _, _) = self.node_of(c);
        let m = self.sim.model;
        let tm = &mut self.timed;
        let tick = tm.res.tick_of(now);
        let gen = tm.calls.enter(c, Phase::Service);
        let server = &mut tm.servers[node];
        let others = server.in_service.saturating_sub(1);
        let mut d = match &server.latency {
            Some(l) => l.sample_loaded(&mut server.stream, others).units() as f64,
            None => 0.0,
        };
        for &k in &server.faults {
            let f = &m.faults[k];
            if f.from <= tick && tick <= f.to {
                if let Some(x) = f.timed.latency_factor {
                    d *= x;
                }
                if let Some(a) = f.timed.latency_add {
                    d += tm.res.duration(a).units() as f64;
                }
            }
        }
        let d = crate::time::Resolution::TICKS.duration(d);
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
