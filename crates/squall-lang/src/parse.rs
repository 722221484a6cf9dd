//! Text to syntax tree.
//!
//! The grammar lives in `squall.pest`. Each `parse_*` function builds one
//! construct from its pest pair. A missing child is reported as a diagnostic,
//! never a panic: the grammar guarantees the children exist, and
//! [`Children`] turns a broken guarantee into an internal-error diagnostic.

use pest::iterators::{Pair, Pairs};
use pest::pratt_parser::{Assoc, Op, PrattParser};
use pest::Parser as _;

use crate::ast::*;
use crate::diagnostic::{Diagnostic, Result};
use crate::span::Span;

mod grammar {
    #![allow(missing_docs)]
    //! The pest grammar (`squall.pest`), compiled into a parser.
    #[derive(pest_derive::Parser)]
    #[grammar = "squall.pest"]
    pub struct Grammar;
}
use grammar::{Grammar, Rule};

/// Deepest rule nesting pest may try before giving up (guards runaway input).
const CALL_LIMIT: usize = 5_000_000;

/// Parses a whole scenario file.
pub fn parse_file(source: &str) -> Result<ScenarioAst> {
    pest::set_call_limit(std::num::NonZeroUsize::new(CALL_LIMIT));
    let mut pairs = Grammar::parse(Rule::file, source).map_err(|e| from_pest(e, source))?;
    let file = pairs
        .next()
        .ok_or_else(|| internal(Span::default(), "empty parse"))?;
    let mut c = Children::of(file);
    parse_scenario(c.expect(Rule::scenario)?)
}

/// Parses a value given on its own, as in `--set attempts=2`.
pub fn parse_value(text: &str) -> Result<Value> {
    let mut pairs = Grammar::parse(Rule::value_only, text).map_err(|e| from_pest(e, text))?;
    let top = pairs
        .next()
        .ok_or_else(|| internal(Span::default(), "empty parse"))?;
    let mut c = Children::of(top);
    parse_value_pair(c.expect(Rule::value)?)
}

/// Parses an expression embedded in a `line` template, with its optional
/// `:.N` format. Spans are relative to `text`.
pub fn parse_template_expr(text: &str) -> Result<(Expr, Option<usize>)> {
    let mut pairs = Grammar::parse(Rule::template_expr, text).map_err(|e| from_pest(e, text))?;
    let top = pairs
        .next()
        .ok_or_else(|| internal(Span::default(), "empty parse"))?;
    let mut c = Children::of(top);
    let expr = parse_expr(c.expect(Rule::expr)?)?;
    let digits = match c.optional(Rule::format_spec) {
        Some(p) => Some(parse_format_spec(p)?),
        None => None,
    };
    Ok((expr, digits))
}

// ------------------------------------------------------------ helpers --

/// The children of a pair, taken in order.
struct Children<'i> {
    span: Span,
    inner: std::iter::Peekable<Pairs<'i, Rule>>,
}

impl<'i> Children<'i> {
    fn of(pair: Pair<'i, Rule>) -> Self {
        Children {
            span: pair.as_span().into(),
            inner: pair.into_inner().peekable(),
        }
    }

    /// The next child, which the grammar says is a `rule`.
    fn expect(&mut self, rule: Rule) -> Result<Pair<'i, Rule>> {
        match self.inner.next() {
            Some(p) if p.as_rule() == rule => Ok(p),
            Some(p) => Err(internal(
                p.as_span().into(),
                &format!("expected {rule:?}, found {:?}", p.as_rule()),
            )),
            None => Err(internal(self.span, &format!("missing {rule:?}"))),
        }
    }

    /// The next child if it is a `rule`.
    fn optional(&mut self, rule: Rule) -> Option<Pair<'i, Rule>> {
        if self.inner.peek().map(|p| p.as_rule()) == Some(rule) {
            self.inner.next()
        } else {
            None
        }
    }

    fn next(&mut self) -> Option<Pair<'i, Rule>> {
        self.inner.next()
    }
}

