//! The run model of calls that take time: a node as a server (latency,
//! workers, queue, rate limit), the caller's per-try timeout, a source's
//! deadline, and faults that change latency or fail a share of calls.
//!
//! Every duration here is in *ticks of the file's clock*, as a fraction
//! (`0.4` under `clock ms` is 0.4 ms); the engine turns them into its own
//! finer units when a run starts. Rates are per tick. Semantics: DESIGN,
//! "Calls that take time".

use serde::Serialize;

use super::QueueDiscipline;

/// A service-time distribution \[ticks\].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum LatencySpec {
    /// Always the same.
    Constant(f64),
    /// Uniform between `low` and `high`.
    Uniform {
        /// Shortest.
        low: f64,
        /// Longest.
        high: f64,
    },
    /// Exponential with the given mean.
    Exponential {
        /// Mean.
        mean: f64,
    },
    /// Normal, clipped at zero.
    Normal {
        /// Mean (before clipping).
        mean: f64,
        /// Standard deviation.
        sd: f64,
    },
    /// Lognormal, given its median and 99th percentile.
    LogNormal {
        /// Median.
        p50: f64,
        /// 99th percentile.
        p99: f64,
    },
    /// An empirical table of quantiles: `(share in [0, 1], ticks)`,
    /// increasing in both; linear in between, the first value below the
    /// first share, the last value above the last.
    Table(Vec<(f64, f64)>),
}

impl LatencySpec {
    /// The distribution's mean \[ticks\] (for a table: of the piecewise-linear
    /// quantile function), used by the work estimate and the tests.
    pub fn mean(&self) -> f64 {
        match self {
            LatencySpec::Constant(c) => *c,
            LatencySpec::Uniform { low, high } => (low + high) / 2.0,
            LatencySpec::Exponential { mean } => *mean,
            LatencySpec::Normal { mean, .. } => mean.max(0.0),
            LatencySpec::LogNormal { p50, p99 } => {
                let sigma = lognormal_sigma(*p50, *p99);
                p50 * (sigma * sigma / 2.0).exp()
            }
            LatencySpec::Table(points) => {
                let mut area = 0.0;
                let mut prev: Option<(f64, f64)> = None;
                for &(q, v) in points {
                    match prev {
                        None => area += q * v,
                        Some((pq, pv)) => area += (q - pq) * (v + pv) / 2.0,
                    }
                    prev = Some((q, v));
                }
                if let Some((q, v)) = prev {
                    area += (1.0 - q) * v;
                }
                area
            }
        }
    }
}

/// The standard normal's 99th percentile.
pub const Z99: f64 = 2.326_347_874_040_841;

/// The sigma of a lognormal with median `p50` and 99th percentile `p99`.
pub fn lognormal_sigma(p50: f64, p99: f64) -> f64 {
    ((p99 / p50).ln() / Z99).max(0.0)
}

/// The room of a queue without bound (`queue unbounded`, or `workers N`
/// with no `queue` line): more calls than any run can hold.
pub const UNBOUNDED_QUEUE: u64 = u64::MAX;

/// A node as a server: its own service time, workers and queue, rate limit.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ServerSpec {
    /// Service time per call; none: the node's own work takes no time.
    pub latency: Option<LatencySpec>,
    /// Extra service time per call already in service when a call starts
    /// \[ticks per call\] (a load-dependent term).
    pub per_call: f64,
    /// Calls served at once; none: no limit.
    pub workers: Option<u32>,
    /// Calls waiting for a worker, at most; none with `workers`: no room
    /// ([`UNBOUNDED_QUEUE`]: no bound, what `workers N` alone and `queue
    /// unbounded` resolve to).
    pub queue: Option<u64>,
    /// The longest a call waits in the queue before it fails \[ticks\].
    pub queue_timeout: Option<f64>,
    /// Which queued call a freed worker takes (`discipline
    /// fifo|lifo|adaptive_lifo`).
    #[serde(skip_serializing_if = "QueueDiscipline::is_fifo")]
    pub discipline: QueueDiscipline,
    /// A token-bucket rate limit.
    pub rate_limit: Option<RateLimitSpec>,
    /// `optimistic [conflict CODE]`: the node holds one versioned item and
    /// each call is an optimistic-concurrency write of it; the status a
    /// write that lost the race answers (409 by default). Left out of the
    /// model's JSON when absent, so a model without it serializes as before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optimistic: Option<u32>,
    /// `optimistic items N`: the versioned items writes spread over, each
    /// write to one picked uniformly (0 and 1 both mean one item; left out
    /// of the model's JSON then).
    #[serde(skip_serializing_if = "one_item")]
    pub optimistic_items: u32,
}

