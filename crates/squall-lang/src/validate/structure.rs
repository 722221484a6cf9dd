//! Pass 1: the clock, run, seed, rngs, backoffs, policies, params and
//! chains. Chains declare the nodes in order of first mention and draw the
//! call graph, which must have no self-calls, no cycles and one downstream
//! per node.

use std::collections::HashMap;
use std::sync::Arc;

use indexmap::IndexMap;
use petgraph::algo::has_path_connecting;
use petgraph::graph::{DiGraph, NodeIndex};

use crate::ast::*;
use crate::diagnostic::Diagnostic;
use crate::model::*;
use crate::not_a::NotA;
use crate::span::Span;
use crate::twice::Twice;

use super::{Validator, DEFAULT_SEED};
use crate::decl::{NodeDecl, Scenario};
use crate::unknown::Unknown;

impl Validator {
    /// Reads the top-level declarations and the chains into a scenario whose
    /// later parts (sources, faults, windows, variants, sweeps, report) are
    /// still empty.
    pub(super) fn declarations(&mut self, ast: &ScenarioAst) -> Scenario {
        let mut clock: Option<(Clock, Span)> = None;
        let mut run: Option<Value> = None;
        let mut run_range: Option<Range> = None;
        let mut warmup: Option<Value> = None;
        let mut series: Option<Timed> = None;
        let mut epoch: Option<i64> = None;
        let mut rngs: Vec<RngAst> = Vec::new();
        let mut backoffs: Vec<(String, BackoffAst)> = Vec::new();
        let mut policies: Vec<(String, RetryAst)> = Vec::new();
        let mut seed: Option<u64> = None;
        let mut work_budget: Option<u64> = None;
        let mut draws: Option<bool> = None;
        let mut params: IndexMap<String, Value> = IndexMap::new();
        let mut param_spans: IndexMap<String, Span> = IndexMap::new();

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
                                Unknown::new("clock", other)
                                    .label("expected `round`, `ms` or `s`")
                                    .at(id.span, ["round", "ms", "s"]),
                            );
                            continue;
                        }
                    };
                    if clock.is_some() {
                        self.err(Twice::Clock.at(id.span));
                    }
                    clock = Some((c, id.span));
                }
                Item::Warmup(v) => {
                    if warmup.is_some() {
                        self.err(Twice::Setting { keyword: "warmup" }.at(v.span));
                    }
                    warmup = Some(v.clone());
                }
                Item::Series(t) => {
                    if series.is_some() {
                        self.err(Twice::Setting { keyword: "series" }.at(t.span));
                    }
                    series = Some(t.clone());
                }
                Item::RunRange(r) => {
                    if run.is_some() || run_range.is_some() {
                        self.err(Twice::Setting { keyword: "run" }.at(r.span));
                    }
                    run_range = Some(r.clone());
                }
                Item::Epoch(text, span) => match crate::date::parse_date(text) {
                    Some(ms) => {
                        if epoch.is_some() {
                            self.err(Twice::Setting { keyword: "epoch" }.at(*span));
                        }
                        epoch = Some(ms);
                    }
                    None => self.err(NotA::date(text).at(*span)),
                },
                Item::Rng(decl) => {
                    if rngs.iter().any(|r: &RngAst| r.name.name == decl.name.name) {
                        self.declared_twice("rng", &decl.name);
                        continue;
                    }
                    if let Some(a) = &decl.algorithm {
                        if !["mulberry32", "splitmix64"].contains(&a.name.as_str()) {
                            self.err(
                                Unknown::new("generator", &a.name)
                                    .label("expected `mulberry32` or `splitmix64`")
                                    .at(a.span, ["mulberry32", "splitmix64"]),
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
                    if backoffs
                        .iter()
                        .any(|(n, _): &(String, BackoffAst)| *n == name.name)
                    {
                        self.declared_twice("backoff", name);
                        continue;
                    }
                    backoffs.push((name.name.clone(), b.clone()));
                }
                Item::Policy(name, r) => {
                    if policies
                        .iter()
                        .any(|(n, _): &(String, RetryAst)| *n == name.name)
                    {
                        self.declared_twice("policy", name);
                        continue;
                    }
                    policies.push((name.name.clone(), r.clone()));
                }
                Item::Run(v) => {
                    if run.is_some() || run_range.is_some() {
                        self.err(Twice::Setting { keyword: "run" }.at(v.span));
                    }
                    run = Some(v.clone());
                }
                Item::Seed(s, span) => {
                    if seed.is_some() {
                        self.err(Twice::Setting { keyword: "seed" }.at(*span));
                    }
                    seed = Some(*s);
                }
                Item::Draws(w) => {
                    if draws.is_some() {
                        self.err(Twice::Setting { keyword: "draws" }.at(w.span));
                    }
                    match w.name.as_str() {
                        "common" => draws = Some(true),
                        "separate" => draws = Some(false),
                        other => self.err(
                            Unknown::new("kind of draws", other)
                                .label("expected `common` or `separate`")
                                .at(w.span, ["common", "separate"]),
                        ),
                    }
                }
                Item::WorkBudget(n, _, span) => {
                    if work_budget.is_some() {
                        self.err(
                            Twice::Setting {
                                keyword: "work_budget",
                            }
                            .at(*span),
                        );
                    }
                    work_budget = Some(*n);
                }
                Item::Param(name, value) => {
                    if name.name == crate::decl::SEED_AXIS {
                        self.err(
                            Diagnostic::new("a param cannot be called `seed`", name.span)
                                .label("the scenario's seed")
                                .help("`seed in [..]` in a sweep varies the scenario's seed; name the param otherwise"),
                        );
                    } else if param_spans.contains_key(&name.name) {
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
                                    budget: None,
                                    hedge: None,
                                    limiter: None,
                                    throttle: None,
                                    library_breaker: None,
                                    routes: Vec::new(),
                                    fanout: Vec::new(),
                                    response: None,
                                    timed: Vec::new(),
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
        let sends = ast.items.iter().any(|i| matches!(i, Item::Sender(_)));
        if nodes.is_empty() && !sends {
            self.err(
                Diagnostic::new("the scenario has no `chain`", ast.name_span)
                    .label("this scenario")
                    .help("declare who calls whom, e.g. `chain edge -> api -> db`"),
            );
        }
        Scenario {
            file: String::new(),
            source: Arc::from(""),
            name: ast.name.clone(),
            clock,
            seed: seed.unwrap_or(DEFAULT_SEED),
            common_draws: draws.unwrap_or(false),
            work_budget,
            run,
            run_range,
            warmup,
            series,
            epoch,
            rngs,
            backoffs,
            policies,
            params,
            nodes,
            sources: Vec::new(),
            feeds: Vec::new(),
            faults: Vec::new(),
            links: Vec::new(),
            windows: Vec::new(),
            variants: Vec::new(),
            sweeps: Vec::new(),
            report: ReportSpec::default(),
            replica_reads: Vec::new(),
            implicit_variant: false,
            providers: Vec::new(),
            senders: Vec::new(),
        }
    }

    pub(super) fn link(
        &mut self,
        nodes: &mut [NodeDecl],
        graph: &mut DiGraph<usize, ()>,
        gidx: &[NodeIndex],
        from: usize,
        to: usize,
        span: Span,
    ) {
        if from != to {
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
        }
        if self.add_edge(nodes, graph, gidx, from, to, span) {
            nodes[from].downstream = Some(to);
        }
    }

    /// Adds the call `from -> to` to the graph unless it is a self-call or
    /// closes a cycle (each reported); true when added. Shared by chains
    /// and fan-outs.
    fn add_edge(
        &mut self,
        nodes: &[NodeDecl],
        graph: &mut DiGraph<usize, ()>,
        gidx: &[NodeIndex],
        from: usize,
        to: usize,
        span: Span,
    ) -> bool {
        if from == to {
            self.err(
                Diagnostic::new(format!("`{}` calls itself", nodes[from].name), span)
                    .label("a service calling itself")
                    .help("a chain lists distinct nodes from caller to callee"),
            );
            return false;
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
            return false;
        }
        graph.add_edge(gidx[from], gidx[to], ());
        true
    }

    /// Retries and breakers guard calls to one downstream node: `what` on a
    /// node that calls nothing, or that fans out to fields, is an error.
    pub(super) fn expect_caller(&mut self, node: &NodeDecl, what: &str, span: Span) {
        if node.downstream.is_some() {
            return;
        }
        let d = if node.fanout.is_empty() {
            let (says, why) = if what == "a retry" {
                ("retries", "retries belong to the caller; put this block")
            } else if what == "a timeout" {
                (
                    "has a timeout",
                    "a timeout limits the caller's wait for a try; put it",
                )
            } else if what == "a hedge" {
                ("hedges", "hedged tries belong to the caller; put the hedge")
            } else if what == "a limiter" {
                (
                    "has a concurrency limiter",
                    "a limiter bounds the tries a caller has in flight; put it",
                )
            } else if what == "a throttle" {
                (
                    "throttles its tries",
                    "a throttle rejects the caller's tries before they are sent; put it",
                )
            } else if what == "a budget" {
                (
                    "has a retry budget",
                    "a budget limits the caller's retries; put it",
                )
            } else {
                (
                    "has a breaker",
                    "a breaker guards calls to a dependency; put it",
                )
            };
            // A `timeout` on its own line is the caller's, even after a
            // `queue` line; the queue's own wait limit is written on it.
            let queue = if what == "a timeout" {
                "; a limit on the wait in this node's queue goes on the `queue` line: `queue 100 timeout 50ms`"
            } else {
                ""
            };
            Diagnostic::new(format!("`{}` {says} but calls nothing", node.name), span)
                .label(format!(
                    "{} on a node at the bottom of its chain",
                    &what[2..]
                ))
                .help(format!(
                    "{why} on the service that calls `{}`{queue}",
                    node.name
                ))
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

    pub(super) fn link_fanout(
        &mut self,
        nodes: &mut [NodeDecl],
        graph: &mut DiGraph<usize, ()>,
        gidx: &[NodeIndex],
        from: usize,
        to: usize,
        span: Span,
    ) {
        if from != to && nodes[from].fanout.contains(&to) {
            return;
        }
        if self.add_edge(nodes, graph, gidx, from, to, span) {
            nodes[from].fanout.push(to);
        }
    }
}