fn internal(span: Span, what: &str) -> Diagnostic {
    Diagnostic::new(format!("internal parser error: {what}"), span)
        .help("this is a bug in squall; please report it with the file that caused it")
}

fn ident(pair: Pair<'_, Rule>) -> Ident {
    Ident {
        name: pair.as_str().to_string(),
        span: pair.as_span().into(),
    }
}

fn string(pair: Pair<'_, Rule>) -> String {
    let raw = pair.as_str();
    let inner = raw
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(raw);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn number(pair: &Pair<'_, Rule>) -> Result<f64> {
    let text: String = pair.as_str().chars().filter(|c| *c != '_').collect();
    text.parse::<f64>().map_err(|_| {
        Diagnostic::new(
            format!("`{}` is not a number", pair.as_str()),
            pair.as_span().into(),
        )
    })
}

// ---------------------------------------------------------- scenario --

fn parse_scenario(pair: Pair<'_, Rule>) -> Result<ScenarioAst> {
    let mut c = Children::of(pair);
    let name_pair = c.expect(Rule::string)?;
    let name_span = name_pair.as_span().into();
    let name = string(name_pair);
    let mut items = Vec::new();
    while let Some(p) = c.next() {
        items.push(parse_item(p)?);
    }
    Ok(ScenarioAst {
        name,
        name_span,
        items,
    })
}

fn parse_item(pair: Pair<'_, Rule>) -> Result<Item> {
    let span: Span = pair.as_span().into();
    let rule = pair.as_rule();
    let mut c = Children::of(pair);
    Ok(match rule {
        Rule::clock_decl => Item::Clock(ident(c.expect(Rule::ident)?)),
        Rule::run_decl => Item::Run(parse_value_pair(c.expect(Rule::value)?)?),
        Rule::seed_decl => {
            let p = c.expect(Rule::number)?;
            let text: String = p.as_str().chars().filter(|c| *c != '_').collect();
            let seed = text.parse::<u64>().map_err(|_| {
                Diagnostic::new(
                    "a seed must be a whole number from 0 to 18446744073709551615",
                    p.as_span().into(),
                )
            })?;
            Item::Seed(seed, p.as_span().into())
        }
        Rule::param_decl => {
            let name = ident(c.expect(Rule::ident)?);
            Item::Param(name, parse_value_pair(c.expect(Rule::value)?)?)
        }
        Rule::source_decl => {
            let name = ident(c.expect(Rule::ident)?);
            let mut props = Vec::new();
            while let Some(p) = c.next() {
                props.push(match p.as_rule() {
                    Rule::rate_prop => SourceProp::Rate(parse_rate(p)?),
                    Rule::enters_prop => {
                        SourceProp::Enters(ident(Children::of(p).expect(Rule::ident)?))
                    }
                    Rule::arrivals_prop => {
                        SourceProp::Arrivals(ident(Children::of(p).expect(Rule::ident)?))
                    }
                    other => {
                        return Err(internal(
                            p.as_span().into(),
                            &format!("unexpected {other:?}"),
                        ))
                    }
                });
            }
            Item::Source(SourceDecl { name, props, span })
        }
        Rule::chain_decl => Item::Chain(c.inner.map(ident).collect()),
        Rule::service_decl => {
            let mut names = Vec::new();
            let mut props = Vec::new();
            while let Some(p) = c.next() {
                match p.as_rule() {
                    Rule::ident => names.push(ident(p)),
                    Rule::retry_block => props.push(ServiceProp::Retry(parse_retry(p)?)),
                    Rule::capacity_prop => props.push(ServiceProp::Capacity(parse_value_pair(
                        Children::of(p).expect(Rule::value)?,
                    )?)),
                    other => {
                        return Err(internal(
                            p.as_span().into(),
                            &format!("unexpected {other:?}"),
                        ))
                    }
                }
            }
            Item::Service(ServiceDecl { names, props })
        }
        Rule::fault_decl => {
            let name = ident(c.expect(Rule::ident)?);
            let mut props = Vec::new();
            while let Some(p) = c.next() {
                props.push(match p.as_rule() {
                    Rule::on_prop => FaultProp::On(ident(Children::of(p).expect(Rule::ident)?)),
                    Rule::during_prop => {
                        FaultProp::During(parse_range(Children::of(p).expect(Rule::range)?)?)
                    }
                    Rule::capacity_prop => {
                        FaultProp::Capacity(parse_value_pair(Children::of(p).expect(Rule::value)?)?)
                    }
                    other => {
                        return Err(internal(
                            p.as_span().into(),
                            &format!("unexpected {other:?}"),
                        ))
                    }
                });
            }
            Item::Fault(FaultDecl { name, props, span })
        }
        Rule::window_decl => {
            let name = ident(c.expect(Rule::ident)?);
            Item::Window(name, parse_range(c.expect(Rule::range)?)?)
        }
        Rule::variant_decl => {
            let name = ident(c.expect(Rule::ident)?);
            let label = c.optional(Rule::string).map(string);
            let mut items = Vec::new();
            while let Some(p) = c.next() {
                items.push(parse_variant_item(p)?);
            }
            Item::Variant(VariantDecl { name, label, items })
        }
        Rule::sweep_decl => {
            let name = ident(c.expect(Rule::ident)?);
            let label = c.optional(Rule::string).map(string);
            let mut axes = Vec::new();
            let mut base = None;
            while let Some(p) = c.next() {
                match p.as_rule() {
                    Rule::sweep_axis => {
                        let mut a = Children::of(p);
                        let param = ident(a.expect(Rule::ident)?);
                        let mut values = Vec::new();
                        while let Some(v) = a.next() {
                            values.push(parse_value_pair(v)?);
                        }
                        axes.push((param, values));
                    }
                    Rule::sweep_base => base = Some(ident(Children::of(p).expect(Rule::ident)?)),
                    other => {
                        return Err(internal(
                            p.as_span().into(),
                            &format!("unexpected {other:?}"),
                        ))
                    }
                }
            }
            Item::Sweep(SweepDecl {
                name,
                label,
                axes,
                base,
            })
        }
        Rule::report_decl => {
            let mut items = Vec::new();
            while let Some(p) = c.next() {
                items.push(parse_report_item(p)?);
            }
            Item::Report(items)
        }
        Rule::expect_decl => {
            let lhs = parse_expr(c.expect(Rule::expr)?)?;
            let check = c
                .next()
                .ok_or_else(|| internal(span, "`expect` without a check"))?;
            let check = parse_expect_check(check)?;
            Item::Expect(ExpectDecl { lhs, check, span })
        }
        other => return Err(internal(span, &format!("unexpected item {other:?}"))),
    })
}

fn parse_expect_check(pair: Pair<'_, Rule>) -> Result<ExpectCheck> {
    let rule = pair.as_rule();
    let span: Span = pair.as_span().into();
    let mut c = Children::of(pair);
    Ok(match rule {
        Rule::expect_compare => {
            let op = parse_compare(&c.expect(Rule::compare)?)?;
            ExpectCheck::Compare(op, parse_bound(c.expect(Rule::bound)?)?)
        }
        Rule::expect_range => {
            let lo = parse_bound(c.expect(Rule::bound)?)?;
            let hi = parse_bound(c.expect(Rule::bound)?)?;
            ExpectCheck::Range(lo, hi)
        }
        Rule::expect_near => {
            let expected = parse_bound(c.expect(Rule::bound)?)?;
            let tol = c.expect(Rule::tolerance)?;
            let tspan: Span = tol.as_span().into();
            let inner = Children::of(tol)
                .next()
                .ok_or_else(|| internal(tspan, "empty tolerance"))?;
            let tolerance = match inner.as_rule() {
                Rule::percent => {
                    let n = Children::of(inner).expect(Rule::number)?;
                    Tolerance::Percent(number(&n)?, tspan)
                }
                _ => Tolerance::Absolute(parse_bound(inner)?),
            };
            ExpectCheck::Near(expected, tolerance)
        }
        other => return Err(internal(span, &format!("unexpected check {other:?}"))),
    })
}

fn parse_bound(pair: Pair<'_, Rule>) -> Result<Bound> {
    let span: Span = pair.as_span().into();
    let inner = Children::of(pair)
        .next()
        .ok_or_else(|| internal(span, "empty bound"))?;
    Ok(match inner.as_rule() {
        Rule::expr => Bound::Expr(parse_expr(inner)?),
        Rule::quantity => {
            let q = Children::of(inner)
                .next()
                .ok_or_else(|| internal(span, "empty quantity"))?;
            Bound::Quantity(parse_value_inner(q, span)?)
        }
        other => return Err(internal(span, &format!("unexpected bound {other:?}"))),
    })
}

fn parse_compare(pair: &Pair<'_, Rule>) -> Result<CmpOp> {
    Ok(match pair.as_str() {
        "<" => CmpOp::Lt,
        "<=" => CmpOp::Le,
        ">" => CmpOp::Gt,
        ">=" => CmpOp::Ge,
        "==" => CmpOp::Eq,
        "!=" => CmpOp::Ne,
        other => {
            return Err(internal(
                pair.as_span().into(),
                &format!("unknown comparison {other}"),
            ))
        }
    })
}

fn parse_rate(pair: Pair<'_, Rule>) -> Result<RateAst> {
    let mut c = Children::of(pair);
    let value = parse_value_pair(c.expect(Rule::value)?)?;
    let during = match c.optional(Rule::range) {
        Some(r) => Some(parse_range(r)?),
        None => None,
    };
    Ok(RateAst { value, during })
}

fn parse_retry(pair: Pair<'_, Rule>) -> Result<RetryAst> {
    let span: Span = pair.as_span().into();
    let mut retry = RetryAst {
        attempts: None,
        backoff: None,
        span,
    };
    for p in pair.into_inner() {
        let pspan: Span = p.as_span().into();
        match p.as_rule() {
            Rule::attempts_prop => {
                if retry.attempts.is_some() {
                    return Err(Diagnostic::new(
                        "`attempts` is given twice in one `retry` block",
                        pspan,
                    )
                    .label("second `attempts`"));
                }
                retry.attempts = Some(parse_value_pair(Children::of(p).expect(Rule::value)?)?);
            }
            Rule::backoff_prop => {
                if retry.backoff.is_some() {
                    return Err(Diagnostic::new(
                        "`backoff` is given twice in one `retry` block",
                        pspan,
                    )
                    .label("second `backoff`"));
                }
                let kind = Children::of(p)
                    .next()
                    .ok_or_else(|| internal(pspan, "backoff without a kind"))?;
                retry.backoff = Some(parse_backoff(kind)?);
            }
            other => return Err(internal(pspan, &format!("unexpected {other:?}"))),
        }
    }
    Ok(retry)
}

fn parse_backoff(pair: Pair<'_, Rule>) -> Result<BackoffAst> {
    let rule = pair.as_rule();
    let mut c = Children::of(pair);
    match rule {
        Rule::backoff_fixed => Ok(BackoffAst::Fixed(parse_value_pair(c.expect(Rule::value)?)?)),
        Rule::backoff_exponential => {
            let base = parse_value_pair(c.expect(Rule::value)?)?;
            let mut multiplier = None;
            let mut cap = None;
            while let Some(p) = c.next() {
                match p.as_rule() {
                    Rule::cross => multiplier = Some(parse_value_pair(c.expect(Rule::value)?)?),
                    Rule::value => cap = Some(parse_value_pair(p)?),
                    other => {
                        return Err(internal(
                            p.as_span().into(),
                            &format!("unexpected {other:?}"),
                        ))
                    }
                }
            }
            Ok(BackoffAst::Exponential {
                base,
                multiplier,
                cap,
            })
        }
        other => Err(internal(c.span, &format!("unexpected backoff {other:?}"))),
    }
}

fn parse_variant_item(pair: Pair<'_, Rule>) -> Result<VariantItem> {
    let rule = pair.as_rule();
    let span: Span = pair.as_span().into();
    let mut c = Children::of(pair);
    Ok(match rule {
        Rule::set_item => {
            let name = ident(c.expect(Rule::ident)?);
            VariantItem::Set(name, parse_value_pair(c.expect(Rule::value)?)?)
        }
        Rule::without_item => VariantItem::Without(ident(c.expect(Rule::ident)?)),
        Rule::source_override => {
            let name = ident(c.expect(Rule::ident)?);
            let mut rates = Vec::new();
            while let Some(p) = c.next() {
                rates.push(parse_rate(p)?);
            }
            VariantItem::Source(name, rates)
        }
        other => return Err(internal(span, &format!("unexpected {other:?}"))),
    })
}

fn parse_report_item(pair: Pair<'_, Rule>) -> Result<ReportItem> {
    let rule = pair.as_rule();
    let span: Span = pair.as_span().into();
    let mut c = Children::of(pair);
    Ok(match rule {
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
                label: None,
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
                    Rule::at_prop => table.at = Some(ident(Children::of(p).expect(Rule::ident)?)),
                    Rule::label_prop => {
                        table.label = Some(string(Children::of(p).expect(Rule::string)?))
                    }
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
            let s = c.expect(Rule::string)?;
            let inner = Children::of(s).expect(Rule::string_inner)?;
            ReportItem::Line(inner.as_str().to_string(), inner.as_span().into())
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
        other => return Err(internal(span, &format!("unexpected report item {other:?}"))),
    })
}

fn parse_format_spec(pair: Pair<'_, Rule>) -> Result<usize> {
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

fn parse_axis(pair: Pair<'_, Rule>) -> Result<AxisAst> {
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

// ------------------------------------------------------------- values --

fn parse_value_pair(pair: Pair<'_, Rule>) -> Result<Value> {
    let span: Span = pair.as_span().into();
    let inner = Children::of(pair)
        .next()
        .ok_or_else(|| internal(span, "empty value"))?;
    parse_value_inner(inner, span)
}

/// A value from its inner pair (`number`, `param_ref`, `rate` or `duration`).
fn parse_value_inner(inner: Pair<'_, Rule>, span: Span) -> Result<Value> {
    let kind = match inner.as_rule() {
        Rule::number => ValueKind::Number(number(&inner)?),
        Rule::param_ref => ValueKind::Param(
            Children::of(inner)
                .expect(Rule::ident)?
                .as_str()
                .to_string(),
        ),
        Rule::rate | Rule::bound_rate => {
            let mut c = Children::of(inner);
            let n = number(&c.expect(Rule::number)?)?;
            let u = c.expect(Rule::rate_unit)?;
            ValueKind::Rate {
                n,
                unit: u.as_str().to_string(),
                unit_span: u.as_span().into(),
            }
        }
        Rule::duration => {
            let mut c = Children::of(inner);
            let n = number(&c.expect(Rule::number)?)?;
            let u = c.expect(Rule::time_unit)?;
            let unit = TimeUnit::parse(u.as_str()).ok_or_else(|| {
                Diagnostic::new(
                    format!("unknown time unit `{}`", u.as_str()),
                    u.as_span().into(),
                )
            })?;
            ValueKind::Duration { n, unit }
        }
        other => return Err(internal(span, &format!("unexpected value {other:?}"))),
    };
    Ok(Value { kind, span })
}

fn parse_range(pair: Pair<'_, Rule>) -> Result<Range> {
    let span: Span = pair.as_span().into();
    let mut c = Children::of(pair);
    let start = parse_value_pair(c.expect(Rule::value)?)?;
    let end = parse_value_pair(c.expect(Rule::value)?)?;
    Ok(Range { start, end, span })
}

// -------------------------------------------------------- expressions --

fn pratt() -> PrattParser<Rule> {
    PrattParser::new()
        .op(Op::infix(Rule::add, Assoc::Left) | Op::infix(Rule::sub, Assoc::Left))
        .op(Op::infix(Rule::mul, Assoc::Left) | Op::infix(Rule::div, Assoc::Left))
        .op(Op::infix(Rule::pow, Assoc::Right))
        .op(Op::prefix(Rule::neg))
}

fn parse_expr(pair: Pair<'_, Rule>) -> Result<Expr> {
    let pratt = pratt();
    parse_expr_with(&pratt, pair.into_inner())
}

fn parse_expr_with(pratt: &PrattParser<Rule>, pairs: Pairs<'_, Rule>) -> Result<Expr> {
    pratt
        .map_primary(|p| parse_primary(pratt, p))
        .map_prefix(|op, rhs| {
            let rhs = rhs?;
            let span = Span::from(op.as_span()).join(rhs.span);
            Ok(Expr {
                kind: ExprKind::Neg(Box::new(rhs)),
                span,
            })
        })
        .map_infix(|lhs, op, rhs| {
            let (lhs, rhs) = (lhs?, rhs?);
            let bin = match op.as_rule() {
                Rule::add => BinOp::Add,
                Rule::sub => BinOp::Sub,
                Rule::mul => BinOp::Mul,
                Rule::div => BinOp::Div,
                Rule::pow => BinOp::Pow,
                other => {
                    return Err(internal(
                        op.as_span().into(),
                        &format!("unexpected operator {other:?}"),
                    ))
                }
            };
            let span = lhs.span.join(rhs.span);
            Ok(Expr {
                kind: ExprKind::Binary(bin, Box::new(lhs), Box::new(rhs)),
                span,
            })
        })
        .parse(pairs)
}

fn parse_primary(pratt: &PrattParser<Rule>, pair: Pair<'_, Rule>) -> Result<Expr> {
    let span: Span = pair.as_span().into();
    let kind = match pair.as_rule() {
        Rule::expr => return parse_expr_with(pratt, pair.into_inner()),
        Rule::number => ExprKind::Number(number(&pair)?),
        Rule::param_ref => {
            ExprKind::Param(Children::of(pair).expect(Rule::ident)?.as_str().to_string())
        }
        Rule::path => ExprKind::Path(pair.into_inner().map(ident).collect()),
        Rule::call => {
            let mut c = Children::of(pair);
            let name = ident(c.expect(Rule::ident)?);
            let mut args = Vec::new();
            while let Some(a) = c.next() {
                args.push(parse_expr_with(pratt, a.into_inner())?);
            }
            ExprKind::Call(name, args)
        }
        other => {
            return Err(internal(
                span,
                &format!("unexpected {other:?} in an expression"),
            ))
        }
    };
    Ok(Expr { kind, span })
}

// -------------------------------------------------------- pest errors --

/// Human names for grammar rules, used in "expected ..." messages.
fn rule_name(rule: Rule) -> &'static str {
    match rule {
        Rule::EOI => "end of file",
        Rule::ident => "a name",
        Rule::string | Rule::string_inner => "a quoted string",
        Rule::number => "a number",
        Rule::time_unit => "a time unit (`rounds`, `ms`, `s`, `min`, `h`)",
        Rule::rate_unit => "a unit",
        Rule::param_ref => "a `$param`",
        Rule::rate => "a rate such as `4/round`",
        Rule::duration => "a duration such as `4 rounds` or `200ms`",
        Rule::value => "a value (a number, a rate such as `4/round`, a duration such as `200ms`, or a `$param`)",
        Rule::range => "a range such as `101..160`",
        Rule::name_list => "a list of names such as `[a, b]`",
        Rule::scenario => "`scenario \"name\" { ... }`",
        Rule::clock_decl => "`clock`",
        Rule::run_decl => "`run`",
        Rule::seed_decl => "`seed`",
        Rule::param_decl => "`param`",
        Rule::source_decl => "`source`",
        Rule::chain_decl => "`chain`",
        Rule::service_decl => "`service`",
        Rule::fault_decl => "`fault`",
        Rule::window_decl => "`window`",
        Rule::variant_decl => "`variant`",
        Rule::sweep_decl => "`sweep`",
        Rule::report_decl => "`report`",
        Rule::expect_decl => "`expect`",
        Rule::rate_prop => "`rate`",
        Rule::enters_prop => "`enters`",
        Rule::arrivals_prop => "`arrivals`",
        Rule::capacity_prop => "`capacity`",
        Rule::retry_block => "`retry { ... }`",
        Rule::attempts_prop => "`attempts`",
        Rule::backoff_prop => "`backoff`",
        Rule::backoff_fixed => "`fixed`",
        Rule::backoff_exponential => "`exponential`",
        Rule::cross => "`x`",
        Rule::on_prop => "`on`",
        Rule::during_prop => "`during`",
        Rule::set_item => "`set`",
        Rule::without_item => "`without`",
        Rule::source_override => "`source`",
        Rule::sweep_axis => "`name in [values]`",
        Rule::sweep_base => "`variant`",
        Rule::measure_decl => "`measure`",
        Rule::table_decl => "`table`",
        Rule::line_decl => "`line`",
        Rule::diagnose_decl => "`diagnose`",
        Rule::rows_prop => "`rows`",
        Rule::axis | Rule::axis_variants | Rule::axis_windows | Rule::axis_sweep => {
            "`variants`, `windows` or `sweep NAME`"
        }
        Rule::at_prop => "`at`",
        Rule::label_prop => "`label`",
        Rule::column_decl => "`column`",
        Rule::format_spec => "a format such as `:.2`",
        Rule::compare => "a comparison (`<`, `<=`, `>`, `>=`, `==`, `!=`)",
        Rule::expect_compare | Rule::expect_range | Rule::expect_near => {
            "a check (`> 6`, `in 6.0..6.5` or `== 6.25 within 1%`)"
        }
        Rule::bound | Rule::quantity => "a bound (a number, a rate, a duration or an expression)",
        Rule::bound_rate => "a rate such as `25/round`",
        Rule::tolerance | Rule::percent => "a tolerance such as `0.1` or `5%`",
        Rule::expr | Rule::call | Rule::path => "an expression",
        Rule::add | Rule::sub | Rule::mul | Rule::div | Rule::pow => "an operator",
        Rule::neg => "`-`",
        _ => "something else",
    }
}

fn from_pest(e: pest::error::Error<Rule>, source: &str) -> Diagnostic {
    use pest::error::{ErrorVariant, InputLocation};
    let (start, end) = match e.location {
        InputLocation::Pos(p) => (p, p),
        InputLocation::Span((a, b)) => (a, b),
    };
    // Point at the whole offending token, not just its first byte.
    let token_end = source[start.min(source.len())..]
        .find(|c: char| c.is_whitespace())
        .map_or(source.len(), |i| start + i)
        .max(end);
    let token_end = if token_end == start {
        (start + 1).min(source.len())
    } else {
        token_end
    };
    let found = &source[start.min(source.len())..token_end.min(source.len())];
    let span = Span::new(start, token_end.max(start));
    match e.variant {
        ErrorVariant::ParsingError {
            positives,
            negatives: _,
        } => {
            let mut names: Vec<&str> = positives.iter().map(|r| rule_name(*r)).collect();
            names.dedup();
            let mut seen = Vec::new();
            names.retain(|n| {
                if seen.contains(n) {
                    false
                } else {
                    seen.push(*n);
                    true
                }
            });
            let expected = match names.len() {
                0 => "something else".to_string(),
                1 => names[0].to_string(),
                _ => {
                    let (last, rest) = names.split_last().map_or(("", &[][..]), |(l, r)| (*l, r));
                    format!("{} or {}", rest.join(", "), last)
                }
            };
            let found_text = if found.is_empty() {
                "end of file".to_string()
            } else {
                format!("`{found}`")
            };
            Diagnostic::new(format!("expected {expected}, found {found_text}"), span).label(
                format!(
                    "expected {}",
                    names.first().copied().unwrap_or("something else")
                ),
            )
        }
        ErrorVariant::CustomError { message } => {
            if message.contains("call limit") {
                Diagnostic::new("the file is too deeply nested to read", span)
                    .help("simplify the expression or split it into `measure` lines")
            } else {
                Diagnostic::new(message, span)
            }
        }
    }
}
