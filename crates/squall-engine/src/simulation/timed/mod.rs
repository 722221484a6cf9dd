//! Calls that take time (DESIGN, "Calls that take time").
//!
//! A model in which something takes time — a node's latency, a worker
//! pool, a rate limit, a per-try timeout, a deadline, a fault on latency or
//! an error share — runs on this path; every other model runs exactly as
//! before, event for event, on the zero-time path (`call.rs`), and this
//! module is never entered.
//!
//! # Time
//!
//! Events are keyed by engine units ([`crate::time`]: nanoseconds under
//! `clock ms` and `clock s`, a millionth of a round under `clock round`).
//! The counters of [`crate::Observations`] count by tick of the event
//! (`unit / units_per_tick`) into the bins of the run's series
//! ([`slots`]: `series every D`, or [`default_bin`]), cut at the window
//! edges so that window totals stay exact; latency, queue and service levels, timeouts and wasted work
//! are recorded from event times ([`crate::observe::timed`]). Latency,
//! levels, end-to-end latency and the per-bin stretches are recorded only
//! as the run's [`Observe`] asks (everything by default;
//! [`super::SimulationBuilder::observe`]): a report of window totals asks
//! for what it reads.
//!
//! # Sources
//!
//! Open-loop rate sources send one request at a time, a gap after the
//! last, cut and drawn again where the rate changes (a step, a spike, every
//! tick of a ramp); closed-loop sources (`clients N  think ...`) send when
//! a client has thought after its previous request ended (`sources`).
//! `at` sources send at the start of their ticks. A sequential source runs
//! one operation at a time, the next starting the moment the one before
//! ends (`simulation/operation.rs`, whose rule both paths share).
//!
//! # A call at a node
//!
//! Each try is a *call* ([`calls`]). A call that reaches a node is counted
//! (the per-tick `calls` and unique ids, as on the zero-time path), then
//! meets, in this order:
//!
//! 1. the request's deadline, where the node knows it (the entry node, or
//!    every node when the source propagates it): past it, the call fails
//!    at once as *deadline exceeded*;
//! 2. the faults in force with an error share: one draw from the fault's
//!    own stream (`fault/<index>`) per call, failing with the fault's
//!    status when below the share;
//! 3. the zero-time path's own checks: a failing fault, the per-tick
//!    capacity window;
//! 4. the rate limit (a token bucket): no token, the call answers the
//!    limit's status (429 by default), with a Retry-After until the next
//!    token when the limit says so; a limit that waits (`wait`) owes the
//!    token instead and the call goes on when it is paid for, in arrival
//!    order, unless that wait would pass the longest wait (then the
//!    status) or the deadline the node knows (then *deadline exceeded*);
//! 5. the worker pool: a free worker takes the call; otherwise it waits
//!    in the FIFO queue if there is room (and fails as a *queue timeout*
//!    if it waits longer than the queue timeout), or is refused as
//!    *overflow*.
//!
//! A leaf's answer (its script, or success) is decided at that moment and
//! given after its service time. With a worker, the call draws its
//! service time (`server::latency`: one draw from `latency/<node>`,
//! times the factors and plus the additions of latency faults in force,
//! plus the load term per call already in service). A zero service time
//! goes on inline, so a chain of nodes without latency answers in the
//! moment it is called, as on the zero-time path.
//!
//! After its service time, a node with a downstream sends its first try
//! and **holds its worker** until it answers: while it waits for the try,
//! and while it waits before a retry. A node with a composite response
//! fetches its fields in parallel instead, waits for each at most its
//! timeout, and answers what its degradation policy makes of what came
//! back ([`composite`]).
//!
//! # Where the code lives
//!
//! The server side decides ([`ServerSide`](crate::server::node::ServerSide):
//! faults, capacity, rate limit, workers and queue, service time;
//! [`Fetches`]: a composite response's fields in flight). The methods of
//! [`Timed`] keep the calls' phases, the levels and counts, and the wakes:
//! `arrival.rs` for a call at its node (it returns the loop's next step:
//! wait, meet the workers, go on, or answer), `composite.rs` for the
//! fields, `mod.rs` for calls, requests, deadlines and work queues. The
//! event loop (`flow/`) counts the calls, makes the calls down the path
//! and the fields, and acts on what these return.
//!
//! # The caller's side
//!
//! A try is not started past the deadline the node knows; a node with a
//! `timeout` sets a timer of that length on each try (cut to the time left
//! before the deadline). When the timer fires first, the try fails at the
//! caller as a timeout (retryable under the usual classification) and
//! the callee's chain of calls is left behind as *orphans*: they keep
//! working, holding workers, retrying among themselves (each still
//! answers the call above it), and only the top one's answer goes
//! nowhere — that is wasted work, counted at each node as calls and busy
//! time (from the moment the caller gave up). With `cancel` on the node, or when the
//! deadline is propagated and has passed, the chain is cancelled instead:
//! every call in it leaves its queue or frees its worker at that moment.
//! Retries follow the zero-time path's rules (classification, attempts,
//! backoff, Retry-After, the policy's own deadline), and a wait that would
//! end at or after the deadline the node knows is not started.
//!
//! Stale events are ignored by a generation number per call: every change
//! of phase bumps it, and an event carries the number it was scheduled
//! under. A try's timer goes stale when the try answers first, which is
//! most of the time: the answer cancels it in the calendar
//! ([`crate::queue::EventQueue::cancel`], with the [`crate::queue::Timer`]
//! the call's record keeps), so it is neither popped nor counted. A
//! timer the calendar cannot take out (one behind another event of its
//! bucket, or too far ahead for the ring) and the other stale wakes stay;
//! so that the queue's memory follows the calls in flight and not the
//! events processed, the loop drops them whenever the queue has doubled
//! since it last did ([`Timed::drop_stale_wakes`], the queue's
//! compaction). Only events that would have done nothing are dropped or
//! cancelled, so a run's events and results are the same, less the stale
//! events it would have popped (which the work budget no longer counts).
//! Nothing is searched or removed from a node's queue.
//!
//! # Work queues
//!
//! A node that is a work queue (`consumers N`) takes its calls as
//! messages instead (a hook at arrival and at each wake): its consumers,
//! poison messages, redelivery and dead-letter queue are the server-side
//! component [`WorkQueue`] (`server/work_queue.rs`); [`Timed`] keeps the
//! messages' calls, the node's levels and their events.
//!
//! # Accounting
//!
//! A request ends when its entry call answers; its slot in the request
//! slab is kept until the last of its orphans has answered too. At the end
//! every request is completed, dropped or in flight, and every call that
//! reached a node was answered, cancelled, or is queued, in service or
//! waiting ([`crate::observe::timed::CallAccounting`]).
//!
//! # Where the code lives
//!
//! The event loop is the module `flow/`: `mod.rs` pops the events and
//! takes a call down (arrival, service, a try sent, its timer), `back.rs`
//! takes the answer back up (the try's end, the retry wait, hedged tries,
//! cancellation). It is the only code here that is `impl Runner`; the
//! server's stage (`arrival.rs`, `composite.rs`) is `impl Timed` and
//! returns what the loop does next. The state it acts on is owned by components that
//! keep their rules and return what to do; the loop makes the request,
//! schedules and acts:
//!
//! | state and rules | owner | what the loop calls |
//! |-----------------|-------|---------------------|
//! | the calls in flight and each try's state | [`Calls`], `Call` (`calls.rs`) | `alloc`, `enter`, `release`, `orphan_chain`; `Call::retry_loop` and `Call::decided` around the caller side's retry decision |
//! | a request's references, start and deadline; a new call's place on its path; the deadline a node knows; an orphan's wasted work | [`Timed`] (`ledger.rs`) | `open_request`, `new_call`, `drop_refs`, `known_deadline`, `wasted_busy` |
//! | when a source's next event falls (open loops' gaps, clients' think times) | `TimedSources` (`sources.rs`) | through [`Timed`] (`source_events.rs`), which schedules it: `start_sources` once, then `next_arrival`, `next_at`, `client_done` |
//! | a sequential source's running operation and its record | `Operations` (`simulation/operation.rs`, shared with the zero-time path) | `start`, `wait`, `ended` |
//! | hedged tries: each hedging call's tries in flight, and what it does when one answers | [`Hedges`] (`caller/hedge.rs`), held here beside the call slab | `sent` (the delay to the next try), `answered` (a `HedgeStep`: finish, send, wait), `take` (the tries to cancel) |
//! | a node's breakers, budgets, timeout, hedging policy | `CallerSide` (`caller/`) | the same methods as the zero-time path (`caller/mod.rs`) |
//! | work queues | [`WorkQueue`] (`server/work_queue.rs`), with its calls and levels here | `enqueue_message`, `dispatch_messages`, `message_wake` |
//! | a link's steady latency, faults on a link and on the answer leg: what a try sent over a link, or an answer sent back, meets; a call kept on a link | `Links` (`links.rs`), [`Timed`] (`on_link.rs`) | `send_down` (`links.sends`), `link_request`, `link_answer`, `on_link`, `drop_on_link` |
//! | what is counted in time (as far as [`Observe`] asks) | `Recorder` (`recorder.rs`) | `count`, `latency`, `queue`, `busy`, `end_to_end` |
//! | the end of a run | [`Timed::finish`] (`finish.rs`) | once, after the last event |

