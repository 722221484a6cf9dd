//! [`ServerSide`]: a node (or one replica of it) as a server, the one
//! component that decides what happens to a call that reaches it, on
//! every path. A node with `replicas` has one per replica, behind its
//! balancer ([`Replicas`](super::replicas::Replicas)).
//!
//! It owns the node's server state: its failing faults ([`Failing`]), its
//! per-tick capacity window ([`Capacity`]), its scripted routes
//! ([`Script`]) and composite ledger, and, when calls take time, the timed
//! faults in force (error shares with their own streams, latency factors
//! and additions, worker counts), its rate limit ([`TokenBucket`]), its
//! workers and queue with its discipline ([`Station`]), and its service
//! time ([`Latency`]) with the calls in service its load term reads, and
//! an `optimistic` node's versioned item ([`Versioned`]).
//!
//! The event loops call it; they keep the observations and schedule the
//! events, and decide nothing about the server themselves:
//!
//! | method | zero-time path | timed path | what it decides |
//! |---|---|---|---|
//! | [`own_answer`](ServerSide::own_answer) | every call | — | `refuse`, then at the bottom of a path the scripted answer or [`Own::Assemble`] |
//! | [`refuse`](ServerSide::refuse) | (inside `own_answer`) | (inside `arrive`) | a failing fault, no capacity left |
//! | [`arrive`](ServerSide::arrive) | — | every call | error share, then `refuse`, then the rate limit: pass, refused, throttled or a wait for a token |
//! | [`answer`](ServerSide::answer) | (inside `own_answer`) | a leaf past the limit | the scripted answer |
//! | [`join`](ServerSide::join) | — | past the limit | served now, queued (until when) or overflow |
//! | [`begin`](ServerSide::begin) | — | a call's own service starts | an `optimistic` node: the version it read |
//! | [`service_time`](ServerSide::service_time) | — | a call takes a worker | its service time |
//! | [`commit`](ServerSide::commit) | — | a call's own service ends | an `optimistic` node: committed, or the conflict |
//! | [`release`](ServerSide::release) | — | a call leaves its worker | the queued call that takes it (by the discipline) |
//! | [`leave_queue`](ServerSide::leave_queue) | — | a queued call gives up | its room is free |
//! | [`worker_changes`](ServerSide::worker_changes) | — | at the start of the run | when a `workers` fault changes the node |
//! | [`set_workers`](ServerSide::set_workers), [`take_free`](ServerSide::take_free) | — | a `workers` fault starts or ends | the worker count in force, and the queued calls that take new workers |
//!
//! On the zero-time path a node has no error share, rate limit, workers or
//! latency (any of them puts the model on the timed path), so that path
//! calls `own_answer`: the step of `arrive` that applies to it, then the
//! answer at the bottom. A composite response's fields are fetched by the
//! event loop (each field's own answer at its node) and assembled by
//! [`Assembly`](super::composite::Assembly); when calls take time,
//! [`Fetches`](super::composite::Fetches) keeps the fields in flight.
//!
//! A new queue discipline is a variant of [`Discipline`] (`station.rs`)
//! and its keyword in the language; nothing here or in the event loops
//! changes.

use squall_lang::{FaultSpec, Model, NodeSpec, RateLimitSpec, RequestSpec, RouteSpec};

use crate::outcome::{Answer, FailKind, Failure};
use crate::rng::Stream;

use super::keyed::{draw, keyed_service};
use crate::time::{Duration, Resolution, Time, NEVER};

use super::capacity::Capacity;
use super::fault::{latency_faulted, Failing};
use super::latency::Latency;
use super::script::Script;
use super::station::{Admission, Station};
use super::token_bucket::TokenBucket;
use super::versioned::Versioned;

/// The event loop's handle on a queued call: `(call, generation)`.
pub(crate) type Handle = (u32, u32);

/// What the server side does with a call that arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arrival {
    /// On to the workers.
    Pass,
    /// Answered at once: a failing fault, an error share, or a wait for a
    /// token that would pass the deadline the node knows.
    Refused(Answer),
    /// No per-tick capacity left (answers [`REFUSED`]).
    NoCapacity,
    /// No token: the rate limit's throttle.
    Throttled(Answer),
    /// A token owed: on to the workers at this moment.
    Wait(Time),
}

