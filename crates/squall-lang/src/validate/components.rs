//! Pass 2: services, sources, faults, windows and endpoints, which all name
//! nodes the chains declared.

use crate::ast::*;
use crate::diagnostic::Diagnostic;
use crate::model::*;
use crate::twice::Twice;

use super::Validator;
use crate::decl::{FaultDecl, FeedDecl, Scenario, SourceDecl};
use crate::unknown::Unknown;

impl Validator {
    /// `every 40s phase 10s` on several nodes where `step 10s per field`
    /// was meant: a phase shifts the fault alike for every field, a step
    /// shifts field `i` by `i` steps. Both are valid, and they give other
    /// numbers, so a lone phase on several nodes must say which it means.
    fn check_phase_on_several(&mut self, x: &EveryAst, nodes: usize, fault: &str) {
        let (Some(phase), None) = (&x.phase, &x.step) else {
            return;
        };
        let zero = matches!(
            phase.kind,
            ValueKind::Number(n) | ValueKind::Duration { n, .. } if n == 0.0
        );
        if nodes < 2 || zero {
            return;
        }
        let p = crate::format::value_text(phase);
        self.err(
            Diagnostic::new(
                format!(
                    "`phase {p}` shifts fault `{fault}` alike on all {nodes} of its nodes; did you mean `step {p} per field`?"
                ),
                phase.span,
            )
            .label("the same shift for every field")
            .help(format!(
                "`step {p} per field` shifts field `i` by `i` steps; to shift every field alike, say so: `phase {p} step 0 per field`"
            )),
        );
    }

