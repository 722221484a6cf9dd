//! Syntax tree to a validated [`Scenario`] (its declarations are in
//! [`crate::decl`]).
//!
//! Validation happens in two layers:
//!
//! 1. **Structure** ([`load`], this module): names are bound (nodes, sources,
//!    faults, windows, variants, sweeps, params, measures), the call graph is
//!    checked (no node calls itself, no cycles, one downstream per node), and
//!    report expressions are resolved.
//! 2. **Values** ([`Scenario::model`], in [`crate::resolve`]): params are
//!    substituted and every value is converted to ticks of the file's clock. [`load`] resolves the base
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
//! - `sending`: providers and senders, their names;
//! - `report`: pass 4, measures, lines, diagnoses and the other report items;
//!   `chart` resolves its `chart` items, `table` its tables, and `expect` the
//!   `expect` lines and their checks;
//! - `expr`: report expressions, paths and functions, and the context a value
//!   needs;
//! - `names`: looking up declared names, with "did you mean" help;
//! - `checks`: retry policies, backoffs, request and response blocks.
//!
//! Something said twice that may be said once is described with the crate's
//! `Twice` kind (`src/twice.rs`), which words every such diagnostic.

mod chart;
mod checks;
mod clients;
mod components;
mod expect;
mod expr;
mod kind_block;
mod links;
mod names;
mod report;
mod runs;
mod sending;
mod statuses;
mod structure;
mod table;
mod variant_changes;

use std::sync::Arc;

use indexmap::IndexMap;

use crate::ast::*;
use crate::decl::{FaultDecl, NodeDecl, Scenario, SweepDecl, VariantDecl};
use crate::diagnostic::{dedup, Diagnostic, Diagnostics};
use crate::model::*;
use crate::parse::parse_file;

/// The seed used when a file names none.
pub const DEFAULT_SEED: u64 = 1;

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

struct Validator {
    errors: Vec<Diagnostic>,
    source: String,
    /// The replicas report expressions read (`Scenario::replica_reads`).
    replica_reads: Vec<(usize, u64, crate::span::Span, crate::Metric)>,
}

/// The names a path may use before its last segment.
struct Names<'a> {
    variants: &'a [VariantDecl],
    windows: &'a [(String, Range)],
    nodes: &'a [NodeDecl],
    faults: &'a [FaultDecl],
    measures: &'a [(String, RExpr, Needs)],
    params: &'a IndexMap<String, Value>,
    sweeps: &'a [SweepDecl],
    senders: &'a [SendBlockAst],
    clock: Clock,
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
            replica_reads: Vec::new(),
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
        self.link_decls(ast, &mut s);

        // Pass 3: variants and sweeps.
        let variant_spans = self.variants(ast, &mut s);
        self.sweeps(ast, &mut s);
        // Providers and senders (their settings are read when resolved).
        self.sending(ast, &mut s);

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
        s.replica_reads = std::mem::take(&mut self.replica_reads);

        if !self.errors.is_empty() {
            return None;
        }
        Some(s)
    }
}

/// The built-in functions of report expressions.
pub const FUNCTIONS: [&str; 15] = [
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
    "per_second",
    "min",
    "max",
    "abs",
];
