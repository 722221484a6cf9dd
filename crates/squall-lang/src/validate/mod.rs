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
//!
//! The validator's passes live in submodules, one concept each:
//!
//! - `structure`: pass 1, the clock, run, seed, rngs, backoffs, policies,
//!   params and chains, and the call graph the chains draw;
//! - `components`: pass 2, services, sources, faults, windows and endpoints;
//! - `runs`: pass 3, variants and sweeps, and names that collide across kinds;
//! - `report`: pass 4, measures, lines, diagnoses and the other report items;
//!   `table` resolves tables and `expect` the checks of `expect` lines;
//! - `expr`: report expressions, paths and functions, and the context a value
//!   needs;
//! - `names`: looking up declared names, with "did you mean" help;
//! - `checks`: retry policies, backoffs, request and response blocks.

mod checks;
mod components;
mod expect;
mod expr;
mod names;
mod report;
mod runs;
mod structure;
mod table;

use std::collections::HashSet;
use std::sync::Arc;

use indexmap::IndexMap;

use crate::ast::*;
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::model::*;
use crate::parse::parse_file;
use crate::span::Span;

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
    // A byte-order mark some editors write is not part of the scenario.
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
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

impl Names<'_> {
    fn sweeps_position(&self, id: &Ident) -> Option<usize> {
        self.sweeps.iter().position(|s| s.name == id.name)
    }
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
        // Pass 1: clock, run, seed, params, chains (nodes).
        let mut s = self.declarations(ast);

        // Pass 2: services, sources, faults, windows.
        self.components(ast, &mut s);

        // Pass 3: variants and sweeps.
        let variant_spans = self.variants(ast, &mut s);
        self.sweeps(ast, &mut s);

        // Names used in paths must not collide across kinds.
        self.check_name_collisions(ast, &s, &variant_spans);

        // Params referenced anywhere must exist.
        self.check_param_refs(ast, &s.params);

        // Pass 4: the report and expectations.
        let (measures, mut report) = self.report(ast, &s);
        // `expect` lines may come anywhere in the file, before or after the
        // measures they use: they are resolved once the report is.
        self.expects(ast, &s, &measures, &mut report);
        report.measures = measures
            .into_iter()
            .map(|(name, expr, _)| MeasureSpec { name, expr })
            .collect();
        s.report = report;

        if !self.errors.is_empty() {
            return None;
        }
        Some(s)
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