/// True for one versioned item (`optimistic` without `items`).
fn one_item(n: &u32) -> bool {
    *n <= 1
}

/// A token bucket in front of a node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RateLimitSpec {
    /// Tokens added per tick (may be below one).
    pub rate: f64,
    /// The most tokens the bucket holds.
    pub burst: f64,
    /// The status a throttled call answers (429 by default).
    pub status: u32,
    /// Whether the answer carries a Retry-After: the time until the next
    /// token.
    pub retry_after: bool,
    /// A call without a token waits for one (in arrival order) instead of
    /// answering `status`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub wait: bool,
    /// With `wait`: the longest a call waits \[ticks\]; one that would
    /// wait longer answers `status` at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_wait: Option<f64>,
}

/// The caller's side of a node's calls downstream.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct CallerSpec {
    /// Per-try timeout \[ticks\].
    pub timeout: Option<f64>,
    /// On a timeout, cancel the try: the callee stops and frees its worker.
    pub cancel: bool,
}

impl CallerSpec {
    /// True when the node sets no timeout.
    pub fn is_empty(&self) -> bool {
        *self == CallerSpec::default()
    }
}

/// A deadline a source sets on its requests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeadlineSpec {
    /// Time from the request's start \[ticks\].
    pub after: f64,
    /// Whether nodes below the entry know it (and stop working past it).
    pub propagate: bool,
}

/// What a fault does to calls that take time, while in force.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct TimedFault {
    /// Multiplies the node's service time.
    pub latency_factor: Option<f64>,
    /// Adds to the node's service time \[ticks\].
    pub latency_add: Option<f64>,
    /// `latency + D jitter J`: each call's addition is drawn uniformly in
    /// `D - J .. D + J`, and never below 0 \[ticks\].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_jitter: Option<f64>,
    /// Fails this share of calls (`0..=1`) with this status.
    pub errors: Option<(f64, u32)>,
    /// Workers while in force.
    pub workers: Option<u32>,
    /// `answer latency + D`: delays every answer the node (or the link's
    /// callee) sends back \[ticks\].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer_add: Option<f64>,
    /// `answer latency + D jitter J`: the answer's delay drawn as
    /// `latency_jitter` draws the addition \[ticks\].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer_jitter: Option<f64>,
    /// `partition`: a link loses every try and every answer.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partition: bool,
}

impl TimedFault {
    /// True when the fault changes nothing about time.
    pub fn is_empty(&self) -> bool {
        *self == TimedFault::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn means() {
        assert_eq!(LatencySpec::Constant(3.0).mean(), 3.0);
        assert_eq!(
            LatencySpec::Uniform {
                low: 2.0,
                high: 4.0
            }
            .mean(),
            3.0
        );
        // A table 0..10 linear over [0, 1]: mean 5.
        assert_eq!(
            LatencySpec::Table(vec![(0.0, 0.0), (1.0, 10.0)]).mean(),
            5.0
        );
        // Lognormal with p99 = p50: sigma 0, mean = median.
        assert_eq!(lognormal_sigma(5.0, 5.0), 0.0);
        let ln = LatencySpec::LogNormal {
            p50: 5.0,
            p99: 80.0,
        };
        let sigma = (16.0f64).ln() / Z99;
        assert!((ln.mean() - 5.0 * (sigma * sigma / 2.0).exp()).abs() < 1e-12);
    }
}
