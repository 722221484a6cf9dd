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

use std::collections::HashSet;
use std::sync::Arc;

use indexmap::IndexMap;
use petgraph::algo::has_path_connecting;
use petgraph::graph::{DiGraph, NodeIndex};

use crate::ast::*;
use crate::diagnostic::{did_you_mean, Diagnostic, Diagnostics};
use crate::model::*;
use crate::parse::parse_file;
use crate::span::Span;
use crate::template::{parse_template, Piece};

/// The seed used when a file names none.
pub const DEFAULT_SEED: u64 = 1;

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
}

/// A fault as declared.
#[derive(Debug, Clone)]
pub struct FaultInfo {
    /// Name.
    pub name: String,
    /// The node it affects.
    pub node: usize,
    /// When.
    pub during: Range,
    /// The capacity it imposes.
    pub capacity: Option<Value>,
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
    /// The number of points: the product of the axes' lengths.
    pub fn point_count(&self) -> usize {
        self.axes
            .iter()
            .map(|(_, v)| v.len())
            .fold(1usize, usize::saturating_mul)
    }

    /// Point `p` (as [`SweepSpec::points`] orders them) without building
    /// the others; `None` past the end.
    pub fn point(&self, p: usize) -> Option<Vec<(String, Value)>> {
        if p >= self.point_count() {
            return None;
        }
        let mut rest = p;
        let mut out = Vec::with_capacity(self.axes.len());
        for (name, values) in self.axes.iter().rev() {
            let n = values.len().max(1);
            out.push((name.clone(), values.get(rest % n)?.clone()));
            rest /= n;
        }
        out.reverse();
        Some(out)
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
}

impl Overrides {
    /// `self` followed by `later` (whose settings win).
    pub fn then(&self, later: &Overrides) -> Overrides {
        let mut o = self.clone();
        o.sets.extend(later.sets.iter().cloned());
        o.without.extend(later.without.iter().copied());
        o.sources.extend(later.sources.iter().cloned());
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

fn dedup(list: &mut Vec<Diagnostic>) {
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
        let mut seed: Option<u64> = None;
        let mut params: IndexMap<String, Value> = IndexMap::new();
        let mut param_spans: IndexMap<String, Span> = IndexMap::new();

        // Pass 1: clock, run, seed, params, chains (nodes).
        let mut nodes: Vec<NodeDecl> = Vec::new();
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
                Item::Run(v) => {
                    if run.is_some() {
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
                        self.err(
                            Diagnostic::new(
                                format!("param `{}` is declared twice", name.name),
                                name.span,
                            )
                            .label("second declaration"),
                        );
                    } else {
                        param_spans.insert(name.name.clone(), name.span);
                        params.insert(name.name.clone(), value.clone());
                    }
                }
                Item::Chain(ids) => {
                    let mut prev: Option<usize> = None;
                    for id in ids {
                        let i = match nodes.iter().position(|n| n.name == id.name) {
                            Some(i) => i,
                            None => {
                                nodes.push(NodeDecl {
                                    name: id.name.clone(),
                                    span: id.span,
                                    downstream: None,
                                    capacity: None,
                                    retry: None,
                                });
                                gidx.push(graph.add_node(nodes.len() - 1));
                                nodes.len() - 1
                            }
                        };
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
        if run.is_none() {
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
                    for id in &decl.names {
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
                                    if nodes[i].downstream.is_none() {
                                        self.err(
                                            Diagnostic::new(format!("`{}` retries but calls nothing", id.name), r.span)
                                                .label("retry on a node at the bottom of its chain")
                                                .help(format!("retries belong to the caller; put this block on the service that calls `{}`", id.name)),
                                        );
                                    }
                                    if r.attempts.is_none() {
                                        self.err(
                                            Diagnostic::new("a `retry` block needs `attempts`", r.span)
                                                .label("no `attempts`")
                                                .help("e.g. `retry { attempts 3  backoff fixed 4 rounds }`"),
                                        );
                                    }
                                    if r.attempts.is_some() && r.backoff.is_none() {
                                        self.err(
                                            Diagnostic::new("a `retry` block needs `backoff`", r.span)
                                                .label("no `backoff`")
                                                .help("e.g. `backoff fixed 4 rounds` or `backoff exponential 200ms x 2 cap 5s`"),
                                        );
                                    }
                                    nodes[i].retry = Some(r.clone());
                                }
                            }
                        }
                    }
                }
                Item::Source(decl) => {
                    if sources.iter().any(|s| s.name == decl.name.name) {
                        self.err(
                            Diagnostic::new(
                                format!("source `{}` is declared twice", decl.name.name),
                                decl.name.span,
                            )
                            .label("second declaration"),
                        );
                        continue;
                    }
                    let mut entry = None;
                    let mut arrivals = Arrivals::Uniform;
                    let mut rates = Vec::new();
                    for p in &decl.props {
                        match p {
                            SourceProp::Rate(r) => rates.push(r.clone()),
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
                    if !rates.iter().any(|r| r.during.is_none()) {
                        self.err(
                            Diagnostic::new(
                                format!("source `{}` has no base rate", decl.name.name),
                                decl.name.span,
                            )
                            .label("no `rate` without `during`")
                            .help("add e.g. `rate 4/round`"),
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
                        });
                    }
                }
                Item::Fault(decl) => {
                    if faults.iter().any(|f| f.name == decl.name.name) {
                        self.err(
                            Diagnostic::new(
                                format!("fault `{}` is declared twice", decl.name.name),
                                decl.name.span,
                            )
                            .label("second declaration"),
                        );
                        continue;
                    }
                    let mut node = None;
                    let mut during = None;
                    let mut capacity = None;
                    let mut node_given = false;
                    for p in &decl.props {
                        match p {
                            FaultProp::On(id) => {
                                node_given = true;
                                node = self.node(&node_names, id);
                            }
                            FaultProp::During(r) => during = Some(r.clone()),
                            FaultProp::Capacity(v) => capacity = Some(v.clone()),
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
                    if during.is_none() {
                        self.err(
                            Diagnostic::new(
                                format!("fault `{}` does not say when it happens", decl.name.name),
                                decl.name.span,
                            )
                            .label("no `during`")
                            .help("add e.g. `during 101..160`"),
                        );
                    }
                    if capacity.is_none() {
                        self.err(
                            Diagnostic::new(
                                format!("fault `{}` changes nothing", decl.name.name),
                                decl.name.span,
                            )
                            .label("no effect")
                            .help("give it an effect, e.g. `capacity 1/round`"),
                        );
                    }
                    if let (Some(node), Some(during)) = (node, during) {
                        faults.push(FaultInfo {
                            name: decl.name.name.clone(),
                            node,
                            during,
                            capacity,
                        });
                    }
                }
                Item::Window(id, range) => {
                    if windows.iter().any(|(n, _)| *n == id.name) {
                        self.err(
                            Diagnostic::new(
                                format!("window `{}` is declared twice", id.name),
                                id.span,
                            )
                            .label("second declaration"),
                        );
                        continue;
                    }
                    windows.push((id.name.clone(), range.clone()));
                }
                _ => {}
            }
        }

        // Pass 3: variants and sweeps.
        let mut variants: Vec<VariantSpec> = Vec::new();
        let mut variant_spans: Vec<Span> = Vec::new();
        for item in &ast.items {
            if let Item::Variant(decl) = item {
                if variants.iter().any(|v| v.name == decl.name.name) {
                    self.err(
                        Diagnostic::new(
                            format!("variant `{}` is declared twice", decl.name.name),
                            decl.name.span,
                        )
                        .label("second declaration"),
                    );
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
                        VariantItem::Without(id) => {
                            match faults.iter().position(|f| f.name == id.name) {
                                Some(i) => o.without.push(i),
                                None => self.err(
                                    Diagnostic::new(
                                        format!("unknown fault `{}`", id.name),
                                        id.span,
                                    )
                                    .label("no fault of this name")
                                    .maybe_help(did_you_mean(
                                        &id.name,
                                        faults.iter().map(|f| f.name.as_str()),
                                    )),
                                ),
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
                    self.err(
                        Diagnostic::new(
                            format!("sweep `{}` is declared twice", decl.name.name),
                            decl.name.span,
                        )
                        .label("second declaration"),
                    );
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
                sweeps.push(SweepSpec {
                    name: decl.name.name.clone(),
                    label: decl.label.clone().unwrap_or_else(|| decl.name.name.clone()),
                    base,
                    axes,
                    from_cli: false,
                });
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
            match item {
                Item::Report(items) => {
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
                                    self.err(
                                        Diagnostic::new(
                                            format!("measure `{}` is declared twice", id.name),
                                            id.span,
                                        )
                                        .label("second declaration"),
                                    );
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
                            ReportItem::Line(raw, span) => {
                                let ctx = Context {
                                    variant: variants.len() == 1,
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
                                                    if let Some((r, needs)) = self.expr(&names, &e)
                                                    {
                                                        self.check_context(needs, ctx, e.span);
                                                        parts.push(LinePart::Value(
                                                            r,
                                                            digits.unwrap_or(2),
                                                        ));
                                                    }
                                                }
                                            }
                                        }
                                        report.items.push(ReportItemSpec::Line(parts));
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
                        }
                    }
                }
                Item::Expect(e) => {
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
                _ => {}
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
                .maybe_help(did_you_mean(&id.name, params.keys().map(String::as_str)))
                .maybe_help(if params.is_empty() {
                    Some(format!("declare it: `param {} = ...`", id.name))
                } else {
                    None
                }),
        );
        false
    }

    fn check_param_refs(&mut self, ast: &ScenarioAst, params: &IndexMap<String, Value>) {
        type Refs = Vec<(String, Span)>;
        let mut refs: Refs = Vec::new();
        let mut value = |v: &Value, refs: &mut Refs| {
            if let ValueKind::Param(n) = &v.kind {
                refs.push((n.clone(), v.span));
            }
        };
        let range = |r: &Range, refs: &mut Refs, value: &mut dyn FnMut(&Value, &mut Refs)| {
            value(&r.start, refs);
            value(&r.end, refs);
        };
        for item in &ast.items {
            match item {
                Item::Run(v) | Item::Param(_, v) => value(v, &mut refs),
                Item::Source(s) => {
                    for p in &s.props {
                        if let SourceProp::Rate(r) = p {
                            value(&r.value, &mut refs);
                            if let Some(d) = &r.during {
                                range(d, &mut refs, &mut value);
                            }
                        }
                    }
                }
                Item::Service(s) => {
                    for p in &s.props {
                        match p {
                            ServiceProp::Capacity(v) => value(v, &mut refs),
                            ServiceProp::Retry(r) => {
                                if let Some(a) = &r.attempts {
                                    value(a, &mut refs);
                                }
                                match &r.backoff {
                                    Some(BackoffAst::Fixed(v)) => value(v, &mut refs),
                                    Some(BackoffAst::Exponential {
                                        base,
                                        multiplier,
                                        cap,
                                    }) => {
                                        value(base, &mut refs);
                                        for v in multiplier.iter().chain(cap.iter()) {
                                            value(v, &mut refs);
                                        }
                                    }
                                    None => {}
                                }
                            }
                        }
                    }
                }
                Item::Fault(f) => {
                    for p in &f.props {
                        match p {
                            FaultProp::During(r) => range(r, &mut refs, &mut value),
                            FaultProp::Capacity(v) => value(v, &mut refs),
                            FaultProp::On(_) => {}
                        }
                    }
                }
                Item::Window(_, r) => range(r, &mut refs, &mut value),
                Item::Variant(v) => {
                    for vi in &v.items {
                        match vi {
                            VariantItem::Set(_, val) => value(val, &mut refs),
                            VariantItem::Source(_, rates) => {
                                for r in rates {
                                    value(&r.value, &mut refs);
                                    if let Some(d) = &r.during {
                                        range(d, &mut refs, &mut value);
                                    }
                                }
                            }
                            VariantItem::Without(_) => {}
                        }
                    }
                }
                Item::Sweep(s) => {
                    for (_, vals) in &s.axes {
                        for v in vals {
                            value(v, &mut refs);
                        }
                    }
                }
                _ => {}
            }
        }
        for (name, span) in refs {
            if !params.contains_key(&name) {
                self.err(
                    Diagnostic::new(format!("unknown param `${name}`"), span)
                        .label("no param of this name")
                        .maybe_help(did_you_mean(&name, params.keys().map(String::as_str)))
                        .maybe_help(if params.is_empty() {
                            Some(format!("declare it: `param {name} = ...`"))
                        } else {
                            None
                        }),
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
                .help("name it first, e.g. `storm.during.db.call_rate` or `storm.recovery`"),
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
            label: t.label.clone().unwrap_or_else(|| default_label.join(": ")),
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
                            .maybe_help(did_you_mean(p, names.params.keys().map(String::as_str))),
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
            let msg = if known.contains(&id.name.as_str()) {
                format!(
                    "`{}` is out of place: a path reads variant, window, node, then the value",
                    id.name
                )
            } else {
                format!("unknown variant, window or node `{}`", id.name)
            };
            self.err(
                Diagnostic::new(msg, id.span)
                    .label("here")
                    .maybe_help(did_you_mean(&id.name, known)),
            );
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
                        .maybe_help(did_you_mean(other, FUNCTIONS))
                        .maybe_help(Some(format!("functions: {}", FUNCTIONS.join(", ")))),
                );
                None
            }
        }
    }
}

/// The built-in functions of report expressions.
pub const FUNCTIONS: [&str; 7] = [
    "recovery",
    "peak",
    "peak_tick",
    "call_bound",
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
