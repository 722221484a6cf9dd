//! Report expressions: numbers, arithmetic, paths such as
//! `storm.during.db.call_rate`, and the built-in functions ([`FUNCTIONS`]).
//! An expression also says which parts of a row's context it still needs
//! (a variant, a window, a node); [`Validator::check_context`] holds it to
//! what its use site provides.

use crate::ast::*;
use crate::diagnostic::{did_you_mean, Diagnostic};
use crate::model::*;
use crate::needs::{Need, Needs as Lacks};
use crate::not_a::NotA;
use crate::span::Span;
use crate::unknown::Unknown;

use super::{Context, Names, Needs, Validator, FUNCTIONS};

impl Validator {
    pub(super) fn check_context(&mut self, needs: Needs, ctx: Context, span: Span) {
        let parts = [
            (needs.variant && !ctx.variant, "variant", "name it first, e.g. `storm.during.db.call_rate` or `storm.recovery`; in a `line`, name the line's variant: `line storm \"...\"`"),
            (needs.window && !ctx.window, "window", "name it in the path, e.g. `during.db.call_rate`"),
            (needs.node && !ctx.node, "node", "name it in the path, e.g. `db.call_rate`, or give the table `at db`"),
        ];
        for (missing, part, help) in parts {
            if missing {
                let context = Need::Context {
                    part,
                    context: ctx.what,
                };
                self.err(Lacks::new("this value", context).help(help).at(span));
            }
        }
    }

