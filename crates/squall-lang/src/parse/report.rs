//! Report items, format specs and table axes.

use pest::iterators::Pair;

use crate::ast::*;
use crate::diagnostic::{Diagnostic, Result};
use crate::span::Span;

use super::grammar::Rule;
use super::pairs::{ident, internal, string, Children};
use super::values::{parse_expr, parse_value_pair};

pub(super) fn parse_report_item(pair: Pair<'_, Rule>) -> Result<ReportItem> {
    let rule = pair.as_rule();
    let span: Span = pair.as_span().into();
    let mut c = Children::of(pair);
    Ok(match rule {
        Rule::replications_decl => {
            ReportItem::Replications(parse_value_pair(c.expect(Rule::value)?)?)
        }
        Rule::measure_decl => {
            let name = ident(c.expect(Rule::ident)?);
            ReportItem::Measure(name, parse_expr(c.expect(Rule::expr)?)?)
        }
        Rule::table_decl => {
            let title = string(c.expect(Rule::string)?);
            let mut table = TableAst {
                title,
                span,
                rows: Vec::new(),
                at: None,
                labels: Vec::new(),
                columns: Vec::new(),
            };
            while let Some(p) = c.next() {
                let pspan: Span = p.as_span().into();
                match p.as_rule() {
                    Rule::rows_prop => {
                        if !table.rows.is_empty() {
                            return Err(Diagnostic::new("a table has one `rows` line", pspan)
                                .label("second `rows`"));
                        }
                        let mut r = Children::of(p);
                        while let Some(a) = r.next() {
                            if a.as_rule() == Rule::axis {
                                table.rows.push(parse_axis(a)?);
                            }
                        }
                    }
                    Rule::at_prop => table.at = Some(at_node(p, "a table")?),
                    Rule::label_prop => table.labels = p.into_inner().map(string).collect(),
                    Rule::column_decl => {
                        let mut col = Children::of(p);
                        let title = string(col.expect(Rule::string)?);
                        let expr = parse_expr(col.expect(Rule::expr)?)?;
                        let digits = match col.optional(Rule::format_spec) {
                            Some(f) => Some(parse_format_spec(f)?),
                            None => None,
                        };
                        table.columns.push(ColumnAst {
                            title,
                            expr,
                            digits,
                        });
                    }
                    other => return Err(internal(pspan, &format!("unexpected {other:?}"))),
                }
            }
            ReportItem::Table(table)
        }
        Rule::line_decl => {
            // Keep the raw text: template spans are offsets into the file.
            let variant = c.optional(Rule::ident).map(ident);
            let s = c.expect(Rule::string)?;
            let inner = Children::of(s).expect(Rule::string_inner)?;
            ReportItem::Line(variant, inner.as_str().to_string(), inner.as_span().into())
        }
        Rule::diagnose_decl => {
            let node = ident(c.expect(Rule::ident)?);
            let window = ident(c.expect(Rule::ident)?);
            let baseline = ident(c.expect(Rule::ident)?);
            let against = c.optional(Rule::ident).map(ident);
            ReportItem::Diagnose(DiagnoseAst {
                node,
                window,
                baseline,
                against,
                span,
            })
        }
        Rule::waits_decl => {
            let title = string(c.expect(Rule::string)?);
            let mut w = WaitsAst {
                title,
                policies: Vec::new(),
                attempts: None,
                rng: None,
                span,
            };
            while let Some(p) = c.next() {
                match p.as_rule() {
                    Rule::policies_prop => {
                        let list = Children::of(p).expect(Rule::name_list)?;
                        w.policies = list.into_inner().map(ident).collect();
                    }
                    Rule::attempts_prop => {
                        w.attempts = Some(parse_value_pair(Children::of(p).expect(Rule::value)?)?)
                    }
                    Rule::rng_use => w.rng = Some(ident(Children::of(p).expect(Rule::ident)?)),
                    other => {
                        return Err(internal(
                            p.as_span().into(),
                            &format!("unexpected {other:?}"),
                        ))
                    }
                }
            }
            ReportItem::Waits(w)
        }
        Rule::herd_decl => {
            let title = string(c.expect(Rule::string)?);
            let mut h = HerdAst {
                title,
                policy: None,
                clients: None,
                attempt: None,
                bucket: None,
                rng: None,
                span,
            };
            while let Some(p) = c.next() {
                let rule = p.as_rule();
                let pspan: Span = p.as_span().into();
                let mut pc = Children::of(p);
                match rule {
                    Rule::herd_policy => h.policy = Some(ident(pc.expect(Rule::ident)?)),
                    Rule::rng_use => h.rng = Some(ident(pc.expect(Rule::ident)?)),
                    Rule::herd_clients => {
                        h.clients = Some(parse_value_pair(pc.expect(Rule::value)?)?)
                    }
                    Rule::herd_attempt => {
                        h.attempt = Some(parse_value_pair(pc.expect(Rule::value)?)?)
                    }
                    Rule::herd_bucket => {
                        h.bucket = Some(parse_value_pair(pc.expect(Rule::value)?)?)
                    }
                    other => return Err(internal(pspan, &format!("unexpected {other:?}"))),
                }
            }
            ReportItem::Herd(h)
        }
        Rule::operations_decl => {
            let title = string(c.expect(Rule::string)?);
            ReportItem::Operations(title, ident(c.expect(Rule::ident)?))
        }
        Rule::chart_decl => {
            let mut title = None;
            let mut metric = None;
            let mut at = None;
            while let Some(p) = c.next() {
                match p.as_rule() {
                    Rule::string => title = Some(string(p)),
                    Rule::ident => metric = Some(ident(p)),
                    Rule::chart_at => at = Some(at_node(p, "a chart")?),
                    _ => {}
                }
            }
            let metric = metric.ok_or_else(|| Diagnostic::new("a chart names a metric", span))?;
            ReportItem::Chart(ChartAst {
                title,
                metric,
                at,
                span,
            })
        }
        Rule::trace_decl => {
            let title = string(c.expect(Rule::string)?);
            ReportItem::Trace(title, ident(c.expect(Rule::ident)?))
        }
        Rule::isolation_decl => {
            let title = string(c.expect(Rule::string)?);
            let node = ident(c.expect(Rule::ident)?);
            let mut iso = IsolationAst {
                title,
                node,
                variants: Vec::new(),
                window: None,
                span,
            };
            while let Some(p) = c.next() {
                match p.as_rule() {
                    Rule::isolation_variants => {
                        iso.variants = Children::of(p)
                            .expect(Rule::name_list)?
                            .into_inner()
                            .map(ident)
                            .collect()
                    }
                    Rule::isolation_window => {
                        iso.window = Some(ident(Children::of(p).expect(Rule::ident)?))
                    }
                    other => {
                        return Err(internal(
                            p.as_span().into(),
                            &format!("unexpected {other:?}"),
                        ))
                    }
                }
            }
            ReportItem::Isolation(iso)
        }
        other => return Err(internal(span, &format!("unexpected report item {other:?}"))),
    })
}