mod arrival;
mod bins;
mod calls;
mod composite;
mod estimate;
mod finish;
mod flow;
mod keys;
mod ledger;
mod links;
mod on_link;
mod recorder;
mod source_events;
mod sources;

use squall_lang::Model;

use crate::caller::Hedges;
use crate::observe::replica_queues::ReplicaQueues;
use crate::observe::{Observations, Observe, Slots};
use crate::outcome::Answer;
use crate::queue::{EventQueue, Nanoseconds};
use crate::server::composite::Fetches;
use crate::server::work_queue::{WorkQueue, Worked};
use crate::time::{Resolution, Time};

use super::{event::Event, SimError};

use calls::{Calls, Phase};
use keys::Keys;
use links::Links;
use recorder::Recorder;
use sources::TimedSources;

pub use bins::default_bin;
pub use estimate::{estimate, Estimate};

/// The width of a series bin of `model` \[ticks\] when it takes time: its
/// `series every`, or [`default_bin`] of its length.
pub fn series_bin(model: &Model) -> u64 {
    model.series_every.unwrap_or_else(|| {
        default_bin(
            model.ticks.saturating_sub(model.start) + 1,
            model.clock.tick_millis(),
        )
    })
}

/// How the series of `model` are cut ([`Slots`]): per tick when nothing
/// takes time, in bins of [`series_bin`] cut at the window edges when
/// something does.
pub fn slots(model: &Model) -> Slots {
    if !takes_time(model) {
        return Slots::per_tick(model.ticks);
    }
    let edges: Vec<u64> = model
        .windows
        .iter()
        .flat_map(|w| [w.from, w.to.saturating_add(1)])
        .collect();
    Slots::binned(model.start, model.ticks, series_bin(model), &edges)
}

