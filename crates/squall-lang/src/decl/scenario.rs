//! The validated scenario: every declaration of a file, names bound and the
//! call graph checked, values still as written.

use std::sync::Arc;

use indexmap::IndexMap;

use super::{FaultDecl, FeedDecl, LinkDecl, NodeDecl, SourceDecl, SweepDecl, VariantDecl};
use crate::ast::{BackoffAst, Range, RetryAst, RngAst, SendBlockAst, Timed, Value};
use crate::model::{Clock, ReportSpec};
use crate::span::Span;

/// A validated scenario: names bound, graph checked, report resolved.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// File name for messages.
    pub file: String,
    /// File text.
    pub source: Arc<str>,
    /// The scenario's name.
    pub name: String,
    /// Unit of time.
    pub clock: Clock,
    /// Root seed.
    pub seed: u64,
    /// `draws common`: every run of the file (variants, sweep points) runs
    /// under the scenario's seed itself, and a run that takes time keys
    /// its draws by request, node and try (common random numbers).
    pub common_draws: bool,
    /// `work_budget N`: the events a run may handle (`None`: the
    /// engine's default; `--work-budget` overrides it).
    pub work_budget: Option<u64>,
    /// `run` as written.
    pub run: Option<Value>,
    /// `run a..b` as written.
    pub run_range: Option<Range>,
    /// `warmup` as written.
    pub warmup: Option<Value>,
    /// `series every ...` as written.
    pub series: Option<Timed>,
    /// Unix time of tick 0 \[ms\], from `epoch`.
    pub epoch: Option<i64>,
    /// Named generators.
    pub rngs: Vec<RngAst>,
    /// Named backoff policies.
    pub backoffs: Vec<(String, BackoffAst)>,
    /// Named retry policies.
    pub policies: Vec<(String, RetryAst)>,
    /// Params with their file values.
    pub params: IndexMap<String, Value>,
    /// Nodes in order of first mention.
    pub nodes: Vec<NodeDecl>,
    /// Sources.
    pub sources: Vec<SourceDecl>,
    /// Sources that feed senders (they enter a `sender`, not a node).
    pub feeds: Vec<FeedDecl>,
    /// Faults.
    pub faults: Vec<FaultDecl>,
    /// Links with a steady latency.
    pub links: Vec<LinkDecl>,
    /// Windows.
    pub windows: Vec<(String, Range)>,
    /// Variants; when the file declares none, one implicit `base` variant.
    pub variants: Vec<VariantDecl>,
    /// Sweeps.
    pub sweeps: Vec<SweepDecl>,
    /// The report.
    pub report: ReportSpec,
    /// True when the file declared no variant.
    pub implicit_variant: bool,
    /// `provider` blocks, as written.
    pub providers: Vec<SendBlockAst>,
    /// `sender` blocks, as written.
    pub senders: Vec<SendBlockAst>,
    /// Every replica a report expression reads (`api[1].calls`): the node,
    /// the index, where it is written (checked against each run's
    /// `replicas`: a variant may change them) and the metric read.
    pub replica_reads: Vec<(usize, u64, Span, crate::Metric)>,
}
