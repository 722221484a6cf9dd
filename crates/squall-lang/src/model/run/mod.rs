//! The run model: what the engine runs.
//!
//! A [`Model`] is one fully resolved run: every param substituted, every
//! duration and rate converted to ticks of the file's clock, every name bound
//! to an index. It is plain data; a test can build one by hand. One file per
//! component: nodes and their policies (`retry`, `backoff`, `breaker`),
//! responses and composite responses, sources and their requests, faults,
//! windows, generators and the clock.

mod backoff;
mod breaker;
mod budget;
mod clients;
mod clock;
mod composite;
mod discipline;
mod fault;
mod hedge;
mod library_backoff;
mod library_breaker;
mod limiter;
mod link;
mod node;
mod replicas;
mod request;
mod response;
mod retry;
mod rng;
mod source;
mod throttle;
mod timing;
mod window;
mod work_queue;

pub use backoff::Backoff;
pub use breaker::BreakerSpec;
pub use budget::BudgetSpec;
pub use clients::ClientsSpec;
pub use clock::Clock;
pub use composite::{CompositeSpec, Degradation, FieldSpec, LedgerSpec};
pub use discipline::{AdaptiveLifo, CodelFifo, QueueDiscipline};
pub use fault::{FaultSpec, Periodic};
pub use hedge::HedgeSpec;
pub use library_backoff::{LibraryBackoff, Pushback};
pub use library_breaker::LibraryBreakerSpec;
pub use limiter::{AimdSpec, EnvoySpec, Gradient2Spec, LimiterSpec, VegasSpec};
pub use link::LinkSpec;
pub use node::{NodeSpec, RouteSpec, StepSpec};
pub use replicas::{Balance, ReplicaSpec, MAX_REPLICAS};
pub use request::{Method, RequestSpec};
pub use response::{ResponseSpec, RetryAfter};
pub use retry::RetrySpec;
pub use rng::{RngAlgorithm, RngSpec};
pub use source::{Arrivals, OpSpec, RatePeriod, Schedule, SourceSpec};
pub use throttle::ThrottleSpec;
pub use timing::{
    lognormal_sigma, CallerSpec, DeadlineSpec, LatencySpec, RateLimitSpec, ServerSpec, TimedFault,
    UNBOUNDED_QUEUE, Z99,
};
pub use window::WindowSpec;
pub use work_queue::{Poison, WorkQueueSpec};

use serde::Serialize;

impl Model {
    /// True when something in the run takes time (it runs on the timed
    /// path): a node's server setting, timeout or hedging, a source's
    /// deadline or closed loop, a fault that changes time, a composite
    /// field's timeout, or a work queue.
    pub fn takes_time(&self) -> bool {
        self.nodes
            .iter()
            .any(|n| n.server.is_some() || n.caller.timeout.is_some() || n.hedge.is_some())
            || self
                .sources
                .iter()
                .any(|s| s.deadline.is_some() || s.closed())
            // A link fault does not make a run take time: it needs a run
            // that does (`resolve/links.rs`).
            || self.faults.iter().any(|f| f.link.is_none() && !f.timed.is_empty())
            || self.nodes.iter().any(|n| {
                n.composite
                    .as_ref()
                    .is_some_and(|c| c.fields.iter().any(|f| f.timeout.is_some()))
            })
            || self.nodes.iter().any(|n| n.work_queue.is_some())
    }
}

/// One fully resolved run of a scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Model {
    /// The scenario's name.
    pub name: String,
    /// The unit of time.
    pub clock: Clock,
    /// First tick of the run (1 unless the file says `run a..b`).
    pub start: u64,
    /// Last tick of the run; the run covers `start..=ticks`.
    pub ticks: u64,
    /// Warm-up ticks at the start of the run (simulated, meant to be left
    /// out of measurements; `after warmup` starts after them).
    pub warmup: u64,
    /// The root seed of this run's random stream.
    pub seed: u64,
    /// `draws common`: a run that takes time keys its service, error-share
    /// and jitter draws by request, node and try (common random numbers).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub common_draws: bool,
    /// Nodes in declaration order; indices are node ids.
    pub nodes: Vec<NodeSpec>,
    /// Sources of new requests.
    pub sources: Vec<SourceSpec>,
    /// Faults active in this run.
    pub faults: Vec<FaultSpec>,
    /// Links with a steady latency (`link a -> b { ... }`), in declaration
    /// order; left out of the model's JSON when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<LinkSpec>,
    /// Named windows over which the engine counts unique request ids.
    pub windows: Vec<WindowSpec>,
    /// Named random generators.
    pub rngs: Vec<RngSpec>,
    /// Named backoff policies (for report tables; services hold their own copy).
    pub backoffs: Vec<(String, Backoff)>,
    /// Width of a series bin in a run that takes time \[ticks\]; none:
    /// a default of 60 to 600 bins, a second or more on a wall clock
    /// (`squall_engine::simulation::default_bin`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub series_every: Option<u64>,
}