/// True when something in `model` takes time.
pub fn takes_time(model: &Model) -> bool {
    model.takes_time()
}

/// The state of a run that takes time (empty on the zero-time path).
#[derive(Debug, Default)]
pub(super) struct Timed {
    pub(super) on: bool,
    res: Resolution,
    end: Time,
    calls: Calls,
    /// Per request slot: calls that refer to it (+1 while it is open),
    /// its start and its deadline.
    refs: Vec<u32>,
    started: Vec<Time>,
    deadline: Vec<Time>,
    /// Some source has a deadline: else every `deadline` entry is
    /// `Time::NEVER` and `known_deadline` need not look.
    any_deadline: bool,
    /// The slot a count at a tick goes to, remembered from the last
    /// lookup: a call's arrival and its answer are counted through it
    /// (`observe_at`, `NodeSeries::count_answer`). The round walk keeps
    /// `Slots::index` (its slots are per tick).
    pub(in crate::simulation) cursor: crate::observe::slots::SlotCursor,
    /// The last moment whose tick was asked for \[units\] and that tick
    /// ([`Timed::tick_of`]).
    tick: std::cell::Cell<(u64, u64)>,
    /// Per source: its deadline is propagated to every node.
    propagate: Vec<bool>,
    /// Where the sources stand (`sources`).
    sources: TimedSources,
    recorder: Recorder,
    /// Composite responses waiting for their fields.
    fetches: Fetches,
    /// Per call of a hedging node: its tries in flight
    /// ([`crate::caller::Hedges`]).
    hedges: Hedges,
    /// Per node: its work queue, if it is one; empty when no node is one
    /// (so that asking costs a length test per call and wake).
    queues: Vec<Option<WorkQueue>>,
    /// The keys of the calls' draws under `draws common` (`keys.rs`).
    keys: Keys,
    /// Faults on links and on the answer leg (`links.rs`).
    links: Links,
    /// Each replica's queue, when a report reads one
    /// ([`Timed::keep_replica_queues`]).
    replica_queues: Option<Box<ReplicaQueues>>,
    /// The events to come: the one calendar queue ([`crate::queue`]),
    /// with buckets sized for nanosecond keys.
    pub(super) events: EventQueue<Event, Nanoseconds>,
}

