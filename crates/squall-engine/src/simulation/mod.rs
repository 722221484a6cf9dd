//! The discrete-event core.
//!
//! Two paths share this module. A model in which nothing takes time runs on
//! the **zero-time path** described below, event for event as it always
//! has. A model with latency, workers, a rate limit, a per-try timeout, a
//! deadline or a timed fault ([`takes_time`]) runs on the **timed path**
//! (`timed/`: its module doc is the guide): events in nanoseconds, each try
//! a call of its own, workers held while waiting, timeouts, orphans and
//! cancellation. A model's senders and providers ([`crate::sending`]) run
//! on the timed path's loop too, in a run of their own: the `Runner`
//! holds them beside its (no) nodes, its calendar carries their events
//! as `Event::Send`, and `timed/flow/` hands each to them in one arm
//! (`sending/run.rs` is the entry and says what that run keeps of the
//! sending loop it replaced). Both use the same server side per node
//! (`server::node::ServerSide`), the same
//! caller side per node (`caller::CallerSide`: breakers,
//! budgets, the retry rule) and per-tick counters.
//!
//! # How a run proceeds
//!
//! Time is an integer count of ticks (`start..=ticks`, by default `1..=ticks`).
//! Four kinds of event exist:
//!
//! * **source tick** — a source adds its rate for the tick to an accumulator
//!   (or draws a Poisson count) and sends one new request for each whole unit
//!   into its entry node; it then schedules its own next tick.
//! * **send** — a source with `at [..]` times sends one request at each.
//! * **operation** — a `sequential` source sends its next operation in the
//!   tick its previous one ends.
//! * **retry** — a service that saw its downstream call fail makes its next
//!   try.
//!
//! Events run in `(time, sequence)` order, FIFO among equal times. (The
//! timed path adds its own: a call's wake, and a closed-loop client's next
//! request after its think time.)
//!
//! # A call
//!
//! Calls take no time: a call made in tick `t` is answered in tick `t`. A call
//! walks down the request's path (entry node, its downstream, and so on):
//! every node counts the call; a node under a fault with `fail` answers with
//! that response; then it checks its per-tick capacity (a fault may change
//! it). A node with no capacity left refuses the call, which fails back to
//! its caller. A node at the bottom of the path answers from its scripted
//! routes (the first route matching the request's method and path; 404 when
//! none does), or with success when it has none. Before a service sends a try
//! downstream, its circuit breaker (if any) decides whether the try is sent or
//! fails fast as "circuit open".
//!
//! # Retries
//!
//! When a failure reaches a service with a retry policy, the failure is
//! classified ([`crate::policy::retry::classify`]): terminal failures go straight
//! up; retryable ones are retried up to `attempts` tries, unknown ones up to
//! `unknown_attempts`. The wait before retry `n` comes from the backoff
//! policy; a jittered policy draws one number from its generator at that
//! moment (so draws happen in event order, and only when a retry is decided).
//! A server's Retry-After is a lower bound on the wait when the policy
//! honours it. With a `deadline`, a retry that would start more than the
//! deadline after the service's first try is not made.
//!
//! A failure travels up until it reaches a service with tries left; that
//! service schedules its next try after its backoff and the request waits.
//! A service whose tries are used up fails to its own caller. When the entry
//! node fails the request is *dropped*; when it succeeds the request is
//! *completed*. Nested services therefore retry like an odometer: the deepest
//! layer uses up its tries first, then the layer above retries, and its next
//! try starts the layer below afresh, so `n` layers of `k` tries can make up to
//! `k^n` calls at the bottom.
//!
//! # Memory
//!
//! Per-request state lives in a slab and is freed when the request ends, so
//! memory follows requests in flight. Unique ids per window are counted with
//! one "last tick seen" per request and node: a call at tick `t` is new for a
//! window starting at `w` when the request was last seen at that node before
//! `w`. No set of ids is kept.
//!
//! # Where the code lives
//!
//! This module is the event loop and the request's journey; the components
//! it drives live beside it: `caller/` (a node's caller side, one
//! `CallerSide` per node, which owns its breakers, retry budgets with the
//! counts an Envoy budget reads, per-try timeout and hedging),
//! [`crate::policy`] (the retry rule, backoff, the breaker and budget
//! kinds), `server/` (a node's server side, one `ServerSide` per node:
//! faults, capacity, scripts, rate limit, workers and queue with its
//! discipline, service time; composite responses and, when calls take
//! time, their fields in flight, `Fetches`) and [`crate::observe`] (what
//! is counted). The loops ask the server side at the same moments on both
//! paths (`own_answer` here; `arrive`, `join`, `service_time`, `release`
//! when calls take time) and act on what it returns.
//!
//! Both paths call the caller side at the same moments of a try's life
//! (`call.rs` here, `timed/flow/` on the timed path), through the
//! helpers in `call.rs` that pick the request's breaker and budget (its
//! client's own at its entry node, the path's under `per path`, else the
//! node's): `first_try` when a request's retry loop opens at the node;
//! `breaker_admit` (`Breakers::admit`) before each try, `refused` when
//! the breaker says no; `breaker_record` (`Breakers::answered`) with
//! the try's answer and duration (0 here); `decide`
//! (`Budgets::next_try`) after a failure; `CallerSide::leave` when the
//! request leaves the node. What stays per path is where a try's own
//! state is kept (this path's request slab, the timed path's call slab)
//! and how time passes. Here:
//!
//! * `builder` — [`SimulationBuilder`]: checks a model, prepares paths and
//!   request kinds;
//! * `kind` — what a request is (method, path, entry retry policy);
//! * `event` — the events the queue holds (a sender's among them, packed
//!   into two `u32`s so that no event is larger than before);
//! * `runner` — the event loop, sources and the counting of calls; the
//!   `Runner` also holds a run's senders (none in a run of services), and
//!   `Simulation::run_sending` starts a run of senders;
//! * `source` — how many requests a rate source sends per tick;
//! * `clients` — the clients a source stands for (`clients N`): which one
//!   a request belongs to, and which of the entry node's per-client
//!   breakers and budgets (held by its caller side) it uses;
//! * `operation` — `Operations`: the running
//!   operation of each sequential source and its record, one rule for
//!   both paths (`start`, `wait`, `ended`; the loop pushes the record and
//!   schedules the next operation);
//! * `call` — a call down the path and its answer back up: arrive, a
//!   node's own answer (the server side's `own_answer`, and a composite
//!   response's fields fetched and assembled), admit, deliver, retry waits,
//!   finish; and the caller-side helpers both paths call;
//! * `plan` — each path position as the zero-time walk reads it: its
//!   node and which of the caller side's components it holds (`Step`);
//! * `requests` — the per-request slab (`keep`: which of its arrays a
//!   model needs; `last_seen`: the last tick per request and node);
//! * `tick` — the zero-time path's counts of the tick being run (calls,
//!   distinct ids, refusals and answers per node, distinct ids per named
//!   window), added to the series when the loop moves on;
//! * `node_state` — per-node state, one field per component (its caller
//!   side among them);
//! * `timed/` — the timed path (its module doc is the guide): its loop is
//!   `timed/flow/`, the only `impl Runner` there; the rest is owned by
//!   `Timed` and its parts, which return what to do or schedule (a call
//!   at its node in `timed/arrival.rs` and a response's fields in
//!   `timed/composite.rs`, around the server side's decisions; sources' next events in
//!   `timed/sources.rs` and `timed/source_events.rs`, the request and
//!   call ledger in `timed/ledger.rs`, the end of a run in
//!   `timed/finish.rs`), and by the caller side's `Hedges` for hedged
//!   tries. Its module doc has the map.

