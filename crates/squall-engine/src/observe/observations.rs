//! [`Observations`]: everything one run measured, the engine's output.
//!
//! System series per slot (arrivals, completions, drops, first-try
//! completions: per tick on a run that takes no time, per bin of the
//! series on one that does, see [`Slots`]), one [`NodeSeries`] per node, distinct request ids per
//! named window and node, the [`Accounting`], scripted route counts, the
//! record of every operation of a sequential source ([`OpRecord`]) and the
//! decisions of every circuit breaker ([`TraceRow`], at most
//! [`TRACE_LIMIT`](super::TRACE_LIMIT) per node). All of it is numbers and enums; the report
//! crate turns it into tables and words.

use serde::Serialize;

use super::accounting::Accounting;
use super::operation::OpRecord;
use super::series::{CompositeSeries, NodeSeries};
use super::slots::Slots;
use super::trace::TraceRow;

/// One node's counts per replica (index `r`: replica `r`).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct ReplicaCounts {
    /// Calls the replica received (its balancer's picks).
    pub calls: Vec<u64>,
    /// Calls it answered at once without serving them: a failing fault or
    /// error share, no capacity, a throttle, overflow.
    pub refused: Vec<u64>,
    /// Per named window and replica (`[window][replica]`), when the run
    /// was asked for them (`SimulationBuilder::replica_windows`) and the
    /// node has `replicas`; empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<Vec<super::replica_windows::ReplicaWindow>>,
    /// The latency of the calls each replica served, per named window and
    /// replica (`[window][replica]`, engine units), when the run was asked
    /// for it (`SimulationBuilder::replica_latency`) and took time; empty
    /// otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub latency: Vec<Vec<super::histogram::Quantiles>>,
    /// Each replica's queue per named window and replica
    /// (`[window][replica]`), when the run was asked for it
    /// (`SimulationBuilder::replica_queue`) and took time; empty
    /// otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub queue: Vec<Vec<super::replica_queues::ReplicaQueue>>,
}

/// Everything one run measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Observations {
    /// Length of the run in ticks.
    pub ticks: u64,
    /// How the series are cut in time: index `i` of every series holds
    /// slot `i` (tick `i` on a run that takes no time).
    pub slots: Slots,
    /// Per-node series, in node order.
    pub nodes: Vec<NodeSeries>,
    /// New requests per slot.
    pub arrivals: Vec<u32>,
    /// Requests answered with success per slot.
    pub completed: Vec<u32>,
    /// Requests dropped per slot.
    pub dropped: Vec<u32>,
    /// Requests completed per slot without a retry anywhere on their path.
    pub first_try: Vec<u32>,
    /// Requests completed and dropped per source and slot
    /// (`[source].0[slot]`, `[source].1[slot]`): the goodput of the
    /// requests whose path passes a node. Empty on a model with one
    /// source, whose requests are `completed` and `dropped`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub source_ends: Vec<(Vec<u32>, Vec<u32>)>,
    /// Distinct request ids seen per window (outer) and node (inner).
    pub window_unique: Vec<Vec<u64>>,
    /// The nodes whose distinct ids were counted (the series' `unique`
    /// and `window_unique`), sorted, when the run was asked to count them
    /// at some nodes only
    /// ([`SimulationBuilder::distinct_ids_at`](crate::SimulationBuilder::distinct_ids_at));
    /// `None` when every node's were. A node not listed holds 0s that
    /// were not counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distinct_at: Option<Vec<usize>>,
    /// The final accounting.
    pub accounting: Accounting,
    /// Events processed.
    pub events: u64,
    /// The most requests in flight at once.
    pub peak_in_flight: u64,
    /// Calls each scripted route answered: `[node][route]`.
    pub route_calls: Vec<Vec<u64>>,
    /// Per replica of each node, when some node has `replicas`: the calls
    /// each replica received and those it answered at once without
    /// serving them (`[node][replica]`); empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub replicas: Vec<ReplicaCounts>,
    /// Operations of each sequential source, in order: `[source][op]`.
    pub ops: Vec<Vec<OpRecord>>,
    /// Decisions of each node's circuit breaker: `[node][row]`, at most
    /// [`TRACE_LIMIT`](super::TRACE_LIMIT) rows per node.
    pub traces: Vec<Vec<TraceRow>>,
    /// Breaker decisions left out of `traces` past the limit, per node.
    pub trace_dropped: Vec<u64>,
    /// When each node's circuit breakers changed state, per node (empty
    /// for a run without breakers).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub breakers: Vec<super::breaker_log::BreakerLog>,
    /// The model's distinct request paths, in order of first appearance:
    /// the scopes of `per path` breakers, as [`TraceRow::scope`] indexes
    /// them.
    pub paths: Vec<String>,
    /// What a run that takes time measured beyond the per-tick counters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timed: Option<super::timed::TimedObservations>,
    /// Every answered call, when the run was asked to keep them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_log: Option<super::call_log::CallLog>,
}

