//! The report items that are not tables: isolation, waits, herd,
//! diagnose, chart, and the parts of a `line` template.

use serde::Serialize;

use super::{ChartSeries, Metric, RExpr};

/// `isolation "title" of NODE { variants [..] window W }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IsolationSpec {
    /// Title.
    pub title: String,
    /// The node with the composite response.
    pub node: usize,
    /// One row per variant.
    pub variants: Vec<usize>,
    /// The window measured.
    pub window: usize,
}

/// `waits "title" { policies [...] attempts n rng r }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WaitsSpec {
    /// Title.
    pub title: String,
    /// Named backoff policies, by index in `Model::backoffs`.
    pub policies: Vec<usize>,
    /// Rows: retries 1..=attempts.
    pub attempts: u32,
    /// The generator every jittered column draws from, fresh for the table.
    pub rng: Option<usize>,
}

/// `herd "title" { policy p clients n attempt k bucket b rng r }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HerdSpec {
    /// Title.
    pub title: String,
    /// Named backoff policy, by index in `Model::backoffs`.
    pub policy: usize,
    /// Clients failing at the same instant.
    pub clients: u32,
    /// Which retry's wait (1 = after the first failed try).
    pub attempt: u32,
    /// Bucket width \[ticks\].
    pub bucket: u64,
    /// The generator, fresh for the herd.
    pub rng: Option<usize>,
}

/// A piece of a `line` template.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum LinePart {
    /// Literal text.
    Text(String),
    /// A value, printed with so many digits after the point.
    Value(RExpr, usize),
}

/// `diagnose node in window vs baseline [against variant]`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiagnoseSpec {
    /// The node whose calls are examined.
    pub node: usize,
    /// The window under suspicion.
    pub window: usize,
    /// The normal window.
    pub baseline: usize,
    /// A variant whose served calls are compared.
    pub against: Option<usize>,
}

/// `chart ["title"] metric [at node]`: the metric per time bin, one line per
/// variant; `chart ["title"] latency at node`: the distribution of the
/// node's latency over the run, one histogram per variant;
/// `chart breaker_open at node` and `chart send_rate at sender`: a
/// [`ChartSeries`] per time bin.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChartSpec {
    /// Title, if given (otherwise the chart says what it draws).
    pub title: Option<String>,
    /// The metric (`latency_mean` for a latency distribution).
    pub metric: Metric,
    /// The node, by index, for a metric measured at a node.
    pub node: Option<usize>,
    /// True for `latency`: a histogram of the node's latency, not a line
    /// over time.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub distribution: bool,
    /// A series that is not a window metric (`breaker_open at NODE`,
    /// `send_rate at SENDER`); `metric` is then unused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub series: Option<ChartSeries>,
}