impl Timed {
    /// Drops the wakes of the event queue that went stale (their call
    /// moved on or was freed), when the queue asks for it
    /// ([`EventQueue::needs_compaction`]): they would do nothing when
    /// popped. Every other event is kept, in its order.
    #[inline(always)]
    pub(super) fn drop_stale_wakes(&mut self) {
        if self.events.needs_compaction() {
            let calls = &self.calls;
            self.events.retain(|e| match *e {
                Event::Wake { call, gen } => calls.current(call, gen),
                _ => true,
            });
        }
    }

    /// Whole ticks from `then` to `now`, rounded up (what a breaker's
    /// slow-call rule reads: a call is slow iff it took longer than a
    /// threshold of whole ticks, and `d > T` ticks iff `ceil(d) > T`).
    pub(super) fn ticks_since(&self, now: Time, then: Time) -> u64 {
        now.since(then).units().div_ceil(self.res.per_tick())
    }

    /// The state for `model` (empty when nothing in it takes time).
    /// Engine units per tick: 1 when nothing takes time.
    pub(super) fn per_tick(&self) -> u64 {
        if self.on {
            self.res.per_tick()
        } else {
            1
        }
    }

    /// `force`: on the timed path even when nothing takes time
    /// ([`super::SimulationBuilder::force_timed`]).
    /// `observe`: what the recorder records ([`Observe`]).
    pub(super) fn new(model: &Model, seed: u64, force: bool, observe: Observe) -> Self {
        if !force && !takes_time(model) {
            return Timed::default();
        }
        let res = Resolution::fine(model.clock);
        let (start, end, windows) = span_and_windows(model, res);
        let mut queues = WorkQueue::for_model(model, seed, res, &windows);
        if queues.iter().all(Option::is_none) {
            queues = Vec::new();
        }
        let bin = series_bin(model);
        Timed {
            on: true,
            res,
            end,
            calls: Calls::default(),
            refs: Vec::new(),
            started: Vec::new(),
            deadline: Vec::new(),
            any_deadline: model.sources.iter().any(|s| s.deadline.is_some()),
            cursor: Default::default(),
            tick: Default::default(),
            propagate: model
                .sources
                .iter()
                .map(|s| s.deadline.as_ref().is_some_and(|d| d.propagate))
                .collect(),
            sources: TimedSources::new(model, seed, res),
            hedges: Hedges::default(),
            queues,
            recorder: Recorder::new(
                res,
                start,
                end,
                bin,
                windows,
                model.nodes.len(),
                model.sources.len(),
                observe,
            ),
            fetches: Fetches::default(),
            keys: Keys::new(model, seed),
            links: Links::new(model, seed, res),
            replica_queues: None,
            events: EventQueue::new(),
        }
    }

    /// Records each replica's queue per named window from now on
    /// ([`ReplicaQueues`]), on a run that takes time and a `model` with
    /// `replicas`.
    pub(super) fn keep_replica_queues(&mut self, model: &Model) {
        if !self.on || model.nodes.iter().all(|n| n.replicas.is_none()) {
            return;
        }
        let replicas: Vec<usize> = model
            .nodes
            .iter()
            .map(|n| n.replicas.map_or(0, |_| n.replica_count()))
            .collect();
        let (start, end, windows) = span_and_windows(model, self.res);
        self.replica_queues = Some(Box::new(ReplicaQueues::new(
            &replicas, start, end, &windows,
        )));
    }

    /// The queue of `node` changes by `delta` at `now`, for call `c`: the
    /// node's gauge, and its replica's where kept.
    #[inline(always)]
    fn queue_change(&mut self, node: usize, c: u32, now: Time, delta: i64) {
        self.recorder.queue(node, now, delta);
        if let Some(q) = &mut self.replica_queues {
            q.add(node, self.calls.get(c).replica as usize, now, delta);
        }
    }
}