mod accumulator;
mod builder;
mod call;
mod clients;
mod event;
mod keep;
mod kind;
mod last_seen;
mod node_state;
mod operation;
mod plan;
mod requests;
mod runner;
mod source;
mod tick;
mod timed;

use squall_lang::Model;

use crate::error::SimError;

pub use builder::{SimulationBuilder, MAX_SERIES_MIB};
use kind::Kind;

pub use timed::{default_bin, estimate, series_bin, slots, takes_time, Estimate};

pub(crate) use crate::time::NEVER;

/// The column of a node a run counts no distinct ids at.
const NO_COLUMN: u32 = u32::MAX;

/// A prepared run of one model.
#[derive(Debug, Clone)]
pub struct Simulation<'m> {
    model: &'m Model,
    seed: u64,
    /// The run stops with [`SimError::WorkBudget`] past this many events.
    max_events: u64,
    paths: Vec<Vec<usize>>,
    /// Each path's positions as the zero-time walk reads them.
    steps: Vec<Vec<plan::Step<'m>>>,
    /// Per node: where a run keeps a request's last tick there, among
    /// the nodes it counts distinct ids at
    /// ([`SimulationBuilder::distinct_ids_at`]); [`NO_COLUMN`] at the
    /// others.
    column: Vec<u32>,
    /// The nodes asked for by [`SimulationBuilder::distinct_ids_at`]
    /// (sorted, each once), or `None`: every node.
    distinct_at: Option<Vec<usize>>,
    /// Request kinds, and where each source's kinds start.
    kinds: Vec<Kind>,
    kind_base: Vec<u32>,
    /// How many distinct request paths there are, and which.
    scopes: usize,
    scope_names: Vec<String>,
    /// Keep a row per answered call, at most this many.
    call_log: Option<usize>,
    /// Keep every change of breaker state ([`SimulationBuilder::breaker_log`]).
    breaker_log: bool,
    /// Count each replica per named window
    /// ([`SimulationBuilder::replica_windows`]).
    replica_windows: bool,
    /// Record each replica's latency per named window as well
    /// ([`SimulationBuilder::replica_latency`]).
    replica_latency: bool,
    /// Record each replica's queue per named window
    /// ([`SimulationBuilder::replica_queue`]).
    replica_queue: bool,
    /// Run on the timed path even when nothing takes time
    /// ([`SimulationBuilder::force_timed`]).
    force_timed: bool,
    /// What the timed path records ([`SimulationBuilder::observe`]).
    observe: crate::observe::Observe,
}

/// The default work budget of a run \[events\], beyond one source tick per
/// source and tick: a run that retries without end (ten layers of ten tries
/// with no wait make 10^10 tries per request) stops within seconds instead
/// of hours. Ordinary runs handle a few million events.
pub const DEFAULT_WORK: u64 = 100_000_000;

impl<'m> Simulation<'m> {
    /// Starts building a run of `model`.
    pub fn builder(model: &'m Model) -> SimulationBuilder<'m> {
        SimulationBuilder {
            model,
            seed: model.seed,
            work: DEFAULT_WORK,
            call_log: None,
            breaker_log: false,
            replica_windows: false,
            replica_latency: false,
            replica_queue: false,
            memory_mib: None,
            force_timed: false,
            observe: crate::observe::Observe::EVERYTHING,
            distinct_at: None,
        }
    }
}
