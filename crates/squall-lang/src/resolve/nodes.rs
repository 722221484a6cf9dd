//! Nodes: a service's capacity and policies, its endpoints' scripts and
//! its composite response.

use super::Cx;
use crate::ast::{ResponseBlockAst, ServiceChange, ServiceProp, StepAst, ValueKind};
use crate::decl::{NodeDecl, Overrides, Scenario};
use crate::diagnostic::Diagnostic;
use crate::model::{
    Backoff, CompositeSpec, Degradation, FieldSpec, LedgerSpec, Method, NodeSpec, RouteSpec,
    StepSpec,
};
use crate::needs::{Need, Needs};
use crate::units;

impl Scenario {
    /// Node `i` as a variant's `service` changes leave it, or `None` when
    /// no change names it: each replaces the property of its kind (either
    /// breaker replaces both kinds; a timed setting replaces the node's
    /// setting of the same keyword, `latency` its `latency`) or removes it,
    /// in order.
    pub(super) fn changed_node(&self, i: usize, n: &NodeDecl, o: &Overrides) -> Option<NodeDecl> {
        let mut changes = o.services.iter().filter(|(j, _)| *j == i).peekable();
        changes.peek()?;
        let mut n = n.clone();
        for c in changes.flat_map(|(_, c)| c) {
            match c {
                ServiceChange::Set(ServiceProp::Retry(r)) => n.retry = Some(r.clone()),
                ServiceChange::Set(ServiceProp::Capacity(v)) => n.capacity = Some(v.clone()),
                ServiceChange::Set(ServiceProp::Breaker(b)) => {
                    n.breaker = Some(b.clone());
                    n.library_breaker = None;
                }
                ServiceChange::Set(ServiceProp::LibraryBreaker(b)) => {
                    n.library_breaker = Some(b.clone());
                    n.breaker = None;
                }
                ServiceChange::Set(ServiceProp::Budget(b)) => n.budget = Some(b.clone()),
                // A timed setting replaces the node's setting of its keyword.
                ServiceChange::Set(ServiceProp::Timed(t)) => {
                    n.timed.retain(|x| x.key.name != t.key.name);
                    n.timed.push(t.clone());
                }
                ServiceChange::Set(ServiceProp::Hedge(b)) => n.hedge = Some(b.clone()),
                ServiceChange::Set(ServiceProp::Limiter(b)) => n.limiter = Some(b.clone()),
                ServiceChange::Set(ServiceProp::Throttle(b)) => n.throttle = Some(b.clone()),
                // Refused when the file was checked.
                ServiceChange::Set(ServiceProp::Response(_)) => {}
                ServiceChange::Remove(kw) => match kw.name.as_str() {
                    "retry" => n.retry = None,
                    "breaker" => {
                        n.breaker = None;
                        n.library_breaker = None;
                    }
                    "hedge" => n.hedge = None,
                    "limiter" => n.limiter = None,
                    "throttle" => n.throttle = None,
                    _ => n.budget = None,
                },
            }
        }
        Some(n)
    }

    /// One node of the run.
    pub(super) fn node(
        &self,
        n: &NodeDecl,
        cx: &mut Cx<'_>,
        backoffs: &[(String, Backoff)],
    ) -> NodeSpec {
        let o = cx.o;
        let capacity = n.capacity.as_ref().and_then(|v| {
            cx.keep(self.conv(v, o, |v| units::whole_per_tick(v, self.clock, "a capacity")))
        });
        let retry = n.retry.as_ref().and_then(|r| self.retry(r, cx, backoffs));
        let breaker = n.breaker.as_ref().and_then(|b| self.breaker(b, cx));
        let budget = n.budget.as_ref().and_then(|b| self.budget(b, cx));
        let hedge = n.hedge.as_ref().and_then(|b| self.hedge(b, n, cx));
        let limiter = n.limiter.as_ref().and_then(|b| self.limiter(b, n, cx));
        let throttle = n.throttle.as_ref().and_then(|b| self.throttle(b, n, cx));
        let library_breaker = n
            .library_breaker
            .as_ref()
            .and_then(|b| self.library_breaker(b, cx));
        if let (Some(b), None) = (&n.budget, &n.retry) {
            cx.errs.push(
                Diagnostic::new(
                    format!("`{}` has a retry budget but no retry policy", n.name),
                    b.span,
                )
                .label("nothing to refuse")
                .help("a budget refuses retries the service's `retry` would make; give it a `retry { ... }`"),
            );
        }
        let routes = n
            .routes
            .iter()
            .map(|r| RouteSpec {
                name: r.name.name.clone(),
                method: r.method.as_deref().and_then(Method::parse),
                path: r.path.clone(),
                script: r.script.iter().filter_map(|s| self.step(s, cx)).collect(),
            })
            .collect();
        let composite = n.response.as_ref().and_then(|r| self.composite(r, cx));
        let (server, caller) = self.server_and_caller(&n.timed, cx);
        let work_queue = self.work_queue(n, cx);
        NodeSpec {
            composite,
            name: n.name.clone(),
            downstream: n.downstream,
            capacity,
            retry,
            breaker,
            library_breaker,
            budget,
            hedge,
            limiter,
            throttle,
            routes,
            server,
            caller,
            work_queue,
            replicas: self.replicas(&n.timed, cx),
        }
    }

