//! The scenario and its top-level items (chains, services, sources, faults,
//! variants, sweeps, ...) as a tree of lines and blocks.

use super::blocks::{op_node, retry_children, source_prop};
use super::layout::{push_children, span_at, Inline, Node, Printer};
use super::values::*;
use crate::ast::*;

impl Printer<'_> {
    pub(super) fn scenario(&mut self, ast: &ScenarioAst) -> Node {
        let ScenarioAst {
            name,
            name_span,
            items,
        } = ast;
        let mut node = self.block(
            format!("scenario {}", quoted(name)),
            span_at(*name_span),
            Inline::Never,
        );
        let children: Vec<Node> = items.iter().map(|i| self.item(i)).collect();
        push_children(&mut node, children);
        node
    }

    pub(super) fn item(&mut self, item: &Item) -> Node {
        match item {
            Item::Clock(id) => Self::leaf(format!("clock {}", id.name), span_at(id.span)),
            Item::Run(v) => Self::leaf(format!("run {}", value_text(v)), span_at(v.span)),
            Item::RunRange(r) => Self::leaf(format!("run {}", range_text(r)), span_at(r.span)),
            Item::Warmup(v) => Self::leaf(format!("warmup {}", value_text(v)), span_at(v.span)),
            Item::Epoch(text, span) => {
                Self::leaf(format!("epoch {}", quoted(text)), span_at(*span))
            }
            Item::Rng(decl) => {
                let RngAst {
                    name,
                    algorithm,
                    seed,
                } = decl;
                let mut node = self.block(
                    format!("rng {}", name.name),
                    span_at(name.span),
                    Inline::IfFits,
                );
                let mut children = Vec::new();
                if let Some(a) = algorithm {
                    children.push(Self::leaf(a.name.clone(), span_at(a.span)));
                }
                if let Some((s, span)) = seed {
                    children.push(Self::leaf(format!("seed {s}"), span_at(*span)));
                }
                push_children(&mut node, children);
                node
            }
            Item::Backoff(name, b) => {
                if let BackoffAst::Library(lib) = b {
                    self.skip_braces(lib.span);
                }
                Self::leaf(
                    format!("backoff {} = {}", name.name, backoff_text(b)),
                    span_at(name.span),
                )
            }
            Item::Policy(name, r) => {
                let mut node = self.block(
                    format!("policy {}", name.name),
                    span_at(name.span),
                    Inline::IfFits,
                );
                let children = retry_children(self, r);
                push_children(&mut node, children);
                node
            }
            Item::Endpoint(decl) => {
                let EndpointAst { node: id, routes } = decl;
                let mut node = self.block(
                    format!("endpoint {}", id.name),
                    span_at(id.span),
                    Inline::IfSingle,
                );
                let children = routes
                    .iter()
                    .map(|r| {
                        let RouteAst {
                            name,
                            method,
                            path,
                            script,
                        } = r;
                        let head = match (method, path) {
                            (Some(m), Some(p)) => format!("route {} {m} {p}", name.name),
                            _ => "default".to_string(),
                        };
                        let mut route = self.block(head, span_at(name.span), Inline::IfFits);
                        let at = script
                            .first()
                            .map(|s| s.span.start)
                            .zip(script.last().map(|s| s.span.end));
                        push_children(&mut route, vec![Self::leaf(script_text(script), at)]);
                        route
                    })
                    .collect();
                push_children(&mut node, children);
                node
            }
            Item::Seed(n, span) => Self::leaf(format!("seed {n}"), span_at(*span)),
            Item::Draws(w) => Self::leaf(format!("draws {}", w.name), span_at(w.span)),
            Item::WorkBudget(_, text, span) => {
                Self::leaf(format!("work_budget {text}"), span_at(*span))
            }
            Item::Param(id, v) => Self::leaf(
                format!("param {} = {}", id.name, value_text(v)),
                Some((id.span.start, v.span.end)),
            ),
            Item::Source(decl) => {
                let SourceAst { name, props, span } = decl;
                let mut node = self.block(
                    format!("source {}", name.name),
                    span_at(*span),
                    Inline::IfFits,
                );
                let children = props
                    .iter()
                    .map(|p| match p {
                        SourceProp::Sequential(ops) => {
                            let mut seq = self.block("sequential".to_string(), None, Inline::Never);
                            let lines = ops.iter().map(op_node).collect();
                            push_children(&mut seq, lines);
                            seq
                        }
                        other => source_prop(other),
                    })
                    .collect();
                push_children(&mut node, children);
                node
            }
            Item::Chain(ids, fan) => {
                let names: Vec<&str> = ids.iter().map(|i| i.name.as_str()).collect();
                let at = match (ids.first(), fan.last().or(ids.last())) {
                    (Some(a), Some(b)) => Some((a.span.start, b.span.end)),
                    _ => None,
                };
                let mut text = format!("chain {}", names.join(" -> "));
                if !fan.is_empty() {
                    text.push_str(&format!(" -> [{}]", idents_text(fan)));
                }
                Self::leaf(text, at)
            }
            Item::Service(decl) => {
                let ServiceAst { names, props } = decl;
                let list: Vec<&str> = names.iter().map(|i| i.name.as_str()).collect();
                let at = names.first().map(|n| (n.span.start, n.span.end));
                let mut node =
                    self.block(format!("service {}", list.join(", ")), at, Inline::IfFits);
                let children = props.iter().map(|p| self.service_prop(p)).collect();
                push_children(&mut node, children);
                node
            }
            Item::Fault(decl) => {
                let FaultAst { name, props, span } = decl;
                let mut node = self.block(
                    format!("fault {}", name.name),
                    span_at(*span),
                    Inline::IfFits,
                );
                let children = props
                    .iter()
                    .map(|p| match p {
                        FaultProp::On(ids) => Self::leaf(
                            format!(
                                "on {}",
                                ids.iter().map(Target::text).collect::<Vec<_>>().join(", ")
                            ),
                            ids.first()
                                .map(|a| a.span().start)
                                .zip(ids.last().map(|b| b.span().end)),
                        ),
                        FaultProp::Fail(r) => {
                            Self::leaf(format!("fail {}", response_text(r)), None)
                        }
                        FaultProp::Every(x) => {
                            let EveryAst {
                                every,
                                phase,
                                step,
                                span,
                            } = x;
                            let mut t = format!("every {}", value_text(every));
                            if let Some(p) = phase {
                                t.push_str(&format!(" phase {}", value_text(p)));
                            }
                            if let Some(s) = step {
                                t.push_str(&format!(" step {} per field", value_text(s)));
                            }
                            Self::leaf(t, span_at(*span))
                        }
                        FaultProp::During(r) => {
                            Self::leaf(format!("during {}", range_text(r)), span_at(r.span))
                        }
                        FaultProp::Capacity(v) => {
                            Self::leaf(format!("capacity {}", value_text(v)), span_at(v.span))
                        }
                        FaultProp::Timed(t) => Self::leaf(timed_text(t), span_at(t.span)),
                    })
                    .collect();
                push_children(&mut node, children);
                node
            }
            Item::Window(id, r) => Self::leaf(
                format!("window {} {}", id.name, range_text(r)),
                Some((id.span.start, r.span.end)),
            ),
            Item::Variant(decl) => {
                let VariantAst { name, label, items } = decl;
                let head = match label {
                    Some(l) => format!("variant {} {}", name.name, quoted(l)),
                    None => format!("variant {}", name.name),
                };
                let mut node = self.block(head, span_at(name.span), Inline::IfSingle);
                let children = items.iter().map(|i| self.variant_item(i)).collect();
                push_children(&mut node, children);
                node
            }
            Item::Sweep(decl) => {
                let SweepAst {
                    name,
                    label,
                    axes,
                    base,
                } = decl;
                let head = match label {
                    Some(l) => format!("sweep {} {}", name.name, quoted(l)),
                    None => format!("sweep {}", name.name),
                };
                let mut node = self.block(head, span_at(name.span), Inline::IfSingle);
                let mut children: Vec<Node> = axes
                    .iter()
                    .map(|(id, values)| {
                        let vs: Vec<String> = values.iter().map(value_text).collect();
                        let end = values.last().map_or(id.span.end, |v| v.span.end);
                        Self::leaf(
                            format!("{} in [{}]", id.name, vs.join(", ")),
                            Some((id.span.start, end)),
                        )
                    })
                    .collect();
                if let Some(b) = base {
                    children.push(Self::leaf(format!("variant {}", b.name), span_at(b.span)));
                }
                push_children(&mut node, children);
                node
            }
            Item::Report(items) => {
                let mut node = self.block("report".to_string(), None, Inline::Never);
                let children = items.iter().map(|i| self.report_item(i)).collect();
                push_children(&mut node, children);
                node
            }
            Item::Expect(e) => Self::leaf(expect_text(e), span_at(e.span)),
            Item::Series(t) => Self::leaf(timed_text(t), span_at(t.span)),
            Item::Link(decl) => {
                let head = format!("link {} -> {}", decl.from.name, decl.to.name);
                let mut node = self.block(head, span_at(decl.ends_span()), Inline::IfFits);
                let children = decl
                    .props
                    .iter()
                    .map(|t| Self::leaf(timed_text(t), span_at(t.span)))
                    .collect();
                push_children(&mut node, children);
                node
            }
            Item::Provider(b) | Item::Sender(b) => self.send_block(b, Inline::Never),
        }
    }

    pub(super) fn variant_item(&mut self, i: &VariantItem) -> Node {
        match i {
            VariantItem::Set(id, v) => Self::leaf(
                format!("set {} = {}", id.name, value_text(v)),
                Some((id.span.start, v.span.end)),
            ),
            VariantItem::Without(ids) => Self::leaf(
                format!("without {}", idents_text(ids)),
                ids.first()
                    .map(|a| a.span.start)
                    .zip(ids.last().map(|b| b.span.end)),
            ),
            VariantItem::Source(id, props) => {
                let mut node = self.block(
                    format!("source {}", id.name),
                    span_at(id.span),
                    Inline::IfFits,
                );
                let children = props.iter().map(source_prop).collect();
                push_children(&mut node, children);
                node
            }
            VariantItem::Send(b) => self.send_block(b, Inline::IfFits),
            VariantItem::Service(ids, changes) => {
                let mut node = self.block(
                    format!("service {}", idents_text(ids)),
                    ids.first().map(|n| (n.span.start, n.span.end)),
                    Inline::IfFits,
                );
                let children = changes
                    .iter()
                    .map(|c| match c {
                        ServiceChange::Set(p) => self.service_prop(p),
                        ServiceChange::Remove(kw) => {
                            Self::leaf(format!("{} none", kw.name), span_at(kw.span))
                        }
                    })
                    .collect();
                push_children(&mut node, children);
                node
            }
        }
    }
}
