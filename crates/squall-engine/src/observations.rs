//! What a run measured: per-tick series per node and for the whole system,
//! unique request ids per named window, and the final accounting.

use serde::Serialize;

/// Per-tick counters of one node. Index `t` holds tick `t`; index 0 is unused.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeSeries {
    /// The node's name.
    pub name: String,
    /// Calls the node saw (served or not).
    pub calls: Vec<u32>,
    /// Calls it answered with success.
    pub ok: Vec<u32>,
    /// Calls it answered with failure (refused, or its own tries used up).
    pub failed: Vec<u32>,
    /// Calls refused by its own capacity.
    pub refused: Vec<u32>,
    /// Request ids seen at the node this tick that it had not seen earlier
    /// in the same tick.
    pub unique: Vec<u32>,
    /// Calls its circuit breaker failed fast instead of sending.
    pub blocked: Vec<u32>,
    /// For a node with a composite response, what its responses held.
    pub composite: Option<CompositeSeries>,
}

/// Per-tick counters of a composite response.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompositeSeries {
    /// Responses with every field fresh.
    pub full: Vec<u32>,
    /// Responses answered with a field stale or missing.
    pub reduced: Vec<u32>,
    /// Fresh fields in answered responses.
    pub fresh: Vec<u32>,
    /// Fields served from the ledger in answered responses.
    pub stale: Vec<u32>,
    /// Fields left out of answered responses.
    pub missing: Vec<u32>,
    /// Bytes of answered responses.
    pub bytes: Vec<u64>,
}

impl CompositeSeries {
    fn new(ticks: u64) -> Self {
        let n = ticks as usize + 1;
        CompositeSeries {
            full: vec![0; n],
            reduced: vec![0; n],
            fresh: vec![0; n],
            stale: vec![0; n],
            missing: vec![0; n],
            bytes: vec![0; n],
        }
    }
}

impl NodeSeries {
    fn new(name: &str, ticks: u64) -> Self {
        let n = ticks as usize + 1;
        NodeSeries {
            name: name.to_string(),
            calls: vec![0; n],
            ok: vec![0; n],
            failed: vec![0; n],
            refused: vec![0; n],
            unique: vec![0; n],
            blocked: vec![0; n],
            composite: None,
        }
    }
}

/// Where every request ended up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct Accounting {
    /// Requests that entered from sources.
    pub entered: u64,
    /// Requests answered with success.
    pub completed: u64,
    /// Requests that failed after their last try.
    pub dropped: u64,
    /// Requests still waiting (for a retry) when the run ended.
    pub in_flight: u64,
}

impl Accounting {
    /// True when every request is accounted for.
    pub fn balances(&self) -> bool {
        self.entered == self.completed + self.dropped + self.in_flight
    }
}

/// Everything one run measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Observations {
    /// Length of the run in ticks.
    pub ticks: u64,
    /// Per-node series, in node order.
    pub nodes: Vec<NodeSeries>,
    /// New requests per tick.
    pub arrivals: Vec<u32>,
    /// Requests answered with success per tick.
    pub completed: Vec<u32>,
    /// Requests dropped per tick.
    pub dropped: Vec<u32>,
    /// Requests completed per tick without a retry anywhere on their path.
    pub first_try: Vec<u32>,
    /// Distinct request ids seen per window (outer) and node (inner).
    pub window_unique: Vec<Vec<u64>>,
    /// The final accounting.
    pub accounting: Accounting,
    /// Events processed.
    pub events: u64,
    /// The most requests in flight at once.
    pub peak_in_flight: u64,
    /// Calls each scripted route answered: `[node][route]`.
    pub route_calls: Vec<Vec<u64>>,
    /// Operations of each sequential source, in order: `[source][op]`.
    pub ops: Vec<Vec<OpRecord>>,
    /// Decisions of each node's circuit breaker: `[node][row]`, at most
    /// [`TRACE_LIMIT`] rows per node.
    pub traces: Vec<Vec<TraceRow>>,
    /// Breaker decisions left out of `traces` past the limit, per node.
    pub trace_dropped: Vec<u64>,
    /// What a run that takes time measured beyond the per-tick counters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timed: Option<crate::timed_observations::TimedObservations>,
}

/// The most breaker decisions kept per node.
pub const TRACE_LIMIT: usize = 100_000;

/// How one operation of a sequential source went.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpRecord {
    /// Its label.
    pub label: String,
    /// Tick it started.
    pub start: u64,
    /// Tick it ended.
    pub end: u64,
    /// Tries the entry node made.
    pub tries: u32,
    /// Its outcome, in words.
    pub outcome: String,
    /// True when it succeeded.
    pub success: bool,
    /// The entry node's waits before each retry \[ticks\].
    pub waits: Vec<u64>,
}

/// One decision of a circuit breaker.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceRow {
    /// The tick of the call.
    pub time: u64,
    /// Whether the call was sent.
    pub sent: bool,
    /// The request path a `per path` breaker guards; empty for a breaker
    /// over all calls.
    pub scope: String,
    /// The state the call found.
    pub before: &'static str,
    /// The call's outcome, in words.
    pub outcome: String,
    /// The state after the answer.
    pub after: &'static str,
}

impl Observations {
    pub(crate) fn new(ticks: u64, node_names: &[&str], windows: usize) -> Self {
        let n = ticks as usize + 1;
        Observations {
            ticks,
            nodes: node_names
                .iter()
                .map(|name| NodeSeries::new(name, ticks))
                .collect(),
            arrivals: vec![0; n],
            completed: vec![0; n],
            dropped: vec![0; n],
            first_try: vec![0; n],
            window_unique: vec![vec![0; node_names.len()]; windows],
            accounting: Accounting::default(),
            events: 0,
            peak_in_flight: 0,
            route_calls: Vec::new(),
            ops: Vec::new(),
            traces: Vec::new(),
            trace_dropped: vec![0; node_names.len()],
            timed: None,
        }
    }

    /// Adds composite-response series to the nodes that have one.
    pub(crate) fn with_composites(mut self, composite: &[bool]) -> Self {
        for (s, &c) in self.nodes.iter_mut().zip(composite) {
            if c {
                s.composite = Some(CompositeSeries::new(self.ticks));
            }
        }
        self
    }

    /// Sum of `series` over ticks `from..=to`.
    pub fn sum(series: &[u32], from: u64, to: u64) -> u64 {
        let to = (to as usize).min(series.len().saturating_sub(1));
        let from = (from as usize).min(to + 1);
        series[from..=to].iter().map(|&x| u64::from(x)).sum()
    }
}
