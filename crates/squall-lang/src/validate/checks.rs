//! Retry policies, backoffs, request and response blocks, and a node's
//! `response` block against its fan-out.

use crate::ast::*;
use crate::diagnostic::Diagnostic;
use crate::model::*;
use crate::needs::{Need, Needs};
use crate::not_a::NotA;

use super::Validator;
use crate::decl::NodeDecl;
use crate::unknown::Unknown;

impl Validator {
    pub(super) fn check_backoff_rng(&mut self, b: &BackoffAst, rngs: &[RngAst]) {
        if let BackoffAst::Library(lib) = b {
            self.check_library_backoff(lib);
        }
        if let BackoffAst::FullJitter { rng: Some(r), .. }
        | BackoffAst::EqualJitter { rng: Some(r), .. }
        | BackoffAst::Decorrelated { rng: Some(r), .. } = b
        {
            let _ = self.rng_index(rngs, Some(r));
        }
    }

    /// A caller's block on `node` (`retry`, `budget`, `breaker` in either
    /// form, `hedge`, `limiter`): refused on a node that calls nobody, and, when
    /// `check`, held to the block's own rules. The one place a service's
    /// own block and a variant's replacement of it are checked.
    pub(super) fn caller_block(
        &mut self,
        node: &NodeDecl,
        p: &ServiceProp,
        check: bool,
        policies: &[(String, RetryAst)],
        backoffs: &[(String, BackoffAst)],
        rngs: &[RngAst],
    ) {
        let (what, span) = match p {
            ServiceProp::Retry(r) => ("a retry", r.span),
            ServiceProp::Budget(b) => ("a budget", b.span),
            ServiceProp::LibraryBreaker(b) => ("a breaker", b.span),
            ServiceProp::Breaker(b) => ("a breaker", b.span),
            ServiceProp::Hedge(b) => ("a hedge", b.span),
            ServiceProp::Limiter(b) => ("a limiter", b.span),
            ServiceProp::Throttle(b) => ("a throttle", b.span),
            _ => return,
        };
        self.expect_caller(node, what, span);
        if !check {
            return;
        }
        match p {
            ServiceProp::Retry(r) => self.check_retry(r, policies, backoffs, rngs),
            ServiceProp::Budget(b) => self.check_budget(b),
            ServiceProp::LibraryBreaker(b) => self.check_library_breaker(b),
            ServiceProp::Breaker(b) => self.check_breaker(b),
            ServiceProp::Hedge(b) => self.check_hedge(b),
            ServiceProp::Limiter(b) => self.check_limiter(b),
            ServiceProp::Throttle(b) => self.check_throttle(b),
            _ => {}
        }
    }

    pub(super) fn check_retry(
        &mut self,
        r: &RetryAst,
        policies: &[(String, RetryAst)],
        backoffs: &[(String, BackoffAst)],
        rngs: &[RngAst],
    ) {
        if let Some(name) = &r.named {
            if !policies.iter().any(|(n, _)| *n == name.name) {
                self.err(
                    Unknown::new("policy", &name.name)
                        .otherwise_when_none(format!(
                            "declare it: `policy {} {{ attempts 3  backoff fixed 1s }}`",
                            name.name
                        ))
                        .at(name.span, policies.iter().map(|(n, _)| n.as_str())),
                );
            }
            return;
        }
        if r.attempts.is_none() {
            self.err(
                Needs::new("a retry policy", Need::Key("attempts"))
                    .help("e.g. `retry { attempts 3  backoff fixed 4 rounds }`")
                    .at(r.span),
            );
        }
        match &r.backoff {
            None => {
                if r.attempts.is_some() {
                    self.err(
                        Needs::new("a retry policy", Need::Key("backoff"))
                            .help("e.g. `backoff fixed 4 rounds` or `backoff full_jitter 200ms x 2 cap 5s`")
                            .at(r.span),
                    );
                }
            }
            Some(BackoffRef::Named(id)) => {
                let _ = self.backoff_index(backoffs, id);
            }
            Some(BackoffRef::Inline(b)) => self.check_backoff_rng(b, rngs),
        }
        if let Some(p) = &r.pushback {
            self.check_pushback(p);
        }
        if let Some(id) = &r.retry_after {
            if !["honor", "ignore"].contains(&id.name.as_str()) {
                self.err(
                    NotA::new(&format!("retry_after {}", id.name), "a choice")
                        .label("expected `honor` or `ignore`")
                        .among(id.span, &id.name, ["honor", "ignore"]),
                );
            }
        }
    }

    pub(super) fn check_request(&mut self, r: &RequestAst) {
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

    pub(super) fn check_response(&mut self, r: &ResponseAst) {
        if let ResponseAst::Status {
            code,
            retry_after,
            span,
        } = r
        {
            if crate::date::parse_status(code).is_none() {
                self.err(NotA::status_code(code).at(*span));
            }
            if let Some(RetryAfterAst::Date(text, dspan)) = retry_after {
                if crate::date::parse_date(text).is_none() {
                    self.err(NotA::retry_after(text).at(*dspan));
                }
            }
        }
    }

    /// Checks a node's `response` block against its fan-out.
    pub(super) fn check_response_block(&mut self, nodes: &[NodeDecl], i: usize) {
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
                Needs::new(
                    "a `response`",
                    Need::AtLeastOne {
                        one: "`field`",
                        many: "fields",
                    },
                )
                .help("e.g. `field status from projection core 180 B`")
                .at(r.span),
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
                    Unknown::new("field source", &f.source.name)
                        .label("no node of this name")
                        .at(f.source.span, targets.iter().copied()),
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
                        Unknown::new("degradation policy", w)
                            .label("expected `all_or_nothing`, `skip_optional` or `stale_fallback`")
                            .at(
                                p.span,
                                ["all_or_nothing", "skip_optional", "stale_fallback"],
                            ),
                    );
                }
            }
        }
        if let Some(l) = &r.ledger {
            if l.stale_for.is_none() {
                self.err(
                    Needs::new("a `ledger`", Need::Key("stale_for"))
                        .because("how old a value it may serve")
                        .label("no staleness bound")
                        .help("e.g. `ledger { entries 5000  stale_for 60s }`")
                        .at(l.span),
                );
            }
        }
    }
}