    fn composite(&self, r: &ResponseBlockAst, cx: &mut Cx<'_>) -> Option<CompositeSpec> {
        let o = cx.o;
        let mut fields = Vec::new();
        let mut ok = true;
        for f in &r.fields {
            let source = self.nodes.iter().position(|n| n.name == f.source.name);
            let bytes = cx.keep(self.conv(&f.bytes, o, |v| units::bytes(v, "a field's size")));
            let timeout = match &f.timeout {
                None => Some(None),
                Some(v) => {
                    let clock = self.clock;
                    let t = cx.keep(
                        self.conv(v, o, |v| units::fine_ticks(v, clock, "a field's timeout")),
                    );
                    if t == Some(0.0) {
                        cx.errs.push(
                            Diagnostic::new(
                                "a field timeout of 0 never waits for the field",
                                v.span,
                            )
                            .label("zero timeout"),
                        );
                    }
                    t.map(Some)
                }
            };
            match (source, bytes, timeout) {
                (Some(source), Some(bytes), Some(timeout)) => fields.push(FieldSpec {
                    name: f.name.name.clone(),
                    source,
                    core: f.core,
                    bytes,
                    timeout,
                }),
                _ => ok = false,
            }
        }
        let marker = match &r.marker {
            None => Some(0),
            Some(v) => cx.keep(self.conv(v, o, |v| units::bytes(v, "a marker's size"))),
        };
        let policy = match &r.policy {
            None => Some(Degradation::AllOrNothing),
            Some(v) => cx.keep(self.conv(v, o, |v| match &v.kind {
                ValueKind::Word(w) => Degradation::parse(w).ok_or_else(|| {
                    crate::unknown::Unknown::new("degradation policy", w)
                        .label("expected `all_or_nothing`, `skip_optional` or `stale_fallback`")
                        .at(v.span, ["all_or_nothing", "skip_optional", "stale_fallback"])
                }),
                _ => Err(Diagnostic::new("a degradation policy is a word: `all_or_nothing`, `skip_optional` or `stale_fallback`", v.span)
                    .label("not a policy")),
            })),
        };
        let ledger = match &r.ledger {
            None => Some(None),
            Some(l) => {
                let entries = match &l.entries {
                    None => Some(0),
                    Some(v) => cx.keep(self.conv(v, o, |v| units::count(v, "ledger entries"))),
                };
                let stale = match &l.stale_for {
                    None => None,
                    Some(v) => cx
                        .keep(self.conv(v, o, |v| units::tick(v, self.clock, "a staleness bound"))),
                };
                match (entries, stale) {
                    (Some(entries), Some(stale_for)) => {
                        Some(Some(LedgerSpec { entries, stale_for }))
                    }
                    _ => None,
                }
            }
        };
        let (marker, policy, ledger) = (marker?, policy?, ledger?);
        if policy == Degradation::StaleFallback && ledger.is_none() {
            cx.errs.push(
                Needs::new("`stale_fallback`", Need::AKey("ledger"))
                    .because("it serves last known values")
                    .label("no ledger to fall back on")
                    .help("add `ledger { entries 5000  stale_for 60s }` to the response")
                    .at(r.span),
            );
            return None;
        }
        ok.then_some(CompositeSpec {
            fields,
            marker,
            policy,
            ledger,
        })
    }

    fn step(&self, s: &StepAst, cx: &mut Cx<'_>) -> Option<StepSpec> {
        let o = cx.o;
        let response = self.response(&s.response, cx);
        let times = match &s.times {
            None => Some(None),
            Some(v) => cx
                .keep(self.conv(v, o, |v| units::count(v, "a step's count")))
                .map(Some),
        };
        let until = match &s.until {
            None => Some(None),
            Some(v) => cx
                .keep(self.conv(v, o, |v| units::tick(v, self.clock, "a step's end")))
                .map(Some),
        };
        Some(StepSpec {
            response: response?,
            times: times?,
            until: until?,
        })
    }
}
