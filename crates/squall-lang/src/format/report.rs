//! The report block: its items (measures, lines, tables, diagnoses,
//! expectations, ...) and tables with their axes and columns.

use super::comments::find_word;
use super::layout::{expr_end, push_children, span_at, Inline, Node, Printer};
use super::values::*;
use crate::ast::*;
use crate::span::Span;

impl Printer<'_> {
    pub(super) fn report_item(&mut self, i: &ReportItem) -> Node {
        match i {
            ReportItem::Replications(n) => {
                Self::leaf(format!("replications {}", value_text(n)), span_at(n.span))
            }
            ReportItem::Measure(id, e) => Self::leaf(
                format!("measure {} = {}", id.name, expr_text(e)),
                Some((id.span.start, expr_end(e))),
            ),
            ReportItem::Line(variant, raw, span) => Self::leaf(
                match variant {
                    Some(v) => format!("line {} \"{raw}\"", v.name),
                    None => format!("line \"{raw}\""),
                },
                Some((span.start.saturating_sub(1), span.end + 1)),
            ),
            ReportItem::Waits(w) => {
                let WaitsAst {
                    title,
                    policies,
                    attempts,
                    rng,
                    span,
                } = w;
                let mut node = self.block(
                    format!("waits {}", quoted(title)),
                    span_at(*span),
                    Inline::IfFits,
                );
                let mut children = vec![Self::leaf(
                    format!("policies [{}]", idents_text(policies)),
                    None,
                )];
                if let Some(a) = attempts {
                    children.push(Self::leaf(
                        format!("attempts {}", value_text(a)),
                        span_at(a.span),
                    ));
                }
                if let Some(r) = rng {
                    children.push(Self::leaf(format!("rng {}", r.name), span_at(r.span)));
                }
                push_children(&mut node, children);
                node
            }
            ReportItem::Herd(h) => {
                let HerdAst {
                    title,
                    policy,
                    clients,
                    attempt,
                    bucket,
                    rng,
                    span,
                } = h;
                let mut node = self.block(
                    format!("herd {}", quoted(title)),
                    span_at(*span),
                    Inline::IfFits,
                );
                let mut children = Vec::new();
                if let Some(p) = policy {
                    children.push(Self::leaf(format!("policy {}", p.name), span_at(p.span)));
                }
                for (kw, v) in [
                    ("clients", clients),
                    ("attempt", attempt),
                    ("bucket", bucket),
                ] {
                    if let Some(v) = v {
                        children.push(Self::leaf(
                            format!("{kw} {}", value_text(v)),
                            span_at(v.span),
                        ));
                    }
                }
                if let Some(r) = rng {
                    children.push(Self::leaf(format!("rng {}", r.name), span_at(r.span)));
                }
                push_children(&mut node, children);
                node
            }
            ReportItem::Operations(title, id) => Self::leaf(
                format!("operations {} of {}", quoted(title), id.name),
                span_at(id.span),
            ),
            ReportItem::Trace(title, id) => Self::leaf(
                format!("trace {} of {}", quoted(title), id.name),
                span_at(id.span),
            ),
            ReportItem::Isolation(iso) => {
                let IsolationAst {
                    title,
                    node: id,
                    variants,
                    window,
                    span,
                } = iso;
                let mut node = self.block(
                    format!("isolation {} of {}", quoted(title), id.name),
                    span_at(*span),
                    Inline::IfFits,
                );
                let mut children = vec![Self::leaf(
                    format!("variants [{}]", idents_text(variants)),
                    None,
                )];
                if let Some(w) = window {
                    children.push(Self::leaf(format!("window {}", w.name), span_at(w.span)));
                }
                push_children(&mut node, children);
                node
            }
            ReportItem::Diagnose(d) => {
                let DiagnoseAst {
                    node,
                    window,
                    baseline,
                    against,
                    span,
                } = d;
                let mut t = format!(
                    "diagnose {} in {} vs {}",
                    node.name, window.name, baseline.name
                );
                if let Some(a) = against {
                    t.push_str(&format!(" against {}", a.name));
                }
                Self::leaf(t, span_at(*span))
            }
            ReportItem::Table(t) => self.table(t),
        }
    }

    pub(super) fn table(&mut self, t: &TableAst) -> Node {
        let TableAst {
            title,
            span,
            rows,
            at,
            labels,
            columns,
        } = t;
        let mut node = self.block(
            format!("table {}", quoted(title)),
            Some((span.start, span.start)),
            Inline::Never,
        );
        let mut children = Vec::new();
        if !rows.is_empty() {
            let texts: Vec<String> = rows.iter().map(axis_text).collect();
            let spans: Vec<Span> = rows.iter().map(axis_span).collect();
            let at = match (spans.first(), spans.last()) {
                (Some(a), Some(b)) => Some((a.start, b.end)),
                _ => None,
            };
            children.push(Self::leaf(format!("rows {}", texts.join(" x ")), at));
        }
        if let Some(id) = at {
            children.push(Self::leaf(format!("at {}", id.name), span_at(id.span)));
        }
        if !labels.is_empty() {
            let pos = self
                .src
                .and_then(|src| find_word(src, span.start, span.end, "label"));
            let list: Vec<String> = labels.iter().map(|l| quoted(l)).collect();
            children.push(Self::leaf(
                format!("label {}", list.join(", ")),
                pos.map(|p| (p, p + "label".len())),
            ));
        }
        for c in columns {
            let ColumnAst {
                title,
                expr,
                digits,
            } = c;
            let mut text = format!("column {} = {}", quoted(title), expr_text(expr));
            if let Some(d) = digits {
                text.push_str(&format!(" :.{d}"));
            }
            children.push(Self::leaf(text, Some((expr.span.start, expr.span.end))));
        }
        push_children(&mut node, children);
        node
    }

    // ------------------------------------------------ tree to text --
}

pub(super) fn names_text(list: &Option<Vec<Ident>>) -> String {
    match list {
        None => String::new(),
        Some(l) => {
            let names: Vec<&str> = l.iter().map(|i| i.name.as_str()).collect();
            format!(" [{}]", names.join(", "))
        }
    }
}

pub(super) fn axis_text(a: &AxisAst) -> String {
    match a {
        AxisAst::Variants(list, _) => format!("variants{}", names_text(list)),
        AxisAst::Windows(list, _) => format!("windows{}", names_text(list)),
        AxisAst::Sweep(id) => format!("sweep {}", id.name),
    }
}

pub(super) fn axis_span(a: &AxisAst) -> Span {
    match a {
        AxisAst::Variants(_, s) | AxisAst::Windows(_, s) => *s,
        AxisAst::Sweep(id) => id.span,
    }
}