pub(super) fn parse_format_spec(pair: Pair<'_, Rule>) -> Result<usize> {
    let span: Span = pair.as_span().into();
    let n = Children::of(pair).expect(Rule::number)?;
    let digits = n.as_str().parse::<usize>().map_err(|_| {
        Diagnostic::new("a format gives a whole number of digits, as in `:.2`", span)
            .label("not a digit count")
    })?;
    if digits > 12 {
        return Err(Diagnostic::new(
            format!("{digits} digits after the point is more than the 12 squall prints"),
            span,
        )
        .label("too many digits"));
    }
    Ok(digits)
}

pub(super) fn parse_axis(pair: Pair<'_, Rule>) -> Result<AxisAst> {
    let span: Span = pair.as_span().into();
    let inner = Children::of(pair)
        .next()
        .ok_or_else(|| internal(span, "empty axis"))?;
    let rule = inner.as_rule();
    let mut c = Children::of(inner);
    let list = |c: &mut Children<'_>| {
        c.optional(Rule::name_list)
            .map(|l| l.into_inner().map(ident).collect())
    };
    Ok(match rule {
        Rule::axis_variants => AxisAst::Variants(list(&mut c), span),
        Rule::axis_windows => AxisAst::Windows(list(&mut c), span),
        Rule::axis_sweep => AxisAst::Sweep(ident(c.expect(Rule::ident)?)),
        other => return Err(internal(span, &format!("unexpected axis {other:?}"))),
    })
}

/// The node of `at NODE` on a table or a chart (`what`). A replica's index
/// (`at api[1]`) is refused where written: the table or chart would read
/// the whole service's values for it, so one replica is read through its
/// paths instead (`api[1].p99`).
fn at_node(p: Pair<'_, Rule>, what: &str) -> Result<Ident> {
    let mut c = Children::of(Children::of(p).expect(Rule::at_target)?);
    let node = ident(c.expect(Rule::ident)?);
    if let Some(x) = c.optional(Rule::replica_index) {
        let (index, span) = super::values::parse_replica_index(x)?;
        return Err(Diagnostic::new(
            format!("{what}'s `at` names a whole service, not one replica"),
            span,
        )
        .label("one replica")
        .help(format!(
            "write `at {n}`{}, and read the replica in a table's or a line's path: `{n}[{index}].p99`, `{n}[{index}].calls`",
            if what == "a chart" { " (a chart draws the whole service's series)" } else { "" },
            n = node.name
        )));
    }
    Ok(node)
}
