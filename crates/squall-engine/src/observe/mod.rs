//! What a run measures: the engine's output, and the small trackers that
//! fill it.
//!
//! * [`observations`] — [`Observations`], everything one run measured.
//! * [`series`] — counters per slot per node ([`NodeSeries`]) and per
//!   composite response ([`CompositeSeries`]).
//! * [`slots`] — how those counters are cut in time ([`Slots`]): per tick
//!   on a run that takes no time, per bin of the series on one that does.
//! * [`accounting`] — where every request ended up ([`Accounting`]).
//! * [`call_log`] — one row per answered call, when asked for
//!   ([`CallLog`]).
//! * [`breaker_log`] — when each circuit breaker changed state
//!   ([`BreakerLog`]).
//! * [`trace`] — a circuit breaker's decisions ([`TraceRow`]) and the
//!   per-node row limit.
//! * [`operation`] — how each operation of a sequential source went
//!   ([`OpRecord`]).
//! * [`timed`] — what a run that takes time measured beyond the per-tick
//!   counters ([`TimedObservations`]), from [`histogram`] (latency with a
//!   bounded relative error), [`binned_latency`] (its quantiles per bin)
//!   and [`gauge`] (time-weighted levels in bins).
//! * [`replica_windows`] — a replicated node's counts per named window
//!   and replica ([`ReplicaWindow`]), when a report reads one replica;
//!   [`replica_queues`] its replicas' queues, when it reads one's queue.
//! * [`observed`] — which of those timed measures a run records
//!   ([`Observe`]: everything by default).
//! * `windows` — which named windows hold the current tick, for counting
//!   distinct request ids per window.
//!
//! Series are indexed by slot; counts are calls or requests; waits and
//! times are ticks. Nothing here is in words: the report crate words
//! answers and breaker states.

pub mod accounting;
pub mod binned_latency;
pub mod breaker_log;
pub mod call_log;
pub mod gauge;
pub mod histogram;
pub mod observations;
pub mod observed;
pub mod operation;
pub mod replica_queues;
pub mod replica_windows;
pub mod series;
pub mod slots;
pub mod timed;
pub mod trace;
pub(crate) mod windows;
pub mod work_queue;

pub use accounting::Accounting;
pub use breaker_log::{BreakerChange, BreakerLog};
pub use call_log::{CallLog, CallRow};

pub use observations::{Observations, ReplicaCounts};
pub use observed::Observe;
pub use operation::OpRecord;
pub use replica_queues::ReplicaQueue;
pub use replica_windows::ReplicaWindow;
pub use series::{CompositeSeries, NodeSeries};
pub use slots::Slots;
pub use timed::TimedObservations;
pub use trace::{TraceRow, TRACE_LIMIT};
pub use work_queue::{QueueCounts, QueueStretch, WorkQueueObservations};