    pub(super) fn expr(&mut self, names: &Names<'_>, e: &Expr) -> Option<(RExpr, Needs)> {
        Some(match &e.kind {
            ExprKind::Number(n) => (RExpr::Number(*n), Needs::default()),
            ExprKind::Param(p) => {
                if !names.params.contains_key(p) {
                    self.err(
                        Unknown::param_ref(p)
                            .otherwise(format!("declare it: `param {p} = ...`"))
                            .at(e.span, names.params.keys().map(String::as_str)),
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
            ExprKind::Path(ids, index) => return self.path(names, ids, *index, e.span),
            ExprKind::Call(name, args) => return self.call(names, name, args, e.span),
        })
    }

    pub(super) fn path(
        &mut self,
        names: &Names<'_>,
        ids: &[Ident],
        index: Option<PathIndex>,
        span: Span,
    ) -> Option<(RExpr, Needs)> {
        let (last, prefix) = ids.split_last()?;
        if let Some(found) = self.sending_path(names, prefix, last) {
            if let Some(x) = index {
                self.err(not_after_a_service(x));
                return None;
            }
            return found;
        }
        let mut variant = None;
        let mut window = None;
        let mut node = None;
        let mut node_at = None;
        let mut stage = 0; // 0: variant allowed, 1: window allowed, 2: node allowed, 3: none
        for (at, id) in prefix.iter().enumerate() {
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
                    node_at = Some(at);
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
                Unknown::new("variant, window or node", &id.name)
                    .label("not a variant, window or node")
                    .at(id.span, known)
            };
            self.err(d);
            return None;
        }
        let replica = match index {
            None => None,
            Some(x) if Some(x.after) != node_at => {
                self.err(not_after_a_service(x));
                return None;
            }
            Some(x) => Some(x),
        };
        if let Some(metric) = Metric::parse(&last.name) {
            if let (Some(x), Some(n)) = (replica, node) {
                if !metric.per_replica() {
                    self.err(
                        NotA::new(&last.name, "a value kept per replica")
                            .label("not kept per replica")
                            .help(format!(
                                "per replica: {}; without the index, `{}.{}` reads the whole service `{}`",
                                Metric::PER_REPLICA.map(Metric::name).join(", "),
                                names.nodes[n].name,
                                last.name,
                                names.nodes[n].name
                            ))
                            .at(last.span),
                    );
                    return None;
                }
                self.replica_reads.push((n, x.index, x.span, metric));
            }
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
                    replica: replica.map(|x| x.index.min(u64::from(u32::MAX)) as u32),
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
            Unknown::new("metric or measure", &last.name)
                .label("not a metric or measure")
                .at(last.span, candidates.iter().copied())
        };
        self.err(d);
        None
    }

    /// `[VARIANT.]SENDER.METRIC`, when the part before the last names a
    /// sender: `Some` with the value (or `None` after an error), else
    /// `None` for the other paths.
    #[allow(clippy::option_option)]
    fn sending_path(
        &mut self,
        names: &Names<'_>,
        prefix: &[Ident],
        last: &Ident,
    ) -> Option<Option<(RExpr, Needs)>> {
        let (sender_id, before) = prefix.split_last()?;
        let sender = names
            .senders
            .iter()
            .position(|b| b.name.name == sender_id.name)?;
        let variant = match before {
            [] => None,
            [v] => match names.variants.iter().position(|x| x.name == v.name) {
                Some(i) => Some(i),
                None => {
                    self.err(
                        Unknown::new("variant", &v.name)
                            .label("not a variant")
                            .at(v.span, names.variants.iter().map(|x| x.name.as_str())),
                    );
                    return Some(None);
                }
            },
            [first, ..] => {
                self.err(
                    Diagnostic::new(
                        "a sender's value is read as `VARIANT.SENDER.VALUE`",
                        first.span,
                    )
                    .label("too many parts")
                    .help(format!("e.g. `fixed.{}.delivered`", sender_id.name)),
                );
                return Some(None);
            }
        };
        let Some(metric) = SendMetric::parse(&last.name) else {
            self.err(
                Unknown::new("value", &last.name)
                    .within("of a sender")
                    .label("not a sender's value")
                    .at(last.span, SendMetric::ALL.iter().map(|(n, _)| *n)),
            );
            return Some(None);
        };
        let needs = Needs {
            variant: variant.is_none(),
            ..Needs::default()
        };
        Some(Some((
            RExpr::Sending {
                variant,
                sender,
                metric,
            },
            needs,
        )))
    }

    pub(super) fn call(
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
                ExprKind::Path(ids, None) if ids.len() == 1 => {
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
                    ExprKind::Path(ids, None) if ids.len() == 1 => {
                        let found = names.faults.iter().position(|f| f.name == ids[0].name);
                        if found.is_none() {
                            self.err(
                                Unknown::new("fault", &ids[0].name)
                                    .at(ids[0].span, names.faults.iter().map(|f| f.name.as_str())),
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
            "per_second" => {
                if !arity(self, 1) {
                    return None;
                }
                if names.clock.tick_millis().is_none() {
                    self.err(
                        Lacks::new("`per_second`", Need::WallClock)
                            .help("write the rate per round")
                            .at(name.span),
                    );
                    return None;
                }
                // A metric named in the path must be a rate per tick.
                if let ExprKind::Path(ids, _) = &args[0].kind {
                    if let Some(last) = ids.last() {
                        let rate = matches!(
                            Metric::parse(&last.name),
                            None | Some(
                                Metric::CallRate
                                    | Metric::ServedRate
                                    | Metric::UniqueRate
                                    | Metric::EdgeRate
                                    | Metric::DroppedRate
                            )
                        );
                        if !rate {
                            self.err(
                                NotA::new(&last.name, "a rate per tick")
                                    .label("`per_second` turns a rate per tick into one per second")
                                    .help("e.g. `per_second(call_rate)`, `per_second(served_rate)`, `per_second(edge_rate)`")
                                    .at(last.span),
                            );
                            return None;
                        }
                    }
                }
                let (r, n) = self.expr(names, &args[0])?;
                Some((RExpr::Call(Func::PerSecond, vec![r]), n))
            }
            "route_calls" => {
                if !arity(self, 2) {
                    return None;
                }
                let node = node_arg(self, &args[0])?;
                let route = match &args[1].kind {
                    ExprKind::Path(ids, None) if ids.len() == 1 => {
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
                        Lacks::new(
                            &format!("`{}`", name.name),
                            Need::AtLeastOne {
                                one: "argument",
                                many: "arguments",
                            },
                        )
                        .at(span),
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
                    Unknown::new("function", other)
                        .label("not a function")
                        .otherwise(format!("the functions are {}", FUNCTIONS.join(", ")))
                        .at(name.span, FUNCTIONS),
                );
                None
            }
        }
    }
}

/// A replica index that does not follow a service in a path
/// (`during[1].calls`, `outbox[1].delivered`).
fn not_after_a_service(x: PathIndex) -> Diagnostic {
    Diagnostic::new("a replica index follows a service's name", x.span)
        .label("not after a service")
        .help("e.g. `during.api[1].calls`: the calls replica 1 of `api` received")
}