/// A run's start and end and its named windows (`from..to`, end
/// excluded) at resolution `res`: what the recorder's windows are.
fn span_and_windows(model: &Model, res: Resolution) -> (Time, Time, Vec<(Time, Time)>) {
    let start = res.at_tick(model.start);
    let end = res.at_tick(model.ticks.saturating_add(1));
    let windows = model
        .windows
        .iter()
        .map(|w| (res.at_tick(w.from), res.at_tick(w.to.saturating_add(1))))
        .collect();
    (start, end, windows)
}

/// The event loop's side of the work queues: the component decides, this
/// keeps each message's call, the node's queue and busy levels, and the
/// events that follow.
impl Timed {
    /// True when `node` is a work queue.
    pub(super) fn is_work_queue(&self, node: usize) -> bool {
        self.queues.get(node).is_some_and(Option::is_some)
    }

    /// Message `c` reaches work queue `node` at `now`.
    pub(super) fn enqueue_message(
        &mut self,
        now: Time,
        c: u32,
        node: usize,
    ) -> Result<(), Box<SimError>> {
        let Some(q) = self.queues.get_mut(node).and_then(Option::as_mut) else {
            return Ok(());
        };
        let gen = self.calls.enter(c, Phase::Queued);
        self.calls.get_mut(c).answer = q.arrive(now, (c, gen));
        self.recorder.queue(node, now, 1);
        self.dispatch_messages(now, node)
    }

    /// Free consumers of work queue `node` take messages from the head;
    /// each one's work ends at a wake.
    pub(super) fn dispatch_messages(
        &mut self,
        now: Time,
        node: usize,
    ) -> Result<(), Box<SimError>> {
        let Some(q) = self.queues.get_mut(node).and_then(Option::as_mut) else {
            return Ok(());
        };
        let calls = &mut self.calls;
        while let Some((c, d)) = q.receive(now, |(c, g)| calls.current(c, g)) {
            self.recorder.queue(node, now, -1);
            self.recorder.busy(node, now, 1);
            let call = calls.get_mut(c);
            call.tries += 1;
            call.served = now;
            let gen = calls.enter(c, Phase::Service);
            self.events
                .schedule(now.after(d).units(), Event::Wake { call: c, gen })?;
        }
        Ok(())
    }

    /// A scheduled event of message `c` at work queue `node`: its work is
    /// over, or its redelivery wait. `Some(answer)` when the message ended:
    /// the loop completes its call with `answer`, then calls
    /// [`Self::dispatch_messages`].
    pub(super) fn message_wake(
        &mut self,
        now: Time,
        c: u32,
        node: usize,
    ) -> Result<Option<Answer>, Box<SimError>> {
        let Some(q) = self.queues.get_mut(node).and_then(Option::as_mut) else {
            return Ok(None);
        };
        let call = *self.calls.get(c);
        if call.phase == Phase::Backoff {
            let gen = self.calls.enter(c, Phase::Queued);
            q.back_from_wait((c, gen));
            self.dispatch_messages(now, node)?;
            return Ok(None);
        }
        self.recorder.busy(node, now, -1);
        let previous = (call.prev_wait != u64::MAX).then_some(call.prev_wait);
        match q.worked(now, c, call.arrived, call.tries, call.answer, previous) {
            Worked::Ended => {
                self.recorder.latency(node, now, now.since(call.arrived));
                return Ok(Some(call.answer));
            }
            Worked::Requeue => {
                self.recorder.queue(node, now, 1);
                let gen = self.calls.enter(c, Phase::Queued);
                q.back_at_head((c, gen));
            }
            Worked::Delay { wait, previous } => {
                self.recorder.queue(node, now, 1);
                self.calls.get_mut(c).prev_wait = previous.unwrap_or(u64::MAX);
                let gen = self.calls.enter(c, Phase::Backoff);
                self.events.schedule(
                    now.after(self.res.ticks(wait)).units(),
                    Event::Wake { call: c, gen },
                )?;
            }
        }
        self.dispatch_messages(now, node)?;
        Ok(None)
    }

    /// Every work queue's observations at `end`, into `obs`.
    pub(super) fn finish_queues(&mut self, end: Time, obs: &mut Observations) {
        let queues = std::mem::take(&mut self.queues);
        let Some(timed) = obs.timed.as_mut() else {
            return;
        };
        for (i, q) in queues.into_iter().enumerate() {
            if let (Some(q), Some(n)) = (q, timed.nodes.get_mut(i)) {
                n.queue = Some(q.finish(end));
            }
        }
    }
}