/// The answer of a call refused for capacity.
pub(crate) const REFUSED: Answer = Answer::Fail(Failure {
    kind: FailKind::Refused,
    not_before: None,
});

/// What a node answers by itself on the zero-time path
/// ([`ServerSide::own_answer`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Own {
    /// Not at the bottom of the path and not refused: on downstream.
    Pass,
    /// A refusal, or the answer of the bottom of the path.
    Answer(Answer),
    /// The bottom of the path has a composite response: the event loop
    /// fetches its fields (each one's own answer) into an
    /// [`Assembly`](super::composite::Assembly).
    Assemble,
}

/// What the workers do with a call past the rate limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Join {
    /// A worker took it.
    Serve,
    /// It waits in the queue, at most until `until` (its queue timeout).
    Queued { until: Option<Time> },
    /// No worker and no room: refused as overflow.
    Overflow,
}

/// A node's timed rate limit: its bucket and its rules.
#[derive(Debug, Clone)]
struct Limit {
    bucket: TokenBucket,
    spec: RateLimitSpec,
}

/// One node's server side.
#[derive(Debug, Clone)]
pub(crate) struct ServerSide {
    failing: Failing,
    capacity: Capacity,
    script: Script,
    /// Tick of each composite field's last fresh value (the ledger).
    ledger: Vec<u64>,
    /// Service time and the stream it draws from (`latency/<node>`).
    latency: Option<Latency>,
    stream: Stream,
    /// Workers and queue; `None`: no limit.
    pool: Option<Station<Handle>>,
    /// Workers when no fault changes them.
    workers: u32,
    queue_timeout: Option<Duration>,
    limit: Option<Limit>,
    /// Calls holding a worker (the load term reads it).
    in_service: u32,
    /// Its queue's discipline may shed a call when a worker takes it
    /// (adaptive LIFO's CoDel): only then does the runner ask
    /// [`take_shed`](Self::take_shed).
    sheds: bool,
    /// The faults on this node that change time, with the stream of each
    /// (`fault/<index>`, for its error share).
    timed_faults: Vec<(usize, Stream)>,
    /// Its versioned item (`optimistic`), when calls take time.
    /// Boxed: a model without one keeps the node as small as before.
    versioned: Option<Box<Versioned>>,
    /// Calls answered at once without service: a failing fault or error
    /// share, no capacity, a throttle, overflow (a replica's metric).
    refused: u64,
    /// When calls take time: nothing can stop a call at arrival (no
    /// fault on the node that fails or changes time, no per-tick capacity,
    /// no rate limit), so [`arrive`](Self::arrive) passes it with one
    /// test.
    open: bool,
    /// The node has no composite response and no routes: at the bottom
    /// of a path it answers success ([`own_answer`](Self::own_answer)
    /// does not look its spec up).
    plain: bool,
}

impl ServerSide {
    /// The server side of replica `r` of node `i` of `model` (0 for a
    /// node without replicas); `res` is the run's resolution when calls
    /// take time (`None` on the zero-time path). Replica 0 draws from the
    /// node's own streams, replica `r > 0` from streams of its own.
    pub(crate) fn new(
        model: &Model,
        i: usize,
        r: usize,
        seed: u64,
        res: Option<Resolution>,
    ) -> Self {
        let n = &model.nodes[i];
        let own = |label: String| match r {
            0 => label,
            r => format!("{label}/{r}"),
        };
        let mut side = ServerSide {
            failing: Failing::new(model, i, r),
            capacity: Capacity::new(model, i, r),
            script: Script::new(n.routes.len()),
            ledger: vec![NEVER; n.composite.as_ref().map_or(0, |c| c.fields.len())],
            latency: None,
            stream: Stream::new(seed, &own(format!("latency/{i}"))),
            pool: None,
            workers: u32::MAX,
            queue_timeout: None,
            limit: None,
            in_service: 0,
            sheds: false,
            timed_faults: Vec::new(),
            versioned: None,
            refused: 0,
            open: false,
            plain: n.composite.is_none() && n.routes.is_empty(),
        };
        let Some(res) = res else {
            return side;
        };
        let s = n.server.clone().unwrap_or_default();
        side.latency = s.latency.as_ref().map(|l| Latency::new(l, s.per_call, res));
        side.pool = s.workers.map(|w| Station::for_server(w, &s, model, res));
        side.sheds = side.pool.is_some() && s.discipline.sheds();
        side.workers = s.workers.unwrap_or(u32::MAX);
        side.queue_timeout = s.queue_timeout.map(|q| res.duration(q));
        side.limit = s.rate_limit.map(|r| Limit {
            bucket: TokenBucket::new(r.rate, r.burst, res),
            spec: r,
        });
        side.versioned = s.optimistic.map(|c| {
            let stream = Stream::new(seed, &own(format!("optimistic/{i}")));
            Box::new(Versioned::new(c, s.optimistic_items, stream))
        });
        side.timed_faults = model
            .faults
            .iter()
            .enumerate()
            .filter(|(_, f)| f.node == i && f.strikes_replica(r) && !f.timed.is_empty())
            .map(|(k, _)| (k, Stream::new(seed, &own(format!("fault/{k}")))))
            .collect();
        side.open = side.timed_faults.is_empty()
            && side.failing.is_empty()
            && side.capacity.unlimited()
            && side.limit.is_none();
        side
    }

