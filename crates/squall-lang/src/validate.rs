//! Syntax tree to a validated [`Scenario`], and a scenario to runnable [`Model`]s.
//!
//! Validation happens in two layers:
//!
//! 1. **Structure** ([`load`]): names are bound (nodes, sources, faults,
//!    windows, variants, sweeps, params, measures), the call graph is checked
//!    (no node calls itself, no cycles, one downstream per node), and report
//!    expressions are resolved.
//! 2. **Values** ([`Scenario::model`]): params are substituted and every value
//!    is converted to ticks of the file's clock. [`load`] resolves the base
//!    scenario, every variant and every sweep point, so a file that loads
//!    also runs, unless `--set` later gives a param a value that does not fit.
//!
//! Overrides stack in this order, the last one winning: the file's `param`
//! values, `--set` from the command line, the variant's `set` lines, the sweep
//! point's values.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use indexmap::IndexMap;
use petgraph::algo::has_path_connecting;
use petgraph::graph::{DiGraph, NodeIndex};

use crate::ast::*;
use crate::diagnostic::{did_you_mean, suggest, Diagnostic, Diagnostics};
use crate::model::*;
use crate::parse::parse_file;
use crate::span::Span;
use crate::template::{parse_template, Piece};
use crate::units;

/// The seed used when a file names none.
pub const DEFAULT_SEED: u64 = 1;

/// Most points one sweep may have (each point is a whole run).
pub const MAX_SWEEP_POINTS: usize = 10_000;

/// A node as declared: its place in the graph and its unresolved values.
#[derive(Debug, Clone)]
pub struct NodeDecl {
    /// Name.
    pub name: String,
    /// Where it was first named.
    pub span: Span,
    /// The node it calls.
    pub downstream: Option<usize>,
    /// `capacity` as written.
    pub capacity: Option<Value>,
    /// `retry { ... }` as written.
    pub retry: Option<RetryAst>,
    /// `breaker { ... }` as written.
    pub breaker: Option<BreakerAst>,
    /// Scripted routes (`endpoint`).
    pub routes: Vec<RouteAst>,
    /// Nodes it fans out to (`chain a -> [b, c]`).
    pub fanout: Vec<usize>,
    /// `response { ... }` as written.
    pub response: Option<ResponseBlockAst>,
}

/// A source as declared.
#[derive(Debug, Clone)]
pub struct SourceInfo {
    /// Name.
    pub name: String,
    /// The node it enters.
    pub entry: usize,
    /// How arrivals are spread.
    pub arrivals: Arrivals,
    /// Its `rate` lines.
    pub rates: Vec<RateAst>,
    /// `at [..]` times.
    pub times: Vec<Value>,
    /// `request ...`
    pub request: Option<RequestAst>,
    /// `sequential { op ... }`
    pub ops: Vec<OpAst>,
}

/// A fault as declared.
#[derive(Debug, Clone)]
pub struct FaultInfo {
    /// Name.
    pub name: String,
    /// The nodes it affects.
    pub nodes: Vec<usize>,
    /// When.
    pub during: Range,
    /// The capacity it imposes.
    pub capacity: Option<Value>,
    /// The answer it imposes.
    pub fail: Option<ResponseAst>,
    /// `every ...`: it strikes only periodically.
    pub every: Option<EveryAst>,
}

/// A variant: a named set of overrides.
#[derive(Debug, Clone)]
pub struct VariantSpec {
    /// The name used in paths.
    pub name: String,
    /// The label printed in reports.
    pub label: String,
    /// Its overrides.
    pub overrides: Overrides,
}

/// A sweep: the cross product of param values, each point a run.
#[derive(Debug, Clone)]
pub struct SweepSpec {
    /// Name.
    pub name: String,
    /// Label.
    pub label: String,
    /// The variant every point starts from.
    pub base: usize,
    /// Params and their values; first axis outermost.
    pub axes: Vec<(String, Vec<Value>)>,
    /// True for a sweep given on the command line (`squall sweep --vary`):
    /// its values come from outside the file, and its points are labelled
    /// `name=value` even with one axis.
    pub from_cli: bool,
}

impl SweepSpec {
    /// How many points the sweep has (the product of its axis lengths).
    pub fn len(&self) -> usize {
        self.axes
            .iter()
            .fold(1usize, |n, (_, values)| n.saturating_mul(values.len()))
    }

    /// True when an axis has no values, so the sweep has no point.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Point `i` of [`SweepSpec::points`], computed alone (the last axis
    /// varies fastest); `None` past the end.
    pub fn point(&self, i: usize) -> Option<Vec<(String, Value)>> {
        if i >= self.len() {
            return None;
        }
        let mut rest = i;
        let mut point = Vec::with_capacity(self.axes.len());
        for (name, values) in self.axes.iter().rev() {
            let n = values.len();
            point.push((name.clone(), values.get(rest % n)?.clone()));
            rest /= n;
        }
        point.reverse();
        Some(point)
    }

    /// The number of points (the same as [`SweepSpec::len`]).
    pub fn point_count(&self) -> usize {
        self.len()
    }

    /// The points in order, each a list of (param, value).
    pub fn points(&self) -> Vec<Vec<(String, Value)>> {
        let mut points: Vec<Vec<(String, Value)>> = vec![Vec::new()];
        for (name, values) in &self.axes {
            let mut next = Vec::with_capacity(points.len() * values.len());
            for p in &points {
                for v in values {
                    let mut q = p.clone();
                    q.push((name.clone(), v.clone()));
                    next.push(q);
                }
            }
            points = next;
        }
        points
    }
}

/// One param override and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    /// The param.
    pub name: String,
    /// Its new value.
    pub value: Value,
    /// `Some("--set x=1")` for values from outside the file (their spans do
    /// not point into the file).
    pub origin: Option<String>,
}

/// Changes applied to the base scenario for one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overrides {
    /// Param values, later ones winning.
    pub sets: Vec<Setting>,
    /// Faults removed, by index.
    pub without: Vec<usize>,
    /// Sources whose `rate` lines are replaced.
    pub sources: Vec<(usize, Vec<RateAst>)>,
    /// The run's seed; `None`: the scenario's.
    pub seed: Option<u64>,
}

impl Overrides {
    /// `self` followed by `later` (whose settings win).
    pub fn then(&self, later: &Overrides) -> Overrides {
        let mut o = self.clone();
        o.sets.extend(later.sets.iter().cloned());
        o.without.extend(later.without.iter().copied());
        o.sources.extend(later.sources.iter().cloned());
        o.seed = later.seed.or(o.seed);
        o
    }
}

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
    /// `run` as written.
    pub run: Option<Value>,
    /// `run a..b` as written.
    pub run_range: Option<Range>,
    /// `warmup` as written.
    pub warmup: Option<Value>,
    /// Unix time of tick 0 \[ms\], from `epoch`.
    pub epoch: Option<i64>,
    /// Named generators.
    pub rngs: Vec<RngDecl>,
    /// Named backoff policies.
    pub backoffs: Vec<(String, BackoffAst)>,
    /// Named retry policies.
    pub policies: Vec<(String, RetryAst)>,
    /// Params with their file values.
    pub params: IndexMap<String, Value>,
    /// Nodes in order of first mention.
    pub nodes: Vec<NodeDecl>,
    /// Sources.
    pub sources: Vec<SourceInfo>,
    /// Faults.
    pub faults: Vec<FaultInfo>,
    /// Windows.
    pub windows: Vec<(String, Range)>,
    /// Variants; when the file declares none, one implicit `base` variant.
    pub variants: Vec<VariantSpec>,
    /// Sweeps.
    pub sweeps: Vec<SweepSpec>,
    /// The report.
    pub report: ReportSpec,
    /// True when the file declared no variant.
    pub implicit_variant: bool,
}

/// Reads, parses and validates a scenario file.
pub fn load(file: &str, source: &str) -> Result<Scenario, Diagnostics> {
    let wrap = |list: Vec<Diagnostic>| Diagnostics::new(file, source, list);
    let ast = parse_file(source).map_err(|d| wrap(vec![d]))?;
    let mut v = Validator::new(file, source);
    let scenario = v.scenario(&ast).map(|mut s| {
        s.file = file.to_string();
        s.source = Arc::from(source);
        s
    });
    let mut list = v.errors;
    if list.is_empty() {
        if let Some(s) = &scenario {
            list.extend(s.check_all_runs());
        }
    }
    dedup(&mut list);
    match scenario {
        Some(s) if list.is_empty() => Ok(s),
        _ => Err(wrap(list)),
    }
}

/// Drops repeated diagnostics (same span and message) and sorts the rest by
/// position.
pub(crate) fn dedup(list: &mut Vec<Diagnostic>) {
    let mut seen = HashSet::new();
    list.retain(|d| seen.insert((d.span.start, d.span.end, d.message.clone())));
    list.sort_by_key(|d| d.span.start);
}

struct Validator {
    errors: Vec<Diagnostic>,
    source: String,
}

/// The names a path may use before its last segment.
struct Names<'a> {
    variants: &'a [VariantSpec],
    windows: &'a [(String, Range)],
    nodes: &'a [NodeDecl],
    faults: &'a [FaultInfo],
    measures: &'a [(String, RExpr, Needs)],
    params: &'a IndexMap<String, Value>,
    sweeps: &'a [SweepSpec],
}

/// Which parts of a row's context an expression still needs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Needs {
    variant: bool,
    window: bool,
    node: bool,
}

impl Needs {
    fn or(self, o: Needs) -> Needs {
        Needs {
            variant: self.variant || o.variant,
            window: self.window || o.window,
            node: self.node || o.node,
        }
    }
}

/// What a use site provides.
#[derive(Debug, Clone, Copy)]
struct Context {
    variant: bool,
    window: bool,
    node: bool,
    what: &'static str,
}

impl Validator {
    fn new(_file: &str, source: &str) -> Self {
        Validator {
            errors: Vec::new(),
            source: source.to_string(),
        }
    }

    fn err(&mut self, d: Diagnostic) {
        self.errors.push(d);
    }

