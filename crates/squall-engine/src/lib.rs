//! # squall-engine
//!
//! The discrete-event core of squall. Input is a resolved
//! [`squall_lang::Model`]; output is raw [`Observations`]: per-tick counters
//! per node, unique request ids per window, and an accounting of every
//! request. The engine knows nothing about reports or files, and writes no
//! words: answers, breaker states and trace rows are enums and numbers that
//! the report crate puts into words. A model in which calls take time
//! (latency, workers, timeouts, deadlines) also gets
//! [`observe::TimedObservations`]: latency quantiles, queue and service
//! levels, timeouts and wasted work per node and window.
//!
//! ```
//! use squall_lang::{Model, NodeSpec, SourceSpec};
//! use squall_engine::Simulation;
//!
//! let model = Model {
//!     name: "two nodes".into(),
//!     ticks: 10,
//!     start: 1,
//!     nodes: vec![
//!         NodeSpec { name: "api".into(), downstream: Some(1), ..Default::default() },
//!         NodeSpec { name: "db".into(), capacity: Some(5), ..Default::default() },
//!     ],
//!     sources: vec![SourceSpec { name: "users".into(), entry: 0, rate: 2.0, ..Default::default() }],
//!     ..Default::default()
//! };
//! let obs = Simulation::builder(&model).build()?.run()?;
//! assert_eq!(obs.accounting.entered, 20);
//! assert_eq!(obs.accounting.completed, 20);
//! # Ok::<(), squall_engine::SimError>(())
//! ```
//!
//! # Where each component lives
//!
//! | concern                                   | file                                   |
//! |-------------------------------------------|----------------------------------------|
//! | building and running a simulation         | [`simulation`] (`builder.rs`, `runner.rs`) |
//! | a node's caller side: breakers (own, per path, per client), retry budgets (own, per client) and the counts Envoy reads, per-try timeout, cancel, hedging | `caller/` (`CallerSide`, `Breakers`, `Budgets`) |
//! | a call down the path and back up          | `simulation/call.rs` (a node's own answer: `ServerSide::own_answer`; what each path position holds: `simulation/plan.rs`) |
//! | the same on a run that takes time         | `simulation/timed/` (`flow/` the loop; `arrival.rs`, `composite.rs`: the `Timed` side of the server's stage; map in `timed/mod.rs`) |
//! | hedged tries                              | `caller/hedge.rs` (`Hedges`)           |
//! | retry gates (own, per client)             | `caller/gate.rs` (`Gates`); the rule in `policy/gate.rs` |
//! | adaptive concurrency limits (AIMD, Vegas, Gradient2, Envoy; own, per client) | [`policy::limiter`] (`Limiter`, one file per kind), held by `CallerSide` in a `PerClient`; asked in `timed/flow/mod.rs` (`send_try`), told in `time_out`, `complete_call` and `cancel_chain` |
//! | client-side throttling (own, per client)  | `caller/throttle.rs` (`Throttles`), asked in `simulation/call.rs` and `timed/flow/` as the breaker is; the rule in `policy/throttle.rs` |
//! | per-request and per-node state            | `simulation/requests.rs`, `simulation/node_state.rs` |
//! | sources and sequential operations         | `simulation/source.rs`, `simulation/operation.rs` |
//! | an open-loop source's gaps in time (timed sources, fed senders) | `arrivals.rs` (`OpenLoop`) |
//! | providers, senders and their one run (document 004) | [`sending`] (map in `sending/mod.rs`) |
//! | the event queue                           | [`queue`]                              |
//! | random streams and generators             | [`rng`]                                |
//! | what a call answers                       | [`outcome`]                            |
//! | retry: classification, limits, deadline   | [`policy::retry`]                      |
//! | backoff waits (and the one sampler)       | [`policy::backoff`]                    |
//! | circuit breaker                           | [`policy::breaker`]                    |
//! | a node as a server, on every path         | `server/node.rs` (`ServerSide`; map in `server/mod.rs`) |
//! | workers, queue and its discipline         | `server/station.rs`                    |
//! | priority classes, adaptive LIFO, CoDel's shedding | `server/ordered.rs`; the rule in `policy/codel.rs` |
//! | replicas behind a balancer                | `server/replicas.rs` (`Replicas`)      |
//! | optimistic-concurrency writes             | `server/versioned.rs` (`Versioned`)    |
//! | work queues: consumers, poison, redelivery | `server/work_queue.rs` (`WorkQueue`)   |
//! | capacity per tick                         | `server/capacity.rs`                   |
//! | failing faults                            | `server/fault.rs`                      |
//! | a link's steady latency, faults on a link, and on the answer leg (timed path) | `simulation/timed/links.rs` (`Links`: what a link does to a try or an answer), `timed/on_link.rs` (a call on a link); a fault latency's jitter: `server/keyed.rs` (`jittered`) |
//! | scripted routes                           | `server/script.rs`                     |
//! | composite responses and the ledger        | `server/composite.rs` (`Assembly`)     |
//! | composite responses with time             | `server/composite.rs` (`Fetches`), `simulation/timed/composite.rs` (its wakes) |
//! | a run's work and memory, estimated        | `simulation/timed/estimate.rs`         |
//! | what a run measured                       | [`observe`] (`observations.rs`)        |
//! | per-tick series                           | [`observe::series`]                    |
//! | the accounting of requests                | [`observe::accounting`]                |
//! | breaker traces (a sent try's row on the timed path: `SentTry`) | [`observe::trace`] |
//! | sequential operations' records            | [`observe::operation`]                 |
//! | distinct ids per window                   | `observe/windows.rs`                   |
//! | why a model or run is refused             | [`error`]                              |
//!
//! Data flows one way: `simulation` drives `caller`, `policy`, `server`
//! and `observe`; those never call back into `simulation`. Both paths of
//! `simulation` (zero-time and timed) call one `CallerSide` per node
//! through the same methods, in a try's order: `first_try` (the request's
//! retry loop opens), `breakers.admit` (the breaker decides; a throttle,
//! `throttles.admit`, at a node that throttles),
//! `sent`/`back` (a try in flight, timed only), `breakers.answered` (the
//! breaker hears the answer and its duration), `retry_closed`,
//! `budgets.next_try` (the wait before the next try, gated by the
//! budget) and `leave`. A new breaker or budget kind is
//! a variant in `policy/` and its syntax in the language; `caller/` and
//! `simulation/` do not change. On the server side every path picks a
//! replica (`Replicas::pick`) and calls that replica's `ServerSide`: a new
//! queue discipline is a variant in `server/station.rs` (wired once in
//! `server/node.rs`) and its syntax, as LIFO was (e9edbbc), or an `Order`
//! of `server/ordered.rs`, as adaptive LIFO is. Time is integer
//! ticks (`time.rs`).
#![warn(missing_docs)]

mod arrivals;
mod caller;
pub mod error;
pub mod observe;
pub mod outcome;
pub mod policy;
pub mod queue;
pub mod rng;
pub mod sending;
mod server;
pub mod simulation;
pub mod time;

pub use error::SimError;
pub use observe::{
    Accounting, CompositeSeries, NodeSeries, Observations, Observe, OpRecord, ReplicaCounts,
    ReplicaWindow, Slots, TraceRow,
};
pub use policy::backoff::{sample_wait, BackoffWaits};
pub use simulation::{Simulation, SimulationBuilder, DEFAULT_WORK};