    /// The answer of a node that does not take the call: a failing fault
    /// in force at tick `t`, or [`REFUSED`] when no per-tick capacity is
    /// left, after calling `no_capacity` (the caller counts it); `None`:
    /// the node takes the call. `field`: the composite field the call
    /// fetches, 0 otherwise.
    #[inline(always)]
    pub(crate) fn refuse(
        &mut self,
        faults: &[FaultSpec],
        t: u64,
        field: usize,
        no_capacity: impl FnOnce(),
    ) -> Option<Answer> {
        if let Some(answer) = self.failing.answer(faults, t, field) {
            return Some(answer);
        }
        if !self.capacity.take(t, faults) {
            no_capacity();
            return Some(REFUSED);
        }
        None
    }

    /// The answer node `spec` gives by itself at tick `t` on the zero-time
    /// path: a refusal ([`refuse`](Self::refuse); `no_capacity` counts
    /// one for capacity), or at the bottom of a path (`leaf`) its
    /// composite response or the answer its scripted routes give the
    /// request (`spec` and `request`, asked only then). `field`: the
    /// composite field the call fetches, 0 otherwise.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn own_answer<'r>(
        &mut self,
        spec: impl FnOnce() -> &'r NodeSpec,
        faults: &[FaultSpec],
        t: u64,
        field: usize,
        leaf: bool,
        request: impl FnOnce() -> &'r RequestSpec,
        no_capacity: impl FnOnce(),
    ) -> Own {
        if let Some(answer) = self.refuse(faults, t, field, no_capacity) {
            self.refused += 1;
            return Own::Answer(answer);
        }
        if !leaf {
            return Own::Pass;
        }
        // Without routes or fields, success: neither the node's spec nor
        // the request is looked up.
        if self.plain {
            return Own::Answer(Answer::Ok);
        }
        let s = spec();
        if s.composite.is_some() {
            return Own::Assemble;
        }
        Own::Answer(self.script.answer(&s.routes, request(), t))
    }

    /// A call arrives at `now` (`deadline`: the one the node knows):
    /// the timed faults' error shares (one draw per fault in force, in
    /// declaration order), then [`refuse`](Self::refuse), then the rate
    /// limit. `key`: the call's key under `draws common`, whose streams
    /// the error-share draws come from instead of the faults' own.
    #[inline]
    pub(crate) fn arrive(
        &mut self,
        faults: &[FaultSpec],
        now: Time,
        res: Resolution,
        field: usize,
        deadline: Option<Time>,
        key: Option<u64>,
    ) -> Arrival {
        if self.open {
            return Arrival::Pass;
        }
        self.arrive_guarded(faults, now, res, field, deadline, key)
    }

    /// [`arrive`](Self::arrive) at a node where something may stop the
    /// call: out of line, so an open node pays one test.
    #[inline(never)]
    fn arrive_guarded(
        &mut self,
        faults: &[FaultSpec],
        now: Time,
        res: Resolution,
        field: usize,
        deadline: Option<Time>,
        key: Option<u64>,
    ) -> Arrival {
        let a = self.arrival(faults, now, res, field, deadline, key);
        if !matches!(a, Arrival::Pass | Arrival::Wait(_)) {
            self.refused += 1;
        }
        a
    }

    /// [`arrive`](Self::arrive)'s decision.
    #[inline(always)]
    fn arrival(
        &mut self,
        faults: &[FaultSpec],
        now: Time,
        res: Resolution,
        field: usize,
        deadline: Option<Time>,
        key: Option<u64>,
    ) -> Arrival {
        let tick = res.tick_of(now);
        for (k, stream) in &mut self.timed_faults {
            let f = &faults[*k];
            if let Some((share, code)) = f.timed.errors {
                if f.in_force_for(tick, field) && draw(stream, key, *k) < share {
                    return Arrival::Refused(Answer::Fail(Failure {
                        kind: FailKind::Status(code),
                        not_before: None,
                    }));
                }
            }
        }
        let mut full = false;
        if let Some(a) = self.refuse(faults, tick, field, || full = true) {
            return if full {
                Arrival::NoCapacity
            } else {
                Arrival::Refused(a)
            };
        }
        self.rate_limit(now, res, deadline)
    }

    /// The token bucket: a call passes with a token; without one it
    /// answers the throttle, or, at a limiter that waits, waits for its
    /// token unless that wait would pass the longest wait (then the
    /// throttle) or the deadline the node knows (then *deadline exceeded*).
    fn rate_limit(&mut self, now: Time, res: Resolution, deadline: Option<Time>) -> Arrival {
        let Some(Limit { bucket, spec }) = self.limit.as_mut() else {
            return Arrival::Pass;
        };
        let wait = if spec.wait {
            let own = spec.max_wait.map(|m| res.duration(m));
            let left = deadline.map(|d| d.since(now));
            let max = match (own, left) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            match bucket.reserve(now, max) {
                Ok(w) if w.is_zero() => return Arrival::Pass,
                Ok(w) => return Arrival::Wait(now.after(w)),
                Err(w) => {
                    let within_own = own.is_none_or(|o| w.is_some_and(|w| w <= o));
                    if left.is_some() && within_own {
                        return Arrival::Refused(Answer::Fail(Failure {
                            kind: FailKind::Deadline,
                            not_before: None,
                        }));
                    }
                    w
                }
            }
        } else {
            match bucket.take(now) {
                Ok(()) => return Arrival::Pass,
                Err(w) => w,
            }
        };
        let k = res.per_tick();
        let not_before = if spec.retry_after {
            wait.map(|w| now.after(w).units().div_ceil(k))
        } else {
            None
        };
        Arrival::Throttled(Answer::Fail(Failure {
            kind: FailKind::Status(spec.status),
            not_before,
        }))
    }

    /// The scripted answer `routes` give `request` at tick `t` (a leaf's).
    #[inline]
    pub(crate) fn answer(&mut self, routes: &[RouteSpec], request: &RequestSpec, t: u64) -> Answer {
        self.script.answer(routes, request, t)
    }

    /// Calls answered at once without service over the run.
    pub(crate) fn refused(&self) -> u64 {
        self.refused
    }

    /// Calls each scripted route answered over the run.
    pub(crate) fn route_calls(&self) -> &[u64] {
        &self.script.calls
    }

    /// The composite ledger: the tick of each field's last fresh value.
    pub(crate) fn ledger_mut(&mut self) -> &mut [u64] {
        &mut self.ledger
    }

    /// Call `call`, past the rate limit at `now`, meets the workers
    /// (`source`: its request's source, asked only by a queue with
    /// priority classes).
    #[inline]
    pub(crate) fn join(&mut self, now: Time, call: Handle, source: impl FnOnce() -> usize) -> Join {
        let admission = match self.pool.as_mut() {
            None => Admission::Serve,
            Some(st) => st.arrive(call, now, source),
        };
        match admission {
            Admission::Serve => {
                self.in_service += 1;
                Join::Serve
            }
            Admission::Queued => Join::Queued {
                until: self.queue_timeout.map(|q| now.after(q)),
            },
            Admission::Overflow => {
                self.refused += 1;
                Join::Overflow
            }
        }
    }

    /// A queued call leaves the queue without service.
    pub(crate) fn leave_queue(&mut self) {
        if let Some(st) = self.pool.as_mut() {
            st.leave_queue();
        }
    }

    /// A call leaves its worker at `now`: the next live queued call (by
    /// the discipline) takes it and is returned, or the worker is free.
    /// Calls the discipline shed on the way are left for
    /// [`take_shed`](Self::take_shed).
    pub(crate) fn release(
        &mut self,
        now: Time,
        is_live: impl FnMut(Handle) -> bool,
    ) -> Option<Handle> {
        self.in_service -= 1;
        let next = self.pool.as_mut()?.finish(now, is_live);
        if next.is_some() {
            self.in_service += 1;
        }
        next
    }

    /// Whether its discipline may shed calls (then the runner asks
    /// [`take_shed`](Self::take_shed) after each take).
    #[inline]
    pub(crate) fn sheds(&self) -> bool {
        self.sheds
    }

    /// A queued call the discipline shed (CoDel) at the last take, left
    /// to answer: it leaves without service, as a queue timeout.
    pub(crate) fn take_shed(&mut self) -> Option<Handle> {
        self.pool.as_mut()?.take_shed()
    }

    /// The ticks at which `workers` fault `f` (on this node) changes the
    /// workers in force: its first tick and the tick after its last; `None`
    /// when `f` does not change workers or the node has no worker pool.
    pub(crate) fn worker_changes(&self, f: &FaultSpec) -> Option<[u64; 2]> {
        (self.pool.is_some() && f.timed.workers.is_some()).then(|| [f.from, f.to.saturating_add(1)])
    }

    /// Sets the workers in force at tick `t`: the last declared `workers`
    /// fault in force, or the node's own. Calls in service keep their
    /// workers; a lowered count takes effect as they leave, a raised one
    /// through [`take_free`](Self::take_free).
    pub(crate) fn set_workers(&mut self, faults: &[FaultSpec], t: u64) {
        let Some(st) = self.pool.as_mut() else {
            return;
        };
        let mut workers = self.workers;
        for (k, _) in &self.timed_faults {
            let f = &faults[*k];
            if let Some(w) = f.timed.workers {
                if f.from <= t && t <= f.to {
                    workers = w;
                }
            }
        }
        st.set_workers(workers);
    }

    /// A free worker (after a raise at `now`) takes the next live queued
    /// call, which is returned.
    pub(crate) fn take_free(
        &mut self,
        now: Time,
        is_live: impl FnMut(Handle) -> bool,
    ) -> Option<Handle> {
        let next = self.pool.as_mut()?.take_free(now, is_live);
        if next.is_some() {
            self.in_service += 1;
        }
        next
    }

    /// Call `c` (its key `key` under `draws common`) starts its own
    /// service: at a node with versioned items it reads its item's version
    /// ([`Versioned::read`]).
    #[inline]
    pub(crate) fn begin(&mut self, c: u32, key: Option<u64>) {
        if let Some(v) = self.versioned.as_mut() {
            v.read(c, key);
        }
    }

    /// Call `c` ends its own service with `answer`: at a node with a
    /// versioned item it commits, or answers the conflict
    /// ([`Versioned::commit`]); elsewhere `answer` stands. Returns the
    /// answer that replaces `answer`, if any: a node that is not
    /// `optimistic` has nothing to compare.
    #[inline]
    pub(crate) fn commit(&mut self, c: u32, answer: Answer) -> Option<Answer> {
        let v = self.versioned.as_mut()?;
        let committed = v.commit(c, answer);
        (committed != answer).then_some(committed)
    }

    /// The service time of a call that starts at `now` holding a worker:
    /// one draw from the node's latency (plus the load term per other call
    /// in service), times the factors and plus the additions of the
    /// latency faults in force. `key`: the call's key under `draws
    /// common`, whose stream the draw comes from instead of the node's.
    #[inline]
    pub(crate) fn service_time(
        &mut self,
        faults: &[FaultSpec],
        now: Time,
        res: Resolution,
        key: Option<u64>,
    ) -> Duration {
        let others = self.in_service.saturating_sub(1);
        let d = match &self.latency {
            Some(l) => match key {
                None => l.sample_units(&mut self.stream, others),
                Some(k) => keyed_service(l, k, others),
            },
            None => 0.0,
        };
        // With no latency fault on the node the draw is rounded once.
        if self.timed_faults.is_empty() {
            return Resolution::TICKS.duration(d);
        }
        let tick = res.tick_of(now);
        latency_faulted(d, &mut self.timed_faults, faults, tick, res, key)
    }
}