    /// Reads services, sources, faults, windows and endpoints into `s`, then
    /// checks each node's `response` block and the warm-up.
    pub(super) fn components(&mut self, ast: &ScenarioAst, s: &mut Scenario) {
        let node_names: Vec<String> = s.nodes.iter().map(|n| n.name.clone()).collect();
        let nodes = &mut s.nodes;
        let (policies, backoffs, rngs) = (&s.policies, &s.backoffs, &s.rngs);
        let mut sources: Vec<SourceDecl> = Vec::new();
        let mut feeds: Vec<FeedDecl> = Vec::new();
        let sender_names = super::sending::sender_names(ast);
        let mut faults: Vec<FaultDecl> = Vec::new();
        let mut windows: Vec<(String, Range)> = Vec::new();
        for item in &ast.items {
            match item {
                Item::Service(decl) => {
                    for (k, id) in decl.names.iter().enumerate() {
                        if decl.names[..k].iter().any(|n| n.name == id.name) {
                            self.err(Twice::InServiceLine { service: &id.name }.at(id.span));
                            continue;
                        }
                        let Some(i) = self.node(&node_names, id) else {
                            continue;
                        };
                        for prop in &decl.props {
                            match prop {
                                ServiceProp::Timed(t) => {
                                    self.check_error_status(t);
                                    // A node that fans out to its fields
                                    // waits for each at most its timeout.
                                    if t.key.name == "timeout" && nodes[i].fanout.is_empty() {
                                        self.expect_caller(&nodes[i], "a timeout", t.span);
                                    }
                                    if nodes[i].timed.iter().any(|x| x.key.name == t.key.name) {
                                        self.err(
                                            Twice::ServiceSetting {
                                                service: &id.name,
                                                setting: &t.key.name,
                                            }
                                            .at(t.span),
                                        );
                                    }
                                    nodes[i].timed.push(t.clone());
                                }
                                ServiceProp::Capacity(v) => {
                                    if nodes[i].capacity.is_some() {
                                        self.err(
                                            Twice::ServiceCapacity { service: &id.name }.at(v.span),
                                        );
                                    }
                                    nodes[i].capacity = Some(v.clone());
                                }
                                ServiceProp::Retry(r) => {
                                    if nodes[i].retry.is_some() {
                                        self.err(
                                            Twice::Block {
                                                owner: &id.name,
                                                block: "retry",
                                            }
                                            .at(r.span),
                                        );
                                    }
                                    self.caller_block(
                                        &nodes[i], prop, true, policies, backoffs, rngs,
                                    );
                                    nodes[i].retry = Some(r.clone());
                                }
                                ServiceProp::Response(r) => {
                                    if nodes[i].response.is_some() {
                                        self.err(
                                            Twice::Block {
                                                owner: &id.name,
                                                block: "response",
                                            }
                                            .at(r.span),
                                        );
                                    }
                                    nodes[i].response = Some(r.clone());
                                }
                                ServiceProp::LibraryBreaker(b) => {
                                    if nodes[i].breaker.is_some()
                                        || nodes[i].library_breaker.is_some()
                                    {
                                        self.err(Twice::Breaker { owner: &id.name }.at(b.span));
                                    }
                                    self.caller_block(
                                        &nodes[i], prop, true, policies, backoffs, rngs,
                                    );
                                    nodes[i].library_breaker = Some(b.clone());
                                }
                                ServiceProp::Budget(b)
                                | ServiceProp::Hedge(b)
                                | ServiceProp::Limiter(b)
                                | ServiceProp::Throttle(b) => {
                                    let block = match prop {
                                        ServiceProp::Budget(_) => "budget",
                                        ServiceProp::Hedge(_) => "hedge",
                                        ServiceProp::Limiter(_) => "limiter",
                                        _ => "throttle",
                                    };
                                    if nodes[i].kind_block(block).is_some() {
                                        self.err(
                                            Twice::Block {
                                                owner: &id.name,
                                                block,
                                            }
                                            .at(b.span),
                                        );
                                    }
                                    self.caller_block(
                                        &nodes[i], prop, true, policies, backoffs, rngs,
                                    );
                                    *nodes[i].kind_block(block) = Some(b.clone());
                                }
                                ServiceProp::Breaker(b) => {
                                    if nodes[i].breaker.is_some()
                                        || nodes[i].library_breaker.is_some()
                                    {
                                        self.err(Twice::Breaker { owner: &id.name }.at(b.span));
                                    }
                                    self.caller_block(
                                        &nodes[i], prop, true, policies, backoffs, rngs,
                                    );
                                    nodes[i].breaker = Some(b.clone());
                                }
                            }
                        }
                    }
                }
                Item::Source(decl) => {
                    if sources.iter().any(|s| s.name == decl.name.name)
                        || feeds.iter().any(|f| f.source.name == decl.name.name)
                    {
                        self.declared_twice("source", &decl.name);
                        continue;
                    }
                    let mut entry = None;
                    let mut feeds_to: Option<Ident> = None;
                    let mut arrivals = Arrivals::Uniform;
                    let mut rates = Vec::new();
                    let mut times: Vec<AtTime> = Vec::new();
                    let mut request: Option<RequestAst> = None;
                    let mut ops: Vec<OpAst> = Vec::new();
                    let mut deadline: Option<Timed> = None;
                    let mut clients: Option<Timed> = None;
                    let mut think: Option<Timed> = None;
                    let mut serial: Option<Timed> = None;
                    let mut priority: Option<Timed> = None;
                    for p in &decl.props {
                        match p {
                            SourceProp::Timed(t) => {
                                let slot = match t.key.name.as_str() {
                                    "clients" => &mut clients,
                                    "think" => &mut think,
                                    "serial" => &mut serial,
                                    "priority" => &mut priority,
                                    _ => &mut deadline,
                                };
                                if slot.is_some() {
                                    self.err(
                                        Twice::SourceSays {
                                            source: &decl.name.name,
                                            keyword: &t.key.name,
                                        }
                                        .at(t.span),
                                    );
                                }
                                *slot = Some(t.clone());
                            }
                            SourceProp::Rate(r) => {
                                if !self.check_ramp(r) {
                                    continue;
                                }
                                if r.during.is_none()
                                    && rates.iter().any(|x: &RateAst| x.during.is_none())
                                {
                                    self.err(
                                        Twice::BaseRate { source: &decl.name.name }.at(r.value.span)
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
                                            self.err(Unknown::new("policy", &p.name).at(
                                                p.span,
                                                policies.iter().map(|(n, _)| n.as_str()),
                                            ));
                                        }
                                    }
                                }
                                ops.extend(list.iter().cloned());
                            }
                            SourceProp::Enters(id) => {
                                if entry.is_some() || feeds_to.is_some() {
                                    self.err(Twice::Enters.at(id.span));
                                }
                                if sender_names.contains(&id.name.as_str()) {
                                    feeds_to = Some(id.clone());
                                } else {
                                    entry = self.node(&node_names, id);
                                }
                            }
                            SourceProp::Arrivals(id) => {
                                arrivals = match id.name.as_str() {
                                    "uniform" => Arrivals::Uniform,
                                    "poisson" => Arrivals::Poisson,
                                    other => {
                                        self.err(
                                            Unknown::new("arrival process", other)
                                                .label("expected `uniform` or `poisson`")
                                                .at(id.span, ["uniform", "poisson"]),
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
                    self.check_clients(
                        &decl.name,
                        clients.as_ref(),
                        think.as_ref(),
                        serial.as_ref(),
                        !rates.is_empty(),
                        !times.is_empty() || !ops.is_empty(),
                    );
                    let scheduled = !times.is_empty() || !ops.is_empty();
                    if think.is_none() && serial.is_none() && !scheduled {
                        self.check_base_rate(&decl.name, &rates);
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
                    let source = SourceDecl {
                        name: decl.name.name.clone(),
                        entry: entry.unwrap_or(0),
                        arrivals,
                        rates,
                        times,
                        request,
                        ops,
                        deadline,
                        clients,
                        think,
                        serial,
                        priority,
                    };
                    if let Some(sender) = feeds_to {
                        self.check_feed(decl, &sender);
                        feeds.push(FeedDecl { sender, source });
                    } else if entry.is_some() {
                        sources.push(source);
                    }
                }
                Item::Fault(decl) => {
                    if faults.iter().any(|f| f.name == decl.name.name) {
                        self.declared_twice("fault", &decl.name);
                        continue;
                    }
                    let mut node = None;
                    let mut replicas = Vec::new();
                    let mut during = None;
                    let mut capacity = None;
                    let mut fail = None;
                    let mut every: Option<EveryAst> = None;
                    let mut timed: Vec<Timed> = Vec::new();
                    let mut node_given = false;
                    let mut spans = Vec::new();
                    for p in &decl.props {
                        match p {
                            FaultProp::Timed(t) => {
                                self.check_error_status(t);
                                if timed.iter().any(|x| x.key.name == t.key.name) {
                                    self.err(
                                        Twice::FaultSays {
                                            fault: &decl.name.name,
                                            keyword: &t.key.name,
                                        }
                                        .at(t.span),
                                    );
                                }
                                timed.push(t.clone());
                            }
                            FaultProp::On(ids) => {
                                if node_given {
                                    if let Some(id) = ids.first().map(|t| &t.node) {
                                        self.err(
                                            Twice::FaultSays {
                                                fault: &decl.name.name,
                                                keyword: "on",
                                            }
                                            .at(id.span)
                                            .help("name every node in one `on a, b`"),
                                        );
                                    }
                                }
                                node_given = true;
                                self.check_targets(&decl.name.name, ids);
                                replicas = ids.iter().map(|t| t.replica).collect();
                                spans = ids.iter().map(Target::span).collect();
                                node = self.fault_targets(&decl.name.name, ids, &node_names);
                            }
                            FaultProp::During(r) => {
                                if during.is_some() {
                                    self.err(
                                        Twice::FaultSays {
                                            fault: &decl.name.name,
                                            keyword: "during",
                                        }
                                        .at(r.span)
                                        .help("declare a second fault for a second time range"),
                                    );
                                }
                                during = Some(r.clone())
                            }
                            FaultProp::Capacity(v) => {
                                if capacity.is_some() {
                                    self.err(
                                        Twice::FaultCapacity {
                                            fault: &decl.name.name,
                                        }
                                        .at(v.span),
                                    );
                                }
                                capacity = Some(v.clone())
                            }
                            FaultProp::Fail(r) => {
                                self.check_response(r);
                                self.check_fail_status(r);
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
                    if capacity.is_none() && fail.is_none() && timed.is_empty() {
                        self.err(
                            Diagnostic::new(
                                format!("fault `{}` changes nothing", decl.name.name),
                                decl.name.span,
                            )
                            .label("no effect")
                            .help("give it an effect, e.g. `capacity 1/round` or `fail 503`"),
                        );
                    }
                    if let (Some(x), Some((nodes, _))) = (&every, &node) {
                        self.check_phase_on_several(x, nodes.len(), &decl.name.name);
                    }
                    self.check_link_effects(decl);
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
                                start_terms: Vec::new(),
                                end_terms: Vec::new(),
                                half_open: false,
                            }
                        })
                    });
                    if let (Some((node, callers)), Some(during)) = (node, during) {
                        faults.push(FaultDecl {
                            name: decl.name.name.clone(),
                            nodes: node,
                            callers,
                            spans,
                            replicas,
                            during,
                            capacity,
                            fail,
                            every,
                            timed,
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
                            Twice::Block {
                                owner: &decl.node.name,
                                block: "endpoint",
                            }
                            .at(decl.node.span),
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
        s.sources = sources;
        s.feeds = feeds;
        s.faults = faults;
        s.windows = windows;

        for i in 0..s.nodes.len() {
            self.check_response_block(&s.nodes, i);
        }
        if s.warmup.is_some() && s.run_range.is_some() {
            if let Some(w) = &s.warmup {
                self.err(
                    Diagnostic::new("`warmup` goes with `run N`, not with `run a..b`", w.span)
                        .label("warm-up with an explicit range")
                        .help("with `run a..b` the range says everything: declare a window for the measured part"),
                );
            }
        }
    }
}