    fn scenario(&mut self, ast: &ScenarioAst) -> Option<Scenario> {
        let mut clock: Option<(Clock, Span)> = None;
        let mut run: Option<Value> = None;
        let mut run_range: Option<Range> = None;
        let mut warmup: Option<Value> = None;
        let mut epoch: Option<i64> = None;
        let mut rngs: Vec<RngDecl> = Vec::new();
        let mut backoffs: Vec<(String, BackoffAst)> = Vec::new();
        let mut policies: Vec<(String, RetryAst)> = Vec::new();
        let mut seed: Option<u64> = None;
        let mut params: IndexMap<String, Value> = IndexMap::new();
        let mut param_spans: IndexMap<String, Span> = IndexMap::new();

        // Pass 1: clock, run, seed, params, chains (nodes).
        let mut nodes: Vec<NodeDecl> = Vec::new();
        // Name to index, so that long chains are not quadratic to read.
        let mut node_index: HashMap<String, usize> = HashMap::new();
        let mut graph: DiGraph<usize, ()> = DiGraph::new();
        let mut gidx: Vec<NodeIndex> = Vec::new();
        for item in &ast.items {
            match item {
                Item::Clock(id) => {
                    let c = match id.name.as_str() {
                        "round" | "rounds" => Clock::Round,
                        "ms" => Clock::Ms,
                        "s" => Clock::S,
                        other => {
                            self.err(
                                Diagnostic::new(format!("unknown clock `{other}`"), id.span)
                                    .label("expected `round`, `ms` or `s`")
                                    .maybe_help(did_you_mean(other, ["round", "ms", "s"])),
                            );
                            continue;
                        }
                    };
                    if clock.is_some() {
                        self.err(
                            Diagnostic::new("the clock is declared twice", id.span)
                                .label("second `clock`"),
                        );
                    }
                    clock = Some((c, id.span));
                }
                                Item::Warmup(v) => {
                    if warmup.is_some() {
                        self.err(Diagnostic::new("`warmup` is declared twice", v.span).label("second `warmup`"));
                    }
                    warmup = Some(v.clone());
                }
                Item::RunRange(r) => {
                    if run.is_some() || run_range.is_some() {
                        self.err(Diagnostic::new("`run` is declared twice", r.span).label("second `run`"));
                    }
                    run_range = Some(r.clone());
                }
                Item::Epoch(text, span) => match crate::date::parse_date(text) {
                    Some(ms) => {
                        if epoch.is_some() {
                            self.err(Diagnostic::new("`epoch` is declared twice", *span).label("second `epoch`"));
                        }
                        epoch = Some(ms);
                    }
                    None => self.err(
                        Diagnostic::new(format!("`{text}` is not a date squall can read"), *span)
                            .label("not a date")
                            .help("write an HTTP date (`Wed, 14 Jan 2026 09:00:00 GMT`) or RFC 3339 (`2026-01-14T09:00:00Z`)"),
                    ),
                },
                Item::Rng(decl) => {
                    if rngs.iter().any(|r: &RngDecl| r.name.name == decl.name.name) {
                        self.declared_twice("rng", &decl.name);
                        continue;
                    }
                    if let Some(a) = &decl.algorithm {
                        if !["mulberry32", "splitmix64"].contains(&a.name.as_str()) {
                            self.err(
                                Diagnostic::new(format!("unknown generator `{}`", a.name), a.span)
                                    .label("expected `mulberry32` or `splitmix64`")
                                    .maybe_help(did_you_mean(&a.name, ["mulberry32", "splitmix64"])),
                            );
                        }
                        if a.name == "mulberry32" {
                            if let Some((seed, span)) = decl.seed {
                                if seed > u64::from(u32::MAX) {
                                    self.err(
                                        Diagnostic::new(format!("mulberry32 takes a 32-bit seed; {seed} is larger than 4294967295"), span)
                                            .label("seed too large"),
                                    );
                                }
                            }
                        }
                    }
                    rngs.push(decl.clone());
                }
                Item::Backoff(name, b) => {
                    if backoffs.iter().any(|(n, _): &(String, BackoffAst)| *n == name.name) {
                        self.declared_twice("backoff", name);
                        continue;
                    }
                    backoffs.push((name.name.clone(), b.clone()));
                }
                Item::Policy(name, r) => {
                    if policies.iter().any(|(n, _): &(String, RetryAst)| *n == name.name) {
                        self.declared_twice("policy", name);
                        continue;
                    }
                    policies.push((name.name.clone(), r.clone()));
                }
                Item::Run(v) => {
                    if run.is_some() || run_range.is_some() {
                        self.err(
                            Diagnostic::new("`run` is declared twice", v.span)
                                .label("second `run`"),
                        );
                    }
                    run = Some(v.clone());
                }
                Item::Seed(s, span) => {
                    if seed.is_some() {
                        self.err(
                            Diagnostic::new("`seed` is declared twice", *span)
                                .label("second `seed`"),
                        );
                    }
                    seed = Some(*s);
                }
                Item::Param(name, value) => {
                    if param_spans.contains_key(&name.name) {
                        self.declared_twice("param", name);
                    } else {
                        param_spans.insert(name.name.clone(), name.span);
                        params.insert(name.name.clone(), value.clone());
                    }
                }
                                Item::Chain(ids, fan) => {
                    let mut prev: Option<usize> = None;
                    let last = ids.len();
                    for (k, id) in ids.iter().chain(fan.iter()).enumerate() {
                        let i = match node_index.get(&id.name) {
                            Some(&i) => i,
                            None => {
                                node_index.insert(id.name.clone(), nodes.len());
                                nodes.push(NodeDecl {
                                    name: id.name.clone(),
                                    span: id.span,
                                    downstream: None,
                                    capacity: None,
                                    retry: None,
                                                                        breaker: None,
                                    routes: Vec::new(),
                                    fanout: Vec::new(),
                                    response: None,
                                });
                                gidx.push(graph.add_node(nodes.len() - 1));
                                nodes.len() - 1
                            }
                        };
                                                if k >= last {
                            // A fan-out target: called by the chain's last node.
                            if let Some(p) = prev {
                                self.link_fanout(&mut nodes, &mut graph, &gidx, p, i, id.span);
                            }
                            continue;
                        }
                        if let Some(p) = prev {
                            self.link(&mut nodes, &mut graph, &gidx, p, i, id.span);
                        }
                        prev = Some(i);
                    }
                }
                _ => {}
            }
        }
        let clock = clock.map_or(Clock::Round, |(c, _)| c);
        for (_, r) in &policies {
            self.check_retry(r, &policies, &backoffs, &rngs);
        }
        for (_, b) in &backoffs {
            self.check_backoff_rng(b, &rngs);
        }
        if run.is_none() && run_range.is_none() {
            self.err(
                Diagnostic::new("the scenario has no `run` line", ast.name_span)
                    .label("this scenario")
                    .help("say how long to simulate, e.g. `run 400 rounds` or `run 60s`"),
            );
        }
        if nodes.is_empty() {
            self.err(
                Diagnostic::new("the scenario has no `chain`", ast.name_span)
                    .label("this scenario")
                    .help("declare who calls whom, e.g. `chain edge -> api -> db`"),
            );
        }
        let node_names: Vec<String> = nodes.iter().map(|n| n.name.clone()).collect();

        // Pass 2: services, sources, faults, windows.
        let mut sources: Vec<SourceInfo> = Vec::new();
        let mut faults: Vec<FaultInfo> = Vec::new();
        let mut windows: Vec<(String, Range)> = Vec::new();
        for item in &ast.items {
            match item {
                Item::Service(decl) => {
                    for (k, id) in decl.names.iter().enumerate() {
                        if decl.names[..k].iter().any(|n| n.name == id.name) {
                            self.err(
                                Diagnostic::new(
                                    format!("`{}` is named twice in one `service` line", id.name),
                                    id.span,
                                )
                                .label("second time"),
                            );
                            continue;
                        }
                        let Some(i) = self.node(&node_names, id) else {
                            continue;
                        };
                        for prop in &decl.props {
                            match prop {
                                ServiceProp::Capacity(v) => {
                                    if nodes[i].capacity.is_some() {
                                        self.err(
                                            Diagnostic::new(
                                                format!(
                                                    "the capacity of `{}` is given twice",
                                                    id.name
                                                ),
                                                v.span,
                                            )
                                            .label("second capacity"),
                                        );
                                    }
                                    nodes[i].capacity = Some(v.clone());
                                }
                                ServiceProp::Retry(r) => {
                                    if nodes[i].retry.is_some() {
                                        self.err(
                                            Diagnostic::new(
                                                format!("`{}` has two `retry` blocks", id.name),
                                                r.span,
                                            )
                                            .label("second `retry`"),
                                        );
                                    }
                                    self.expect_caller(&nodes[i], "a retry", r.span);
                                    self.check_retry(r, &policies, &backoffs, &rngs);
                                    nodes[i].retry = Some(r.clone());
                                }
                                ServiceProp::Response(r) => {
                                    if nodes[i].response.is_some() {
                                        self.err(
                                            Diagnostic::new(
                                                format!("`{}` has two `response` blocks", id.name),
                                                r.span,
                                            )
                                            .label("second `response`"),
                                        );
                                    }
                                    nodes[i].response = Some(r.clone());
                                }
                                ServiceProp::Breaker(b) => {
                                    if nodes[i].breaker.is_some() {
                                        self.err(
                                            Diagnostic::new(
                                                format!("`{}` has two breakers", id.name),
                                                b.span,
                                            )
                                            .label("second `breaker`"),
                                        );
                                    }
                                    self.expect_caller(&nodes[i], "a breaker", b.span);
                                    if b.after.is_none() {
                                        self.err(
                                            Diagnostic::new(
                                                "a `breaker` needs `after N failures`",
                                                b.span,
                                            )
                                            .label("no threshold")
                                            .help(
                                                "e.g. `breaker { after 3 failures  cooldown 5s }`",
                                            ),
                                        );
                                    }
                                    if b.cooldown.is_none() {
                                        self.err(
                                            Diagnostic::new(
                                                "a `breaker` needs a `cooldown`",
                                                b.span,
                                            )
                                            .label("no cooldown")
                                            .help(
                                                "e.g. `breaker { after 3 failures  cooldown 5s }`",
                                            ),
                                        );
                                    }
                                    nodes[i].breaker = Some(b.clone());
                                }
                            }
                        }
                    }
                }
                Item::Source(decl) => {
                    if sources.iter().any(|s| s.name == decl.name.name) {
                        self.declared_twice("source", &decl.name);
                        continue;
                    }
                    let mut entry = None;
                    let mut arrivals = Arrivals::Uniform;
                    let mut rates = Vec::new();
                    let mut times: Vec<Value> = Vec::new();
                    let mut request: Option<RequestAst> = None;
                    let mut ops: Vec<OpAst> = Vec::new();
                    for p in &decl.props {
                        match p {
                            SourceProp::Rate(r) => {
                                if r.during.is_none()
                                    && rates.iter().any(|x: &RateAst| x.during.is_none())
                                {
                                    self.err(
                                        Diagnostic::new(
                                            format!("source `{}` has two base rates", decl.name.name),
                                            r.value.span,
                                        )
                                        .label("second `rate` without `during`")
                                        .help("a source has one base rate; give a rate for a time with `rate 8/round during 101..160`"),
                                    );
                                }
                                rates.push(r.clone())
                            }
                            SourceProp::At(list) => times.extend(list.iter().cloned()),
                            SourceProp::Request(r) => {
                                self.check_request(r);
                                request = Some(r.clone());
                            }
                            SourceProp::Sequential(list) => {
                                for op in list {
                                    self.check_request(&op.request);
                                    if let Some(p) = &op.policy {
                                        if !policies.iter().any(|(n, _)| *n == p.name) {
                                            self.err(
                                                Diagnostic::new(
                                                    format!("unknown policy `{}`", p.name),
                                                    p.span,
                                                )
                                                .label("no policy of this name")
                                                .maybe_help(did_you_mean(
                                                    &p.name,
                                                    policies.iter().map(|(n, _)| n.as_str()),
                                                )),
                                            );
                                        }
                                    }
                                }
                                ops.extend(list.iter().cloned());
                            }
                            SourceProp::Enters(id) => {
                                if entry.is_some() {
                                    self.err(
                                        Diagnostic::new("a source enters one node", id.span)
                                            .label("second `enters`"),
                                    );
                                }
                                entry = self.node(&node_names, id);
                            }
                            SourceProp::Arrivals(id) => {
                                arrivals = match id.name.as_str() {
                                    "uniform" => Arrivals::Uniform,
                                    "poisson" => Arrivals::Poisson,
                                    other => {
                                        self.err(
                                            Diagnostic::new(
                                                format!("unknown arrival process `{other}`"),
                                                id.span,
                                            )
                                            .label("expected `uniform` or `poisson`")
                                            .maybe_help(did_you_mean(
                                                other,
                                                ["uniform", "poisson"],
                                            )),
                                        );
                                        Arrivals::Uniform
                                    }
                                }
                            }
                        }
                    }
                    let kinds = usize::from(!rates.is_empty())
                        + usize::from(!times.is_empty())
                        + usize::from(!ops.is_empty());
                    if kinds > 1 {
                        self.err(
                            Diagnostic::new(
                                format!(
                                    "source `{}` mixes `rate`, `at` and `sequential`",
                                    decl.name.name
                                ),
                                decl.name.span,
                            )
                            .label("one kind of schedule per source")
                            .help("split it into two sources"),
                        );
                    }
                    if !ops.is_empty() && request.is_some() {
                        self.err(
                            Diagnostic::new(
                                format!(
                                    "source `{}` has both `request` and `sequential` operations",
                                    decl.name.name
                                ),
                                decl.name.span,
                            )
                            .label("each `op` names its own request"),
                        );
                    }
                    if times.is_empty()
                        && ops.is_empty()
                        && !rates.iter().any(|r| r.during.is_none())
                    {
                        self.err(
                            Diagnostic::new(
                                format!("source `{}` has no base rate", decl.name.name),
                                decl.name.span,
                            )
                            .label("no `rate` without `during`")
                            .help("add e.g. `rate 4/round`, or send at given times with `at [0ms, 200ms]`, or run operations with `sequential { op ... }`"),
                        );
                    }
                    let has_enters = decl
                        .props
                        .iter()
                        .any(|p| matches!(p, SourceProp::Enters(_)));
                    if !has_enters {
                        self.err(
                            Diagnostic::new(
                                format!(
                                    "source `{}` does not say where its requests enter",
                                    decl.name.name
                                ),
                                decl.name.span,
                            )
                            .label("no `enters`")
                            .help("add e.g. `enters edge`"),
                        );
                    }
                    if let Some(entry) = entry {
                        sources.push(SourceInfo {
                            name: decl.name.name.clone(),
                            entry,
                            arrivals,
                            rates,
                            times,
                            request,
                            ops,
                        });
                    }
                }
                Item::Fault(decl) => {
                    if faults.iter().any(|f| f.name == decl.name.name) {
                        self.declared_twice("fault", &decl.name);
                        continue;
                    }
                    let mut node = None;
                    let mut during = None;
                    let mut capacity = None;
                    let mut fail = None;
                    let mut every: Option<EveryAst> = None;
                    let mut node_given = false;
                    for p in &decl.props {
                        match p {
                            FaultProp::On(ids) => {
                                if node_given {
                                    if let Some(id) = ids.first() {
                                        self.err(
                                            Diagnostic::new(
                                                format!(
                                                    "fault `{}` says `on` twice",
                                                    decl.name.name
                                                ),
                                                id.span,
                                            )
                                            .label("second `on`")
                                            .help("name every node in one `on a, b`"),
                                        );
                                    }
                                }
                                node_given = true;
                                let found: Vec<Option<usize>> =
                                    ids.iter().map(|id| self.node(&node_names, id)).collect();
                                node = found
                                    .iter()
                                    .all(Option::is_some)
                                    .then(|| found.into_iter().flatten().collect::<Vec<_>>());
                            }
                            FaultProp::During(r) => {
                                if during.is_some() {
                                    self.err(
                                        Diagnostic::new(
                                            format!(
                                                "fault `{}` says `during` twice",
                                                decl.name.name
                                            ),
                                            r.span,
                                        )
                                        .label("second `during`")
                                        .help("declare a second fault for a second time range"),
                                    );
                                }
                                during = Some(r.clone())
                            }
                            FaultProp::Capacity(v) => {
                                if capacity.is_some() {
                                    self.err(
                                        Diagnostic::new(
                                            format!(
                                                "fault `{}` gives its capacity twice",
                                                decl.name.name
                                            ),
                                            v.span,
                                        )
                                        .label("second `capacity`"),
                                    );
                                }
                                capacity = Some(v.clone())
                            }
                            FaultProp::Fail(r) => {
                                self.check_response(r);
                                fail = Some(r.clone());
                            }
                            FaultProp::Every(x) => every = Some(x.clone()),
                        }
                    }
                    if !node_given {
                        self.err(
                            Diagnostic::new(
                                format!(
                                    "fault `{}` does not say which node it affects",
                                    decl.name.name
                                ),
                                decl.name.span,
                            )
                            .label("no `on`")
                            .help("add e.g. `on db`"),
                        );
                    }
                    if during.is_none() && every.is_none() {
                        self.err(
                            Diagnostic::new(
                                format!("fault `{}` does not say when it happens", decl.name.name),
                                decl.name.span,
                            )
                            .label("no `during`")
                            .help("add e.g. `during 101..160`"),
                        );
                    }
                    if capacity.is_none() && fail.is_none() {
                        self.err(
                            Diagnostic::new(
                                format!("fault `{}` changes nothing", decl.name.name),
                                decl.name.span,
                            )
                            .label("no effect")
                            .help("give it an effect, e.g. `capacity 1/round` or `fail 503`"),
                        );
                    }
                    // A periodic fault with no `during` lasts the whole run.
                    let during = during.or_else(|| {
                        every.as_ref().map(|x| {
                            let mark = |m| Value {
                                kind: ValueKind::Mark(m),
                                span: x.span,
                            };
                            Range {
                                start: mark(Mark::Start),
                                end: mark(Mark::End),
                                span: x.span,
                            }
                        })
                    });
                    if let (Some(node), Some(during)) = (node, during) {
                        faults.push(FaultInfo {
                            name: decl.name.name.clone(),
                            nodes: node,
                            during,
                            capacity,
                            fail,
                            every,
                        });
                    }
                }
                Item::Window(id, range) => {
                    if windows.iter().any(|(n, _)| *n == id.name) {
                        self.declared_twice("window", id);
                        continue;
                    }
                    windows.push((id.name.clone(), range.clone()));
                }
                Item::Endpoint(decl) => {
                    let Some(i) = self.node(&node_names, &decl.node) else {
                        continue;
                    };
                    if nodes[i].downstream.is_some() || !nodes[i].fanout.is_empty() {
                        self.err(
                            Diagnostic::new(
                                format!(
                                    "`{}` calls another node, so it cannot answer from a script",
                                    decl.node.name
                                ),
                                decl.node.span,
                            )
                            .label("not at the bottom of its chain")
                            .help("scripted routes belong to the node at the bottom of a chain"),
                        );
                    }
                    if !nodes[i].routes.is_empty() {
                        self.err(
                            Diagnostic::new(
                                format!("`{}` has two `endpoint` blocks", decl.node.name),
                                decl.node.span,
                            )
                            .label("second `endpoint`"),
                        );
                    }
                    let mut names: Vec<&str> = Vec::new();
                    for r in &decl.routes {
                        if names.contains(&r.name.name.as_str()) {
                            self.declared_twice("route", &r.name);
                        }
                        names.push(&r.name.name);
                        for (k, step) in r.script.iter().enumerate() {
                            self.check_response(&step.response);
                            if k + 1 < r.script.len()
                                && step.times.is_none()
                                && step.until.is_none()
                            {
                                self.err(
                                    Diagnostic::new(
                                        "this step holds for ever, so the steps after it never answer",
                                        step.span,
                                    )
                                    .label("no `x N` and no `until`")
                                    .help("give it a count (`503 x 2 then 200`) or an end (`503 until 11s then 200`)"),
                                );
                            }
                            if step.times.is_some() && step.until.is_some() {
                                self.err(
                                    Diagnostic::new("a step lasts either `x N` calls or `until` a time, not both", step.span)
                                        .label("both `x` and `until`"),
                                );
                            }
                        }
                    }
                    nodes[i].routes = decl.routes.clone();
                }
                _ => {}
            }
        }

        for i in 0..nodes.len() {
            self.check_response_block(&nodes, i);
        }
        if warmup.is_some() && run_range.is_some() {
            if let Some(w) = &warmup {
                self.err(
                    Diagnostic::new("`warmup` goes with `run N`, not with `run a..b`", w.span)
                        .label("warm-up with an explicit range")
                        .help("with `run a..b` the range says everything: declare a window for the measured part"),
                );
            }
        }

        // Pass 3: variants and sweeps.
        let mut variants: Vec<VariantSpec> = Vec::new();
        let mut variant_spans: Vec<Span> = Vec::new();
        for item in &ast.items {
            if let Item::Variant(decl) = item {
                if variants.iter().any(|v| v.name == decl.name.name) {
                    self.declared_twice("variant", &decl.name);
                    continue;
                }
                let mut o = Overrides::default();
                for vi in &decl.items {
                    match vi {
                        VariantItem::Set(name, value) => {
                            if self.param(&params, name) {
                                o.sets.push(Setting {
                                    name: name.name.clone(),
                                    value: value.clone(),
                                    origin: None,
                                });
                            }
                        }
                        VariantItem::Without(ids) => {
                            for id in ids {
                                match faults.iter().position(|f| f.name == id.name) {
                                    Some(i) => o.without.push(i),
                                    None => {
                                        self.err(
                                            Diagnostic::new(
                                                format!("unknown fault `{}`", id.name),
                                                id.span,
                                            )
                                            .label("no fault of this name")
                                            .maybe_help(did_you_mean(
                                                &id.name,
                                                faults.iter().map(|f| f.name.as_str()),
                                            )),
                                        )
                                    }
                                }
                            }
                        }
                        VariantItem::Source(id, rates) => match sources
                            .iter()
                            .position(|s| s.name == id.name)
                        {
                            Some(i) => o.sources.push((i, rates.clone())),
                            None => self.err(
                                Diagnostic::new(format!("unknown source `{}`", id.name), id.span)
                                    .label("no source of this name")
                                    .maybe_help(did_you_mean(
                                        &id.name,
                                        sources.iter().map(|s| s.name.as_str()),
                                    )),
                            ),
                        },
                    }
                }
                variants.push(VariantSpec {
                    name: decl.name.name.clone(),
                    label: decl.label.clone().unwrap_or_else(|| decl.name.name.clone()),
                    overrides: o,
                });
                variant_spans.push(decl.name.span);
            }
        }
        let implicit_variant = variants.is_empty();
        if implicit_variant {
            variants.push(VariantSpec {
                name: "base".into(),
                label: "base".into(),
                overrides: Overrides::default(),
            });
        }
        let mut sweeps: Vec<SweepSpec> = Vec::new();
        for item in &ast.items {
            if let Item::Sweep(decl) = item {
                if sweeps.iter().any(|s| s.name == decl.name.name) {
                    self.declared_twice("sweep", &decl.name);
                    continue;
                }
                let base = match &decl.base {
                    None => 0,
                    Some(id) => match variants.iter().position(|v| v.name == id.name) {
                        Some(i) => i,
                        None => {
                            self.err(
                                Diagnostic::new(format!("unknown variant `{}`", id.name), id.span)
                                    .label("no variant of this name")
                                    .maybe_help(did_you_mean(
                                        &id.name,
                                        variants.iter().map(|v| v.name.as_str()),
                                    )),
                            );
                            0
                        }
                    },
                };
                if decl.axes.is_empty() {
                    self.err(
                        Diagnostic::new(
                            format!("sweep `{}` varies nothing", decl.name.name),
                            decl.name.span,
                        )
                        .label("no axis")
                        .help("add e.g. `attempts in [3, 2, 1]`"),
                    );
                }
                let mut axes = Vec::new();
                for (id, values) in &decl.axes {
                    if self.param(&params, id) {
                        if axes
                            .iter()
                            .any(|(n, _): &(String, Vec<Value>)| *n == id.name)
                        {
                            self.err(
                                Diagnostic::new(format!("`{}` is swept twice", id.name), id.span)
                                    .label("second axis"),
                            );
                        }
                        axes.push((id.name.clone(), values.clone()));
                    }
                }
                let sweep = SweepSpec {
                    name: decl.name.name.clone(),
                    label: decl.label.clone().unwrap_or_else(|| decl.name.name.clone()),
                    base,
                    axes,
                    from_cli: false,
                };
                if sweep.len() > MAX_SWEEP_POINTS {
                    self.err(
                        Diagnostic::new(
                            format!(
                                "sweep `{}` has {} points, more than the {MAX_SWEEP_POINTS} squall runs",
                                sweep.name,
                                sweep.len()
                            ),
                            decl.name.span,
                        )
                        .label("too many points")
                        .help("the points are the product of the axes' lengths; sweep fewer values"),
                    );
                }
                sweeps.push(sweep);
            }
        }

        // Names used in paths must not collide across kinds.
        for (i, v) in variants.iter().enumerate() {
            if implicit_variant {
                break;
            }
            let span = variant_spans[i];
            if windows.iter().any(|(w, _)| *w == v.name) {
                self.err(
                    Diagnostic::new(
                        format!("`{}` names both a variant and a window", v.name),
                        span,
                    )
                    .label("also a window")
                    .help("paths such as `storm.during.db.calls` need distinct names"),
                );
            }
            if nodes.iter().any(|n| n.name == v.name) {
                self.err(
                    Diagnostic::new(
                        format!("`{}` names both a variant and a node", v.name),
                        span,
                    )
                    .label("also a node")
                    .help("paths such as `storm.during.db.calls` need distinct names"),
                );
            }
        }
        for item in &ast.items {
            if let Item::Window(id, _) = item {
                if nodes.iter().any(|n| n.name == id.name) {
                    self.err(
                        Diagnostic::new(
                            format!("`{}` names both a window and a node", id.name),
                            id.span,
                        )
                        .label("also a node")
                        .help("paths such as `storm.during.db.calls` need distinct names"),
                    );
                }
            }
        }

        // Params referenced anywhere must exist.
        self.check_param_refs(ast, &params);

        // Pass 4: the report and expectations.
        let mut measures: Vec<(String, RExpr, Needs)> = Vec::new();
        let mut report = ReportSpec::default();
        for item in &ast.items {
            if let Item::Report(items) = item {
                for ri in items {
                    let names = Names {
                        variants: &variants,
                        windows: &windows,
                        nodes: &nodes,
                        faults: &faults,
                        measures: &measures,
                        params: &params,
                        sweeps: &sweeps,
                    };
                    match ri {
                        ReportItem::Measure(id, expr) => {
                            if measures.iter().any(|(n, _, _)| *n == id.name) {
                                self.declared_twice("measure", id);
                                continue;
                            }
                            if Metric::parse(&id.name).is_some() {
                                self.err(
                                    Diagnostic::new(
                                        format!("`{}` is a built-in metric", id.name),
                                        id.span,
                                    )
                                    .label("taken")
                                    .help("give the measure another name"),
                                );
                                continue;
                            }
                            if let Some((r, needs)) = self.expr(&names, expr) {
                                measures.push((id.name.clone(), r, needs));
                            }
                        }
                        ReportItem::Table(t) => {
                            if let Some(spec) = self.table(&names, t) {
                                report.items.push(ReportItemSpec::Table(spec));
                            }
                        }
                        ReportItem::Line(variant, raw, span) => {
                            let line_variant = match variant {
                                Some(id) => self.variant(&variants, id).map(Some),
                                None => Some(None),
                            };
                            let ctx = Context {
                                variant: variants.len() == 1 || variant.is_some(),
                                window: false,
                                node: false,
                                what: "a line",
                            };
                            match parse_template(raw, *span) {
                                Err(d) => self.err(d),
                                Ok(pieces) => {
                                    let mut parts = Vec::new();
                                    for p in pieces {
                                        match p {
                                            Piece::Text(t) => parts.push(LinePart::Text(t)),
                                            Piece::Hole(e, digits) => {
                                                if let Some((r, needs)) = self.expr(&names, &e) {
                                                    self.check_context(needs, ctx, e.span);
                                                    parts.push(LinePart::Value(
                                                        r,
                                                        digits.unwrap_or(2),
                                                    ));
                                                }
                                            }
                                        }
                                    }
                                    if let Some(v) = line_variant {
                                        report.items.push(ReportItemSpec::Line(parts, v));
                                    }
                                }
                            }
                        }
                        ReportItem::Diagnose(d) => {
                            let node = self.node(&node_names, &d.node);
                            let window = self.window(&windows, &d.window);
                            let baseline = self.window(&windows, &d.baseline);
                            let against = match &d.against {
                                None => Some(None),
                                Some(id) => self.variant(&variants, id).map(Some),
                            };
                            if let (Some(node), Some(window), Some(baseline), Some(against)) =
                                (node, window, baseline, against)
                            {
                                report.items.push(ReportItemSpec::Diagnose(DiagnoseSpec {
                                    node,
                                    window,
                                    baseline,
                                    against,
                                }));
                            }
                        }
                        ReportItem::Waits(w) => {
                            let mut ids = Vec::new();
                            for p in &w.policies {
                                ids.extend(self.backoff_index(&backoffs, p));
                            }
                            if w.policies.is_empty() {
                                self.err(
                                    Diagnostic::new(
                                        "a `waits` table needs `policies [..]`",
                                        w.span,
                                    )
                                    .label("no policies")
                                    .help(
                                        "name backoff policies declared with `backoff NAME = ...`",
                                    ),
                                );
                            }
                            let attempts = match &w.attempts {
                                None => Some(6),
                                Some(v) => self.literal_count(v, "`attempts`", 1),
                            };
                            let rng = self.rng_index(&rngs, w.rng.as_ref());
                            if let (Some(attempts), Some(rng)) = (attempts, rng) {
                                report.items.push(ReportItemSpec::Waits(WaitsSpec {
                                    title: w.title.clone(),
                                    policies: ids,
                                    attempts: attempts as u32,
                                    rng,
                                }));
                            }
                        }
                        ReportItem::Herd(h) => {
                            let policy = match &h.policy {
                                Some(p) => self.backoff_index(&backoffs, p),
                                None => {
                                    self.err(
                                            Diagnostic::new("a `herd` needs a `policy`", h.span)
                                                .label("no policy")
                                                .help("e.g. `policy full` naming `backoff full = full_jitter 200ms x 2 cap 5s`"),
                                        );
                                    None
                                }
                            };
                            let clients = match &h.clients {
                                Some(v) => self.literal_count(v, "`clients`", 1),
                                None => {
                                    self.err(
                                        Diagnostic::new("a `herd` needs `clients N`", h.span)
                                            .label("how many clients?"),
                                    );
                                    None
                                }
                            };
                            let attempt = match &h.attempt {
                                Some(v) => self.literal_count(v, "`attempt`", 1),
                                None => Some(1),
                            };
                            let bucket = match &h.bucket {
                                Some(v) => match units::ticks(v, clock, "a bucket") {
                                    Ok(0) => {
                                        self.err(
                                            Diagnostic::new(
                                                "a bucket must be at least one tick wide",
                                                v.span,
                                            )
                                            .label("zero width"),
                                        );
                                        None
                                    }
                                    Ok(b) => Some(b),
                                    Err(d) => {
                                        self.err(d);
                                        None
                                    }
                                },
                                None => Some(1),
                            };
                            let rng = self.rng_index(&rngs, h.rng.as_ref());
                            if let (
                                Some(policy),
                                Some(clients),
                                Some(attempt),
                                Some(bucket),
                                Some(rng),
                            ) = (policy, clients, attempt, bucket, rng)
                            {
                                report.items.push(ReportItemSpec::Herd(HerdSpec {
                                    title: h.title.clone(),
                                    policy,
                                    clients: clients as u32,
                                    attempt: attempt as u32,
                                    bucket,
                                    rng,
                                }));
                            }
                        }
                        ReportItem::Operations(title, id) => match sources
                            .iter()
                            .position(|s| s.name == id.name)
                        {
                            Some(i) if !sources[i].ops.is_empty() => {
                                report.items.push(ReportItemSpec::Operations {
                                    title: title.clone(),
                                    source: i,
                                })
                            }
                            Some(_) => self.err(
                                Diagnostic::new(
                                    format!("source `{}` has no `sequential` operations", id.name),
                                    id.span,
                                )
                                .label("nothing to list"),
                            ),
                            None => self.err(
                                Diagnostic::new(format!("unknown source `{}`", id.name), id.span)
                                    .label("no source of this name")
                                    .maybe_help(did_you_mean(
                                        &id.name,
                                        sources.iter().map(|s| s.name.as_str()),
                                    )),
                            ),
                        },
                        ReportItem::Isolation(iso) => {
                            let node = self.node(&node_names, &iso.node);
                            if let Some(n) = node {
                                if nodes[n].response.is_none() {
                                    self.err(
                                        Diagnostic::new(
                                            format!(
                                                "`{}` has no `response` to isolate",
                                                iso.node.name
                                            ),
                                            iso.node.span,
                                        )
                                        .label("no `response` on this node"),
                                    );
                                }
                            }
                            let vs: Vec<usize> = iso
                                .variants
                                .iter()
                                .filter_map(|v| self.variant(&variants, v))
                                .collect();
                            let window = match &iso.window {
                                Some(w) => self.window(&windows, w),
                                None => {
                                    self.err(
                                        Diagnostic::new(
                                            "an `isolation` table needs a `window`",
                                            iso.span,
                                        )
                                        .label("which window?")
                                        .help("e.g. `window measured`"),
                                    );
                                    None
                                }
                            };
                            if iso.variants.is_empty() {
                                self.err(
                                    Diagnostic::new(
                                        "an `isolation` table needs `variants [..]`",
                                        iso.span,
                                    )
                                    .label("no rows"),
                                );
                            }
                            if let (Some(node), Some(window)) = (node, window) {
                                report.items.push(ReportItemSpec::Isolation(IsolationSpec {
                                    title: iso.title.clone(),
                                    node,
                                    variants: vs,
                                    window,
                                }));
                            }
                        }
                        ReportItem::Trace(title, id) => {
                            if let Some(i) = self.node(&node_names, id) {
                                if nodes[i].breaker.is_none() {
                                    self.err(
                                        Diagnostic::new(
                                            format!("`{}` has no breaker to trace", id.name),
                                            id.span,
                                        )
                                        .label("no `breaker` on this node"),
                                    );
                                } else {
                                    report.items.push(ReportItemSpec::Trace {
                                        title: title.clone(),
                                        node: i,
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
        // `expect` lines may come anywhere in the file, before or after the
        // measures they use: they are resolved once the report is.
        for item in &ast.items {
            if let Item::Expect(e) = item {
                let names = Names {
                    variants: &variants,
                    windows: &windows,
                    nodes: &nodes,
                    faults: &faults,
                    measures: &measures,
                    params: &params,
                    sweeps: &sweeps,
                };
                let ctx = Context {
                    variant: variants.len() == 1,
                    window: false,
                    node: false,
                    what: "an `expect` line",
                };
                let lhs = self.expr(&names, &e.lhs);
                let check = self.expect_check(&names, ctx, clock, &e.check);
                if let (Some((l, ln)), Some(check)) = (lhs, check) {
                    self.check_context(ln, ctx, e.lhs.span);
                    report.expects.push(ExpectSpec {
                        lhs: l,
                        check,
                        text: self
                            .source
                            .get(e.span.start..e.span.end)
                            .unwrap_or("")
                            .trim()
                            .to_string(),
                        line: e.span.line_col(&self.source).0,
                    });
                }
            }
        }
        report.measures = measures
            .into_iter()
            .map(|(name, expr, _)| MeasureSpec { name, expr })
            .collect();

        if !self.errors.is_empty() {
            return None;
        }
        Some(Scenario {
            file: String::new(),
            source: Arc::from(""),
            name: ast.name.clone(),
            clock,
            seed: seed.unwrap_or(DEFAULT_SEED),
            run,
            run_range,
            warmup,
            epoch,
            rngs,
            backoffs,
            policies,
            params,
            nodes,
            sources,
            faults,
            windows,
            variants,
            sweeps,
            report,
            implicit_variant,
        })
    }

    fn literal_count(&mut self, v: &Value, what: &str, min: u64) -> Option<u64> {
        match units::count(v, what) {
            Ok(n) if n >= min => Some(n),
            Ok(n) => {
                self.err(
                    Diagnostic::new(format!("{what} must be at least {min}, found {n}"), v.span)
                        .label("too small"),
                );
                None
            }
            Err(mut d) => {
                if matches!(v.kind, ValueKind::Param(_)) {
                    d = Diagnostic::new(
                        format!("{what} in a report item takes a number, not a param"),
                        v.span,
                    )
                    .label("write the number here");
                }
                self.err(d);
                None
            }
        }
    }

    fn backoff_index(&mut self, backoffs: &[(String, BackoffAst)], id: &Ident) -> Option<usize> {
        let found = backoffs.iter().position(|(n, _)| *n == id.name);
        if found.is_none() {
            self.err(
                Diagnostic::new(format!("unknown backoff `{}`", id.name), id.span)
                    .label("no backoff of this name")
                    .maybe_help(did_you_mean(
                        &id.name,
                        backoffs.iter().map(|(n, _)| n.as_str()),
                    ))
                    .maybe_help(if backoffs.is_empty() {
                        Some(format!(
                            "declare it: `backoff {} = full_jitter 200ms x 2 cap 5s`",
                            id.name
                        ))
                    } else {
                        None
                    }),
            );
        }
        found
    }

    /// `Some(None)` when no generator is named, `Some(Some(i))` when found.
    fn rng_index(&mut self, rngs: &[RngDecl], id: Option<&Ident>) -> Option<Option<usize>> {
        let Some(id) = id else { return Some(None) };
        match rngs.iter().position(|r| r.name.name == id.name) {
            Some(i) => Some(Some(i)),
            None => {
                self.err(
                    Diagnostic::new(format!("unknown rng `{}`", id.name), id.span)
                        .label("no generator of this name")
                        .maybe_help(did_you_mean(
                            &id.name,
                            rngs.iter().map(|r| r.name.name.as_str()),
                        ))
                        .maybe_help(if rngs.is_empty() {
                            Some(format!(
                                "declare it: `rng {} {{ mulberry32 seed 42 }}`",
                                id.name
                            ))
                        } else {
                            None
                        }),
                );
                None
            }
        }
    }

    fn check_backoff_rng(&mut self, b: &BackoffAst, rngs: &[RngDecl]) {
        if let BackoffAst::FullJitter { rng: Some(r), .. }
        | BackoffAst::EqualJitter { rng: Some(r), .. }
        | BackoffAst::Decorrelated { rng: Some(r), .. } = b
        {
            let _ = self.rng_index(rngs, Some(r));
        }
    }

    fn check_retry(
        &mut self,
        r: &RetryAst,
        policies: &[(String, RetryAst)],
        backoffs: &[(String, BackoffAst)],
        rngs: &[RngDecl],
    ) {
        if let Some(name) = &r.named {
            if !policies.iter().any(|(n, _)| *n == name.name) {
                self.err(
                    Diagnostic::new(format!("unknown policy `{}`", name.name), name.span)
                        .label("no policy of this name")
                        .maybe_help(did_you_mean(
                            &name.name,
                            policies.iter().map(|(n, _)| n.as_str()),
                        ))
                        .maybe_help(if policies.is_empty() {
                            Some(format!(
                                "declare it: `policy {} {{ attempts 3  backoff fixed 1s }}`",
                                name.name
                            ))
                        } else {
                            None
                        }),
                );
            }
            return;
        }
        if r.attempts.is_none() {
            self.err(
                Diagnostic::new("a retry policy needs `attempts`", r.span)
                    .label("no `attempts`")
                    .help("e.g. `retry { attempts 3  backoff fixed 4 rounds }`"),
            );
        }
        match &r.backoff {
            None => {
                if r.attempts.is_some() {
                    self.err(
                        Diagnostic::new("a retry policy needs `backoff`", r.span)
                            .label("no `backoff`")
                            .help("e.g. `backoff fixed 4 rounds` or `backoff full_jitter 200ms x 2 cap 5s`"),
                    );
                }
            }
            Some(BackoffRef::Named(id)) => {
                let _ = self.backoff_index(backoffs, id);
            }
            Some(BackoffRef::Inline(b)) => self.check_backoff_rng(b, rngs),
        }
        if let Some(id) = &r.retry_after {
            if !["honor", "ignore"].contains(&id.name.as_str()) {
                self.err(
                    Diagnostic::new(
                        format!("`retry_after {}` is not a choice", id.name),
                        id.span,
                    )
                    .label("expected `honor` or `ignore`")
                    .maybe_help(did_you_mean(&id.name, ["honor", "ignore"])),
                );
            }
        }
    }

    fn check_request(&mut self, r: &RequestAst) {
        if Method::parse(&r.method).is_none() {
            self.err(
                Diagnostic::new(
                    format!("a request needs a concrete method, found `{}`", r.method),
                    r.span,
                )
                .label("not a method a client sends")
                .help("`*` matches any method in a route, but a request is `GET`, `POST`, ..."),
            );
        }
    }

    fn check_response(&mut self, r: &ResponseAst) {
        if let ResponseAst::Status {
            code,
            retry_after,
            span,
        } = r
        {
            if crate::date::parse_status(code).is_none() {
                self.err(
                    Diagnostic::new(format!("`{code}` is not a status code"), *span)
                        .label("not a status")
                        .help("write a decimal status such as `503` or a hexadecimal code such as `0x58`"),
                );
            }
            if let Some(RetryAfterAst::Date(text, dspan)) = retry_after {
                if crate::date::parse_date(text).is_none() {
                    self.err(
                        Diagnostic::new(format!("Retry-After `{text}` is neither a delay nor a date squall can read"), *dspan)
                            .label("cannot parse")
                            .help("write a delay such as `2s`, or an HTTP date such as `Wed, 14 Jan 2026 09:00:02 GMT`"),
                    );
                }
            }
        }
    }

    fn link(
        &mut self,
        nodes: &mut [NodeDecl],
        graph: &mut DiGraph<usize, ()>,
        gidx: &[NodeIndex],
        from: usize,
        to: usize,
        span: Span,
    ) {
        if from == to {
            self.err(
                Diagnostic::new(format!("`{}` calls itself", nodes[from].name), span)
                    .label("a service calling itself")
                    .help("a chain lists distinct nodes from caller to callee"),
            );
            return;
        }
        match nodes[from].downstream {
            Some(d) if d == to => return,
            Some(d) => {
                self.err(
                    Diagnostic::new(
                        format!(
                            "`{}` already calls `{}`; a node calls one downstream node",
                            nodes[from].name, nodes[d].name
                        ),
                        span,
                    )
                    .label("a second downstream")
                    .help("split the chain, or give the second dependency its own caller"),
                );
                return;
            }
            None => {}
        }
        if has_path_connecting(&*graph, gidx[to], gidx[from], None) {
            self.err(
                Diagnostic::new(
                    format!(
                        "calling `{}` from `{}` closes a cycle",
                        nodes[to].name, nodes[from].name
                    ),
                    span,
                )
                .label("this call closes a cycle")
                .help(format!(
                    "`{}` already reaches `{}` through the chain",
                    nodes[to].name, nodes[from].name
                )),
            );
            return;
        }
        graph.add_edge(gidx[from], gidx[to], ());
        nodes[from].downstream = Some(to);
    }

    /// Retries and breakers guard calls to one downstream node: `what` on a
    /// node that calls nothing, or that fans out to fields, is an error.
    fn expect_caller(&mut self, node: &NodeDecl, what: &str, span: Span) {
        if node.downstream.is_some() {
            return;
        }
        let d = if node.fanout.is_empty() {
            let (says, why) = if what == "a retry" {
                ("retries", "retries belong to the caller; put this block")
            } else {
                (
                    "has a breaker",
                    "a breaker guards calls to a dependency; put it",
                )
            };
            Diagnostic::new(format!("`{}` {says} but calls nothing", node.name), span)
                .label(format!(
                    "{} on a node at the bottom of its chain",
                    &what[2..]
                ))
                .help(format!("{why} on the service that calls `{}`", node.name))
        } else {
            Diagnostic::new(
                format!("`{}` fetches the fields of its response once; {what} on those fetches is not modelled", node.name),
                span,
            )
            .label(format!("{what} on a node that fans out"))
            .help(format!("put {what} on the service that calls `{}`", node.name))
        };
        self.err(d);
    }

    /// `what NAME is declared twice`, pointing at the second declaration.
    fn declared_twice(&mut self, what: &str, id: &Ident) {
        self.err(
            Diagnostic::new(format!("{what} `{}` is declared twice", id.name), id.span)
                .label("second declaration"),
        );
    }

    fn link_fanout(
        &mut self,
        nodes: &mut [NodeDecl],
        graph: &mut DiGraph<usize, ()>,
        gidx: &[NodeIndex],
        from: usize,
        to: usize,
        span: Span,
    ) {
        if from == to {
            self.err(
                Diagnostic::new(format!("`{}` calls itself", nodes[from].name), span)
                    .label("a service calling itself"),
            );
            return;
        }
        if nodes[from].fanout.contains(&to) {
            return;
        }
        if has_path_connecting(&*graph, gidx[to], gidx[from], None) {
            self.err(
                Diagnostic::new(
                    format!(
                        "calling `{}` from `{}` closes a cycle",
                        nodes[to].name, nodes[from].name
                    ),
                    span,
                )
                .label("this call closes a cycle"),
            );
            return;
        }
        graph.add_edge(gidx[from], gidx[to], ());
        nodes[from].fanout.push(to);
    }

    /// Checks a node's `response` block against its fan-out.
    fn check_response_block(&mut self, nodes: &[NodeDecl], i: usize) {
        let Some(r) = &nodes[i].response else {
            if !nodes[i].fanout.is_empty() {
                self.err(
                    Diagnostic::new(
                        format!(
                            "`{}` calls several nodes but has no `response` saying what each gives",
                            nodes[i].name
                        ),
                        nodes[i].span,
                    )
                    .label("a fan-out without a response")
                    .help(format!(
                        "add `service {} {{ response {{ field NAME from NODE core 100 B ... }} }}`",
                        nodes[i].name
                    )),
                );
            }
            return;
        };
        if nodes[i].downstream.is_some() {
            self.err(
                Diagnostic::new(
                    format!(
                        "`{}` has a `response` and also calls one node down a chain",
                        nodes[i].name
                    ),
                    r.span,
                )
                .label("a response node fetches its fields instead")
                .help(format!(
                    "write the chain as `chain ... -> {} -> [a, b]`",
                    nodes[i].name
                )),
            );
        }
        if r.fields.is_empty() {
            self.err(
                Diagnostic::new("a `response` needs at least one `field`", r.span)
                    .label("no fields")
                    .help("e.g. `field status from projection core 180 B`"),
            );
        }
        let mut names: Vec<&str> = Vec::new();
        for f in &r.fields {
            if names.contains(&f.name.name.as_str()) {
                self.declared_twice("field", &f.name);
            }
            names.push(&f.name.name);
            let targets: Vec<&str> = nodes[i]
                .fanout
                .iter()
                .map(|&k| nodes[k].name.as_str())
                .collect();
            match nodes.iter().position(|n| n.name == f.source.name) {
                Some(k) if nodes[i].fanout.contains(&k) => {
                    if nodes[k].downstream.is_some() || !nodes[k].fanout.is_empty() {
                        self.err(
                            Diagnostic::new(
                                format!("field source `{}` calls other nodes", f.source.name),
                                f.source.span,
                            )
                            .label("a field source must be at the bottom of its chain"),
                        );
                    }
                }
                Some(_) => self.err(
                    Diagnostic::new(
                        format!("`{}` does not call `{}`", nodes[i].name, f.source.name),
                        f.source.span,
                    )
                    .label("not in this node's fan-out")
                    .help(format!(
                        "fields come from the nodes `{}` fans out to: {}",
                        nodes[i].name,
                        targets.join(", ")
                    )),
                ),
                None => self.err(
                    Diagnostic::new(
                        format!("unknown field source `{}`", f.source.name),
                        f.source.span,
                    )
                    .label("no node of this name")
                    .maybe_help(did_you_mean(&f.source.name, targets.iter().copied())),
                ),
            }
        }
        // A field whose source is unknown was reported above; an unused
        // dependency would then be the same mistake said twice.
        let all_known = r
            .fields
            .iter()
            .all(|f| nodes.iter().any(|n| n.name == f.source.name));
        for &k in nodes[i].fanout.iter().filter(|_| all_known) {
            if !r.fields.iter().any(|f| f.source.name == nodes[k].name) {
                self.err(
                    Diagnostic::new(
                        format!(
                            "`{}` calls `{}`, but no field comes from it",
                            nodes[i].name, nodes[k].name
                        ),
                        r.span,
                    )
                    .label("an unused dependency"),
                );
            }
        }
        if let Some(p) = &r.policy {
            if let ValueKind::Word(w) = &p.kind {
                if Degradation::parse(w).is_none() {
                    self.err(
                        Diagnostic::new(format!("unknown degradation policy `{w}`"), p.span)
                            .label("expected `all_or_nothing`, `skip_optional` or `stale_fallback`")
                            .maybe_help(did_you_mean(
                                w,
                                ["all_or_nothing", "skip_optional", "stale_fallback"],
                            )),
                    );
                }
            }
        }
        if let Some(l) = &r.ledger {
            if l.stale_for.is_none() {
                self.err(
                    Diagnostic::new(
                        "a `ledger` needs `stale_for`: how old a value it may serve",
                        l.span,
                    )
                    .label("no staleness bound")
                    .help("e.g. `ledger { entries 5000  stale_for 60s }`"),
                );
            }
        }
    }

    fn node(&mut self, names: &[String], id: &Ident) -> Option<usize> {
        let found = names.iter().position(|n| *n == id.name);
        if found.is_none() {
            self.err(
                Diagnostic::new(format!("unknown node `{}`", id.name), id.span)
                    .label("not in any chain")
                    .maybe_help(did_you_mean(&id.name, names.iter().map(String::as_str))),
            );
        }
        found
    }

    fn window(&mut self, windows: &[(String, Range)], id: &Ident) -> Option<usize> {
        let found = windows.iter().position(|(n, _)| *n == id.name);
        if found.is_none() {
            self.err(
                Diagnostic::new(format!("unknown window `{}`", id.name), id.span)
                    .label("no window of this name")
                    .maybe_help(did_you_mean(
                        &id.name,
                        windows.iter().map(|(n, _)| n.as_str()),
                    )),
            );
        }
        found
    }

    fn variant(&mut self, variants: &[VariantSpec], id: &Ident) -> Option<usize> {
        let found = variants.iter().position(|v| v.name == id.name);
        if found.is_none() {
            self.err(
                Diagnostic::new(format!("unknown variant `{}`", id.name), id.span)
                    .label("no variant of this name")
                    .maybe_help(did_you_mean(
                        &id.name,
                        variants.iter().map(|v| v.name.as_str()),
                    )),
            );
        }
        found
    }

    fn param(&mut self, params: &IndexMap<String, Value>, id: &Ident) -> bool {
        if params.contains_key(&id.name) {
            return true;
        }
        self.err(
            Diagnostic::new(format!("unknown param `{}`", id.name), id.span)
                .label("no param of this name")
                .help(
                    did_you_mean(&id.name, params.keys().map(String::as_str))
                        .unwrap_or_else(|| format!("declare it: `param {} = ...`", id.name)),
                ),
        );
        false
    }

    fn check_param_refs(&mut self, ast: &ScenarioAst, params: &IndexMap<String, Value>) {
        let mut refs: Vec<(String, Span)> = Vec::new();
        for item in &ast.items {
            item.each_value(&mut |v| {
                if let ValueKind::Param(n) = &v.kind {
                    refs.push((n.clone(), v.span));
                }
            });
        }
        for (name, span) in refs {
            if !params.contains_key(&name) {
                self.err(
                    Diagnostic::new(format!("unknown param `${name}`"), span)
                        .label("no param of this name")
                        .help(
                            suggest(&name, params.keys().map(String::as_str))
                                .map(|s| format!("did you mean `${s}`?"))
                                .unwrap_or_else(|| format!("declare it: `param {name} = ...`")),
                        ),
                );
            }
        }
    }

    /// Resolves the check of an `expect` line; quantities with units become
    /// numbers in ticks of the file's clock.
    fn expect_check(
        &mut self,
        names: &Names<'_>,
        ctx: Context,
        clock: Clock,
        check: &ExpectCheck,
    ) -> Option<CheckSpec> {
        match check {
            ExpectCheck::Compare(op, b) => {
                let b = self.bound(names, ctx, clock, b)?;
                Some(CheckSpec::Compare(*op, b))
            }
            ExpectCheck::Range(lo, hi) => {
                let lo = self.bound(names, ctx, clock, lo);
                let hi = self.bound(names, ctx, clock, hi);
                let (lo, hi) = (lo?, hi?);
                if let (RExpr::Number(a), RExpr::Number(b)) = (&lo, &hi) {
                    if a > b {
                        let span = match check {
                            ExpectCheck::Range(l, h) => bound_span(l).join(bound_span(h)),
                            _ => Span::default(),
                        };
                        self.err(
                            Diagnostic::new(
                                format!("the range {a}..{b} is empty: it starts above its end"),
                                span,
                            )
                            .label("empty range")
                            .help("write the lower bound first, as in `in 6.0..6.5`"),
                        );
                        return None;
                    }
                }
                Some(CheckSpec::Range(lo, hi))
            }
            ExpectCheck::Near(expected, tol) => {
                let expected = self.bound(names, ctx, clock, expected);
                let tol = match tol {
                    Tolerance::Percent(p, span) => {
                        if !p.is_finite() || *p > 100.0 {
                            self.err(
                                Diagnostic::new(
                                    format!("a tolerance of {p}% is more than the whole value"),
                                    *span,
                                )
                                .label("at most 100%"),
                            );
                            None
                        } else {
                            Some(ToleranceSpec::Percent(*p))
                        }
                    }
                    Tolerance::Absolute(b) => self
                        .bound(names, ctx, clock, b)
                        .map(ToleranceSpec::Absolute),
                };
                Some(CheckSpec::Near(expected?, tol?))
            }
        }
    }

    fn bound(&mut self, names: &Names<'_>, ctx: Context, clock: Clock, b: &Bound) -> Option<RExpr> {
        match b {
            Bound::Expr(e) => {
                let (r, needs) = self.expr(names, e)?;
                self.check_context(needs, ctx, e.span);
                Some(r)
            }
            Bound::Quantity(v) => match crate::units::quantity(v, clock) {
                Ok(x) => Some(RExpr::Number(x)),
                Err(d) => {
                    self.err(d);
                    None
                }
            },
        }
    }

    fn check_context(&mut self, needs: Needs, ctx: Context, span: Span) {
        if needs.variant && !ctx.variant {
            self.err(
                Diagnostic::new(
                    format!("this value needs a variant, and {} has none", ctx.what),
                    span,
                )
                .label("which variant?")
                                    .help("name it first, e.g. `storm.during.db.call_rate` or `storm.recovery`; in a `line`, name the line's variant: `line storm \"...\"`"),
            );
        }
        if needs.window && !ctx.window {
            self.err(
                Diagnostic::new(
                    format!("this value needs a window, and {} has none", ctx.what),
                    span,
                )
                .label("which window?")
                .help("name it in the path, e.g. `during.db.call_rate`"),
            );
        }
        if needs.node && !ctx.node {
            self.err(
                Diagnostic::new(
                    format!("this value needs a node, and {} has none", ctx.what),
                    span,
                )
                .label("at which node?")
                .help("name it in the path, e.g. `db.call_rate`, or give the table `at db`"),
            );
        }
    }

    fn table(&mut self, names: &Names<'_>, t: &TableAst) -> Option<TableSpec> {
        let mut rows = Vec::new();
        let (mut has_variant, mut has_window) = (names.variants.len() == 1, false);
        let mut default_label = Vec::new();
        for axis in &t.rows {
            if let AxisAst::Variants(Some(l), span) | AxisAst::Windows(Some(l), span) = axis {
                if l.is_empty() {
                    self.err(
                        Diagnostic::new("an empty list selects no rows", *span)
                            .label("no names in `[]`")
                            .help("name the rows, or leave the list out to take them all"),
                    );
                }
            }
            match axis {
                AxisAst::Variants(list, _) => {
                    has_variant = true;
                    default_label.push("case");
                    let ids = match list {
                        None => (0..names.variants.len()).collect(),
                        Some(l) => l
                            .iter()
                            .filter_map(|id| self.variant(names.variants, id))
                            .collect(),
                    };
                    rows.push(AxisSpec::Variants(ids));
                }
                AxisAst::Windows(list, _) => {
                    has_window = true;
                    default_label.push("window");
                    let ids = match list {
                        None => (0..names.windows.len()).collect(),
                        Some(l) => l
                            .iter()
                            .filter_map(|id| self.window(names.windows, id))
                            .collect(),
                    };
                    rows.push(AxisSpec::Windows(ids));
                }
                AxisAst::Sweep(id) => {
                    has_variant = true;
                    default_label.push("point");
                    match names.sweeps_position(id) {
                        Some(i) => rows.push(AxisSpec::Sweep(i)),
                        None => self.err(
                            Diagnostic::new(format!("unknown sweep `{}`", id.name), id.span)
                                .label("no sweep of this name"),
                        ),
                    }
                }
            }
        }
        if rows.is_empty() {
            self.err(
                Diagnostic::new(format!("table \"{}\" has no `rows`", t.title), t.span)
                    .label("no rows")
                    .help("add e.g. `rows variants x windows` or `rows sweep allowance`"),
            );
            return None;
        }
        if t.labels.len() > 1 && t.labels.len() != rows.len() {
            let pos = self
                .source
                .get(t.span.start..t.span.end)
                .and_then(|s| s.find("label"))
                .map(|p| t.span.start + p);
            let span = pos.map_or(t.span, |p| Span::new(p, p + "label".len()));
            self.err(
                Diagnostic::new(
                    format!(
                        "{} headings for a table with {} row axes",
                        t.labels.len(),
                        rows.len()
                    ),
                    span,
                )
                .label("one heading, or one per axis")
                .help("give one `label` for all the label columns, or one per row axis"),
            );
        }
        if rows.len() == 2 && std::mem::discriminant(&rows[0]) == std::mem::discriminant(&rows[1]) {
            self.err(
                Diagnostic::new("a table's two row axes must differ", t.span)
                    .label("same axis twice"),
            );
        }
        let at = match &t.at {
            None => None,
            Some(id) => {
                let names_vec: Vec<String> = names.nodes.iter().map(|n| n.name.clone()).collect();
                self.node(&names_vec, id)
            }
        };
        if t.columns.is_empty() {
            self.err(
                Diagnostic::new(format!("table \"{}\" has no columns", t.title), t.span)
                    .label("no columns")
                    .help("add e.g. `column \"calls/round\" = call_rate`"),
            );
        }
        let ctx = Context {
            variant: has_variant,
            window: has_window,
            node: at.is_some() || t.at.is_some(),
            what: "this table",
        };
        let mut columns = Vec::new();
        for c in &t.columns {
            if let Some((expr, needs)) = self.expr(names, &c.expr) {
                self.check_context(needs, ctx, c.expr.span);
                columns.push(ColumnSpec {
                    title: c.title.clone(),
                    expr,
                    digits: c.digits.unwrap_or(2),
                });
            }
        }
        Some(TableSpec {
            title: t.title.clone(),
            labels: if t.labels.is_empty() {
                vec![default_label.join(": ")]
            } else {
                t.labels.clone()
            },
            rows,
            at,
            columns,
        })
    }

    fn expr(&mut self, names: &Names<'_>, e: &Expr) -> Option<(RExpr, Needs)> {
        Some(match &e.kind {
            ExprKind::Number(n) => (RExpr::Number(*n), Needs::default()),
            ExprKind::Param(p) => {
                if !names.params.contains_key(p) {
                    self.err(
                        Diagnostic::new(format!("unknown param `${p}`"), e.span)
                            .label("no param of this name")
                            .help(
                                suggest(p, names.params.keys().map(String::as_str))
                                    .map(|s| format!("did you mean `${s}`?"))
                                    .unwrap_or_else(|| format!("declare it: `param {p} = ...`")),
                            ),
                    );
                    return None;
                }
                (
                    RExpr::Param(p.clone()),
                    Needs {
                        variant: true,
                        ..Needs::default()
                    },
                )
            }
            ExprKind::Neg(x) => {
                let (r, n) = self.expr(names, x)?;
                (RExpr::Neg(Box::new(r)), n)
            }
            ExprKind::Binary(op, a, b) => {
                let a = self.expr(names, a);
                let b = self.expr(names, b);
                let ((a, na), (b, nb)) = (a?, b?);
                (RExpr::Binary(*op, Box::new(a), Box::new(b)), na.or(nb))
            }
            ExprKind::Path(ids) => return self.path(names, ids, e.span),
            ExprKind::Call(name, args) => return self.call(names, name, args, e.span),
        })
    }

    fn path(&mut self, names: &Names<'_>, ids: &[Ident], span: Span) -> Option<(RExpr, Needs)> {
        let (last, prefix) = ids.split_last()?;
        let mut variant = None;
        let mut window = None;
        let mut node = None;
        let mut stage = 0; // 0: variant allowed, 1: window allowed, 2: node allowed, 3: none
        for id in prefix {
            if stage == 0 {
                if let Some(i) = names.variants.iter().position(|v| v.name == id.name) {
                    variant = Some(i);
                    stage = 1;
                    continue;
                }
            }
            if stage <= 1 {
                if let Some(i) = names.windows.iter().position(|(n, _)| *n == id.name) {
                    window = Some(i);
                    stage = 2;
                    continue;
                }
            }
            if stage <= 2 {
                if let Some(i) = names.nodes.iter().position(|n| n.name == id.name) {
                    node = Some(i);
                    stage = 3;
                    continue;
                }
            }
            let known: Vec<&str> = names
                .variants
                .iter()
                .map(|v| v.name.as_str())
                .chain(names.windows.iter().map(|(n, _)| n.as_str()))
                .chain(names.nodes.iter().map(|n| n.name.as_str()))
                .collect();
            let d = if known.contains(&id.name.as_str()) {
                Diagnostic::new(
                    format!(
                        "`{}` is out of place: a path reads variant, window, node, then the value",
                        id.name
                    ),
                    id.span,
                )
                .label("out of place")
                .help("e.g. `storm.during.db.call_rate`; each part may be left out")
            } else {
                Diagnostic::new(
                    format!("unknown variant, window or node `{}`", id.name),
                    id.span,
                )
                .label("not a variant, window or node")
                .maybe_help(did_you_mean(&id.name, known))
            };
            self.err(d);
            return None;
        }
        if let Some(metric) = Metric::parse(&last.name) {
            if !metric.needs_node() && node.is_some() {
                self.err(
                    Diagnostic::new(
                        format!(
                            "`{}` is counted for the whole system, not at a node",
                            last.name
                        ),
                        span,
                    )
                    .label("drop the node from this path"),
                );
                return None;
            }
            let needs = Needs {
                variant: variant.is_none(),
                window: window.is_none(),
                node: metric.needs_node() && node.is_none(),
            };
            return Some((
                RExpr::Metric {
                    variant,
                    window,
                    node,
                    metric,
                },
                needs,
            ));
        }
        if let Some(i) = names.measures.iter().position(|(n, _, _)| *n == last.name) {
            if window.is_some() || node.is_some() {
                self.err(
                    Diagnostic::new(
                        format!(
                            "a measure takes only a variant: write `{}` or `VARIANT.{}`",
                            last.name, last.name
                        ),
                        span,
                    )
                    .label("window or node before a measure"),
                );
                return None;
            }
            let inner = names.measures[i].2;
            let needs = Needs {
                variant: variant.is_none() && inner.variant,
                ..inner
            };
            return Some((
                RExpr::Measure {
                    variant,
                    measure: i,
                },
                needs,
            ));
        }
        let is_name = names.nodes.iter().any(|n| n.name == last.name)
            || names.windows.iter().any(|(n, _)| *n == last.name)
            || names.variants.iter().any(|v| v.name == last.name);
        let candidates: Vec<&str> = Metric::ALL
            .iter()
            .map(|(n, _)| *n)
            .chain(names.measures.iter().map(|(n, _, _)| n.as_str()))
            .collect();
        let d = if is_name {
            Diagnostic::new(format!("`{}` is a name, not a value", last.name), last.span)
                .label("a path ends with a metric or a measure")
                .help(format!("e.g. `{}.call_rate`", last.name))
        } else {
            Diagnostic::new(
                format!("unknown metric or measure `{}`", last.name),
                last.span,
            )
            .label("not a metric or measure")
            .maybe_help(did_you_mean(&last.name, candidates.iter().copied()))
        };
        self.err(d);
        None
    }

    fn call(
        &mut self,
        names: &Names<'_>,
        name: &Ident,
        args: &[Expr],
        span: Span,
    ) -> Option<(RExpr, Needs)> {
        let arity = |v: &mut Self, n: usize| -> bool {
            if args.len() != n {
                v.err(
                    Diagnostic::new(
                        format!(
                            "`{}` takes {n} argument{}, found {}",
                            name.name,
                            if n == 1 { "" } else { "s" },
                            args.len()
                        ),
                        span,
                    )
                    .label("wrong number of arguments"),
                );
                false
            } else {
                true
            }
        };
        let node_arg = |v: &mut Self, e: &Expr| -> Option<usize> {
            match &e.kind {
                ExprKind::Path(ids) if ids.len() == 1 => {
                    let list: Vec<String> = names.nodes.iter().map(|n| n.name.clone()).collect();
                    v.node(&list, &ids[0])
                }
                _ => {
                    v.err(Diagnostic::new("expected a node name", e.span).label("not a node name"));
                    None
                }
            }
        };
        let needs_run = Needs {
            variant: true,
            ..Needs::default()
        };
        match name.name.as_str() {
            "recovery" => {
                if !arity(self, 3) {
                    return None;
                }
                let node = node_arg(self, &args[0]);
                let fault = match &args[1].kind {
                    ExprKind::Path(ids) if ids.len() == 1 => {
                        let found = names.faults.iter().position(|f| f.name == ids[0].name);
                        if found.is_none() {
                            self.err(
                                Diagnostic::new(
                                    format!("unknown fault `{}`", ids[0].name),
                                    ids[0].span,
                                )
                                .label("no fault of this name")
                                .maybe_help(did_you_mean(
                                    &ids[0].name,
                                    names.faults.iter().map(|f| f.name.as_str()),
                                )),
                            );
                        }
                        found
                    }
                    _ => {
                        self.err(
                            Diagnostic::new("expected a fault name", args[1].span)
                                .label("not a fault name"),
                        );
                        None
                    }
                };
                let threshold = self.expr(names, &args[2]);
                let (node, fault, (t, tn)) = (node?, fault?, threshold?);
                Some((
                    RExpr::Call(Func::Recovery { node, fault }, vec![t]),
                    tn.or(needs_run),
                ))
            }
            "peak" | "peak_tick" | "call_bound" => {
                if !arity(self, 1) {
                    return None;
                }
                let node = node_arg(self, &args[0])?;
                let f = match name.name.as_str() {
                    "peak" => Func::Peak { node },
                    "peak_tick" => Func::PeakTick { node },
                    _ => Func::CallBound { node },
                };
                Some((RExpr::Call(f, Vec::new()), needs_run))
            }
            "fields" | "marker" | "response_bytes" | "ledger_entries" => {
                if !arity(self, 1) {
                    return None;
                }
                let node = node_arg(self, &args[0])?;
                let Some(r) = &names.nodes[node].response else {
                    self.err(
                        Diagnostic::new(
                            format!("`{}` has no `response`", names.nodes[node].name),
                            args[0].span,
                        )
                        .label("not a composite response"),
                    );
                    return None;
                };
                if name.name == "ledger_entries" && r.ledger.is_none() {
                    self.err(
                        Diagnostic::new(
                            format!(
                                "the response of `{}` has no `ledger`",
                                names.nodes[node].name
                            ),
                            args[0].span,
                        )
                        .label("no ledger"),
                    );
                    return None;
                }
                let f = match name.name.as_str() {
                    "fields" => Func::Fields { node },
                    "marker" => Func::Marker { node },
                    "response_bytes" => Func::ResponseBytes { node },
                    _ => Func::LedgerEntries { node },
                };
                Some((RExpr::Call(f, Vec::new()), needs_run))
            }
            "minutes" | "seconds" => {
                if !arity(self, 1) {
                    return None;
                }
                let (r, n) = self.expr(names, &args[0])?;
                let f = if name.name == "minutes" {
                    Func::Minutes
                } else {
                    Func::Seconds
                };
                Some((RExpr::Call(f, vec![r]), n))
            }
            "route_calls" => {
                if !arity(self, 2) {
                    return None;
                }
                let node = node_arg(self, &args[0])?;
                let route = match &args[1].kind {
                    ExprKind::Path(ids) if ids.len() == 1 => {
                        let routes = &names.nodes[node].routes;
                        let found = routes.iter().position(|r| r.name.name == ids[0].name);
                        if found.is_none() {
                            self.err(
                                Diagnostic::new(
                                    format!(
                                        "`{}` has no route `{}`",
                                        names.nodes[node].name, ids[0].name
                                    ),
                                    ids[0].span,
                                )
                                .label("no route of this name")
                                .maybe_help(did_you_mean(
                                    &ids[0].name,
                                    routes.iter().map(|r| r.name.name.as_str()),
                                )),
                            );
                        }
                        found?
                    }
                    _ => {
                        self.err(
                            Diagnostic::new("expected a route name", args[1].span)
                                .label("not a route name"),
                        );
                        return None;
                    }
                };
                Some((
                    RExpr::Call(Func::RouteCalls { node, route }, Vec::new()),
                    needs_run,
                ))
            }
            "min" | "max" | "abs" => {
                if name.name == "abs" && !arity(self, 1) {
                    return None;
                }
                if args.is_empty() {
                    self.err(
                        Diagnostic::new(
                            format!("`{}` needs at least one argument", name.name),
                            span,
                        )
                        .label("no arguments"),
                    );
                    return None;
                }
                let mut out = Vec::new();
                let mut needs = Needs::default();
                for a in args {
                    let (r, n) = self.expr(names, a)?;
                    out.push(r);
                    needs = needs.or(n);
                }
                let f = match name.name.as_str() {
                    "min" => Func::Min,
                    "max" => Func::Max,
                    _ => Func::Abs,
                };
                Some((RExpr::Call(f, out), needs))
            }
            other => {
                self.err(
                    Diagnostic::new(format!("unknown function `{other}`"), name.span)
                        .label("not a function")
                        .help(did_you_mean(other, FUNCTIONS).unwrap_or_else(|| {
                            format!("the functions are {}", FUNCTIONS.join(", "))
                        })),
                );
                None
            }
        }
    }
}

/// The built-in functions of report expressions.
pub const FUNCTIONS: [&str; 14] = [
    "recovery",
    "peak",
    "peak_tick",
    "call_bound",
    "route_calls",
    "fields",
    "marker",
    "response_bytes",
    "ledger_entries",
    "minutes",
    "seconds",
    "min",
    "max",
    "abs",
];

/// The span of a bound as written.
fn bound_span(b: &Bound) -> Span {
    match b {
        Bound::Expr(e) => e.span,
        Bound::Quantity(v) => v.span,
    }
}

impl Names<'_> {
    fn sweeps_position(&self, id: &Ident) -> Option<usize> {
        self.sweeps.iter().position(|s| s.name == id.name)
    }
}
