//! A variant's changes to services and sources: `service a, b { ... }`
//! (the same change to each named service, as two blocks would make it)
//! and `source users { rate ...  deadline ...  clients ...  think ...
//! priority ... }` (the rates replaced when it gives any, and each of
//! `deadline`, `clients`, `think` and `priority` that it gives).

use crate::ast::*;
use crate::decl::{Overrides, Scenario};
use crate::diagnostic::Diagnostic;
use crate::twice::Twice;
use crate::unknown::Unknown;

use super::Validator;

impl Validator {
    /// `service a, b { ... }` in a variant: each named node gets `changes`,
    /// in the order named. A block's own checks are made once (at the
    /// first node found); whether a node may have it (a caller's retry,
    /// say) is checked for each.
    pub(super) fn service_change(
        &mut self,
        s: &Scenario,
        ids: &[Ident],
        changes: &[ServiceChange],
        o: &mut Overrides,
    ) {
        let node_names: Vec<String> = s.nodes.iter().map(|n| n.name.clone()).collect();
        let mut checked = false;
        for (k, id) in ids.iter().enumerate() {
            if ids[..k].iter().any(|n| n.name == id.name) {
                self.err(Twice::InServiceLine { service: &id.name }.at(id.span));
                continue;
            }
            let Some(i) = self.node(&node_names, id) else {
                continue;
            };
            let node = &s.nodes[i];
            for c in changes {
                match c {
                    ServiceChange::Set(
                        p @ (ServiceProp::Retry(_)
                        | ServiceProp::Budget(_)
                        | ServiceProp::LibraryBreaker(_)
                        | ServiceProp::Breaker(_)
                        | ServiceProp::Hedge(_)
                        | ServiceProp::Limiter(_)
                        | ServiceProp::Throttle(_)),
                    ) => self.caller_block(node, p, !checked, &s.policies, &s.backoffs, &s.rngs),
                    ServiceChange::Set(ServiceProp::Capacity(_)) | ServiceChange::Remove(_) => {}
                    ServiceChange::Set(ServiceProp::Timed(t)) => {
                        if t.key.name == "timeout" && node.fanout.is_empty() {
                            self.expect_caller(node, "a timeout", t.span);
                        }
                    }
                    ServiceChange::Set(ServiceProp::Response(r)) if !checked => self.err(
                        Diagnostic::new("a variant cannot change a composite response", r.span)
                            .label("a `response` in a variant")
                            .help("a variant may replace or remove a service's `retry`, `breaker`, `budget`, `hedge` or `throttle`, and replace its `capacity` or a timed setting (`latency`, `load`, `workers`, `queue`, `discipline`, `optimistic`, `replicas`, `balance`, `limit`, `timeout`)"),
                    ),
                    ServiceChange::Set(ServiceProp::Response(_)) => {}
                }
            }
            checked = true;
            o.services.push((i, changes.to_vec()));
        }
    }

    /// `source users { ... }` in a variant. A source that feeds a sender is
    /// numbered after the others (`resolve/sending/mod.rs` reads it so).
    /// Rate lines replace the source's (a block of none but settings keeps
    /// them; an empty block keeps only the base rate, as before settings
    /// were allowed); `deadline`, `clients`, `think` and `priority` each replace the
    /// source's own, and a closed loop's rules (`think` needs `clients`, no
    /// schedule with `think`) are checked on the source as the variant
    /// leaves it.
    pub(super) fn source_change(
        &mut self,
        s: &Scenario,
        id: &Ident,
        props: &[SourceProp],
        o: &mut Overrides,
    ) {
        let feed = || {
            let k = s.feeds.iter().position(|f| f.source.name == id.name)?;
            Some(s.sources.len() + k)
        };
        let Some(i) = s
            .sources
            .iter()
            .position(|x| x.name == id.name)
            .or_else(feed)
        else {
            self.err(
                Unknown::new("source", &id.name).at(
                    id.span,
                    s.sources
                        .iter()
                        .chain(s.feeds.iter().map(|f| &f.source))
                        .map(|x| x.name.as_str()),
                ),
            );
            return;
        };
        let decl = match s.sources.get(i) {
            Some(d) => d,
            None => &s.feeds[i - s.sources.len()].source,
        };
        let mut rates = Vec::new();
        let mut settings: Vec<Timed> = Vec::new();
        let mut ramps_ok = true;
        for p in props {
            match p {
                SourceProp::Rate(r) => {
                    ramps_ok &= self.check_ramp(r);
                    rates.push(r.clone());
                }
                SourceProp::Timed(t) => {
                    if settings.iter().any(|x| x.key.name == t.key.name) {
                        self.err(
                            Twice::SourceSays {
                                source: &id.name,
                                keyword: &t.key.name,
                            }
                            .at(t.span),
                        );
                    }
                    settings.push(t.clone());
                }
                // The grammar lets nothing else into a variant's source.
                _ => {}
            }
        }
        let given = |key: &str| settings.iter().find(|t| t.key.name == key);
        if given("clients").is_some() || given("think").is_some() {
            self.check_clients(
                id,
                given("clients").or(decl.clients.as_ref()),
                given("think").or(decl.think.as_ref()),
                decl.serial.as_ref(),
                !rates.is_empty() || !decl.rates.is_empty(),
                !decl.times.is_empty() || !decl.ops.is_empty(),
            );
        }
        if !ramps_ok {
            return;
        }
        if !rates.is_empty() || settings.is_empty() {
            o.sources.push((i, rates));
        }
        if !settings.is_empty() {
            o.source_settings.push((i, settings));
        }
    }
}
