//! What a run that takes time measured beyond the per-tick counters: per
//! node latency quantiles, timeouts, queue and service levels, wasted work,
//! per named window (exact, from event times), per bin of the run's series
//! and over the whole run; end to end latency per source; and the
//! accounting of every call.
//!
//! Durations are in engine units (`units_per_tick` per tick of the file's
//! clock); levels are calls.

use serde::Serialize;

use crate::observe::histogram::Quantiles;
use crate::observe::Observe;

/// The timed part of a run's observations.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct TimedObservations {
    /// Engine units per tick.
    pub units_per_tick: u64,
    /// Width of a series bin \[ticks\].
    pub bin_ticks: u64,
    /// Per node, in node order.
    pub nodes: Vec<TimedNode>,
    /// End-to-end latency of completed requests per source (entry to
    /// answer).
    pub sources: Vec<TimedSource>,
    /// End-to-end latency of the completed requests of every source.
    pub all: TimedSource,
    /// End-to-end latency of the failed requests of every source (entry to
    /// the failure the source saw: often a deadline waited out).
    pub failed: TimedSource,
    /// Where every call ended up.
    pub calls: CallAccounting,
    /// Which measures were recorded ([`Observe`]): one not recorded reads
    /// as empty (zero counts, no bins), so a reader checks this before it
    /// takes an empty histogram or a zero level for a measured one. Not
    /// serialized: every number above is as recorded.
    #[serde(skip)]
    pub observed: Observe,
}

/// Counts and levels over one stretch of time (a window, or the run).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Stretch {
    /// Response time at the node of the calls it answered (arrival to
    /// answer, queueing included).
    pub latency: Quantiles,
    /// Tries of this node downstream that timed out.
    pub timeouts: u64,
    /// Calls refused because every worker was busy and the queue full.
    pub overflow: u64,
    /// Calls that waited in the queue past the queue timeout.
    pub queue_timeouts: u64,
    /// Calls throttled by the rate limit.
    pub throttled: u64,
    /// Tries of this node downstream that its concurrency limiter did not
    /// send (the tries in flight were at the limit).
    pub limited: u64,
    /// Calls stopped by a cancellation or a propagated deadline.
    pub cancelled: u64,
    /// Calls that finished for a caller that had already given up.
    pub wasted_calls: u64,
    /// Worker time spent for callers that had already given up \[units\].
    pub wasted_busy: u64,
    /// Calls that arrived in the stretch and were answered with success,
    /// whenever the answer came: the answers to the stretch's calls.
    pub answered_ok: u64,
    /// Calls that reached the node's workers (after its faults, capacity
    /// and rate limit): served at once or queued, not refused for a full
    /// queue. Counted at their arrival.
    pub admitted: u64,
    /// Of the `admitted` calls, those that found every worker busy and
    /// waited in the queue: `waited / admitted` is P(wait).
    pub waited: u64,
    /// Time-weighted mean and highest queue length.
    pub queue_mean: f64,
    /// Highest queue length.
    pub queue_max: u64,
    /// Queue length at the stretch's end (after every change before it).
    pub queue_end: u64,
    /// Time-weighted mean of calls in service (holding a worker).
    pub in_service_mean: f64,
    /// Highest number of calls in service.
    pub in_service_max: u64,
}

/// One node.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct TimedNode {
    /// The whole run.
    pub run: Stretch,
    /// Per named window, in window order.
    pub windows: Vec<Stretch>,
    /// Per bin of the run's series, in order (`bin_ticks` wide, the last
    /// one possibly shorter; levels are means over the bin's full width).
    pub bins: Vec<Stretch>,
    /// The run's latency distribution: `(highest value of a bucket
    /// \[units\], answers in it)`, in increasing order, buckets within
    /// [`RELATIVE_ERROR`](crate::observe::histogram::RELATIVE_ERROR) of their values.
    pub distribution: Vec<(u64, u64)>,
    /// What the node measured as a work queue, if it is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue: Option<super::work_queue::WorkQueueObservations>,
}

/// One source.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct TimedSource {
    /// End-to-end latency over the run.
    pub run: Quantiles,
    /// Per named window (by the request's end).
    pub windows: Vec<Quantiles>,
    /// Per bin of the run's series (by the request's end).
    pub bins: Vec<Quantiles>,
}

/// Where every call ended up: `arrived = answered + cancelled + queued +
/// in_service + waiting + link + on_link` at the end of every run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct CallAccounting {
    /// Calls that reached a node.
    pub arrived: u64,
    /// Calls the node answered (at once, or after service).
    pub answered: u64,
    /// Calls stopped by a cancellation.
    pub cancelled: u64,
    /// Calls still in a queue at the end.
    pub queued: u64,
    /// Calls in their node's own service time at the end.
    pub in_service: u64,
    /// Calls waiting for a downstream answer or a retry at the end.
    pub waiting: u64,
    /// Tries a link fault failed or lost before they reached their node.
    #[serde(skip_serializing_if = "is_zero")]
    pub link: u64,
    /// Tries still on their way down a link at the end.
    #[serde(skip_serializing_if = "is_zero")]
    pub on_link: u64,
    /// Of `link`, the tries a link lost (`fail timeout`, `partition`)
    /// whose caller had not yet given up on them at the end: its timeout
    /// or deadline was still to come. Not a term of the balance (each is
    /// counted in `link` already); a run that ends after every caller's
    /// timeout has 0, so a lost try its caller never dropped shows here.
    #[serde(skip_serializing_if = "is_zero")]
    pub lost: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl CallAccounting {
    /// True when every call is accounted for.
    pub fn balances(&self) -> bool {
        self.arrived
            == self.answered
                + self.cancelled
                + self.queued
                + self.in_service
                + self.waiting
                + self.link
                + self.on_link
    }
}