impl Observations {
    pub(crate) fn new(ticks: u64, slots: Slots, node_names: &[&str], windows: usize) -> Self {
        let n = slots.len();
        let binned = !slots.is_per_tick();
        Observations {
            ticks,
            nodes: node_names
                .iter()
                .map(|name| NodeSeries::new(name, n, binned))
                .collect(),
            slots,
            arrivals: vec![0; n],
            completed: vec![0; n],
            dropped: vec![0; n],
            first_try: vec![0; n],
            source_ends: Vec::new(),
            window_unique: vec![vec![0; node_names.len()]; windows],
            distinct_at: None,
            accounting: Accounting::default(),
            events: 0,
            peak_in_flight: 0,
            route_calls: Vec::new(),
            replicas: Vec::new(),
            ops: Vec::new(),
            traces: Vec::new(),
            trace_dropped: vec![0; node_names.len()],
            breakers: Vec::new(),
            paths: Vec::new(),
            timed: None,
            call_log: None,
        }
    }

    /// Adds composite-response series to the nodes that have one.
    pub(crate) fn with_composites(mut self, composite: &[bool]) -> Self {
        for (s, &c) in self.nodes.iter_mut().zip(composite) {
            if c {
                s.composite = Some(CompositeSeries::new(self.slots.len()));
            }
        }
        self
    }

    /// Counts requests per source as well, on a model with more than one
    /// source (with one, the system's counters are its own).
    pub(crate) fn with_sources(mut self, sources: usize) -> Self {
        if sources > 1 {
            let n = self.slots.len();
            self.source_ends = vec![(vec![0; n], vec![0; n]); sources];
        }
        self
    }

    /// A request of `source` ended in slot `ti` with `answer` (completed,
    /// or dropped): one index add, nothing on a model with one source.
    #[inline(always)]
    pub(crate) fn source_end(&mut self, source: u32, ti: usize, answer: crate::outcome::Answer) {
        if let Some((done, dropped)) = self.source_ends.get_mut(source as usize) {
            let v = if answer == crate::outcome::Answer::Ok {
                done
            } else {
                dropped
            };
            v[ti] += 1;
        }
    }

    /// Sum of `series` over indices `from..=to` (ticks on a run that
    /// takes no time).
    pub fn sum(series: &[u32], from: u64, to: u64) -> u64 {
        let to = (to as usize).min(series.len().saturating_sub(1));
        let from = (from as usize).min(to + 1);
        series[from..=to].iter().map(|&x| u64::from(x)).sum()
    }

    /// Sum of `series` (one of this run's) over ticks `from..=to`: exact
    /// over a named window or a bin, whose edges are slot edges.
    pub fn total(&self, series: &[u32], from: u64, to: u64) -> u64 {
        let (a, b) = self.slots.range(from, to);
        Self::sum(series, a as u64, b as u64)
    }
}
