//! Values, ranges and report expressions (a Pratt parser over the
//! operators).

use pest::iterators::{Pair, Pairs};
use pest::pratt_parser::{Assoc, Op, PrattParser};

use crate::ast::*;
use crate::diagnostic::{Diagnostic, Result};
use crate::not_a::NotA;
use crate::span::Span;

use super::grammar::Rule;
use super::pairs::{ident, internal, number, too_large, Children};

/// Most operators (binary and unary minus) in one expression; with
/// [`MAX_NESTING`](super::MAX_NESTING) this bounds the depth of every expression tree.
pub const MAX_OPERATORS: usize = 256;

pub(super) fn parse_value_pair(pair: Pair<'_, Rule>) -> Result<Value> {
    let span: Span = pair.as_span().into();
    let inner = Children::of(pair)
        .next()
        .ok_or_else(|| internal(span, "empty value"))?;
    parse_value_inner(inner, span)
}

/// A value from its inner pair (`number`, `param_ref`, `rate` or `duration`).
pub(super) fn parse_value_inner(inner: Pair<'_, Rule>, span: Span) -> Result<Value> {
    let kind = match inner.as_rule() {
        Rule::number => ValueKind::Number(number(&inner)?),
        Rule::param_ref => ValueKind::Param(
            Children::of(inner)
                .expect(Rule::ident)?
                .as_str()
                .to_string(),
        ),
        Rule::param_rate => {
            let mut c = Children::of(inner);
            let name = Children::of(c.expect(Rule::param_ref)?)
                .expect(Rule::ident)?
                .as_str()
                .to_string();
            let u = c.expect(Rule::rate_unit)?;
            ValueKind::ParamRate(Box::new(ParamRate {
                name,
                unit: u.as_str().to_string(),
                unit_span: u.as_span().into(),
            }))
        }
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
        Rule::size => {
            let text = inner.as_str();
            let mut c = Children::of(inner);
            let n = number(&c.expect(Rule::number)?)?;
            let unit = c.expect(Rule::byte_unit)?;
            let scale = match unit.as_str() {
                "KiB" => 1024.0,
                "MiB" => 1024.0 * 1024.0,
                "GiB" => 1024.0 * 1024.0 * 1024.0,
                _ => 1.0,
            };
            let bytes = n * scale;
            if !bytes.is_finite() {
                return Err(too_large(span, text));
            }
            ValueKind::Size { bytes }
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

pub(super) fn parse_range(pair: Pair<'_, Rule>) -> Result<Range> {
    let span: Span = pair.as_span().into();
    let mut c = Children::of(pair);
    let mark = |m: Mark, span: Span| Value {
        kind: ValueKind::Mark(m),
        span,
    };
    let bound = |c: &mut Children<'_>| -> Result<(Value, Vec<Term>)> {
        let mut b = Children::of(c.expect(Rule::range_bound)?);
        let p = b
            .next()
            .ok_or_else(|| internal(span, "range without a bound"))?;
        let first = match p.as_rule() {
            Rule::end_mark => mark(Mark::End, p.as_span().into()),
            _ => parse_value_pair(p)?,
        };
        let mut terms = Vec::new();
        while let Some(t) = b.optional(Rule::bound_term) {
            let mut tc = Children::of(t);
            let minus = tc.expect(Rule::bound_sign)?.as_str() == "-";
            let value = parse_value_pair(tc.expect(Rule::value)?)?;
            terms.push(Term { minus, value });
        }
        Ok((first, terms))
    };
    if let Some(p) = c.optional(Rule::after_warmup) {
        let s: Span = p.as_span().into();
        return Ok(Range {
            start: mark(Mark::AfterWarmup, s),
            end: mark(Mark::End, s),
            span,
            start_terms: Vec::new(),
            end_terms: Vec::new(),
            half_open: false,
        });
    }
    let (start, start_terms) = bound(&mut c)?;
    let half_open = c.expect(Rule::range_op)?.as_str() == "..<";
    let (end, end_terms) = bound(&mut c)?;
    // The grammar's span runs on over the blank space where a `+ v` might
    // have followed; the range ends with its last value.
    let last = end_terms.last().map_or(end.span, |t| t.value.span);
    let span = Span::new(span.start, last.end.max(span.start));
    Ok(Range {
        start,
        end,
        span,
        start_terms,
        end_terms,
        half_open,
    })
}

/// A param's value: a value, or a word such as a policy name.
pub(super) fn parse_pvalue(pair: Pair<'_, Rule>) -> Result<Value> {
    if pair.as_rule() == Rule::percent_value {
        let span: Span = pair.as_span().into();
        let n = number(&Children::of(pair).expect(Rule::number)?)?;
        return Ok(Value {
            kind: ValueKind::Percent(n),
            span,
        });
    }
    if pair.as_rule() == Rule::word {
        let span: Span = pair.as_span().into();
        return Ok(Value {
            kind: ValueKind::Word(pair.as_str().to_string()),
            span,
        });
    }
    parse_value_pair(pair)
}

// -------------------------------------------------------- expressions --

/// Operators from the loosest to the tightest. `^` binds tighter than a
/// leading `-`, as in mathematics: `-2 ^ 2` is `-(2 ^ 2)`.
pub(super) fn pratt() -> PrattParser<Rule> {
    PrattParser::new()
        .op(Op::infix(Rule::add, Assoc::Left) | Op::infix(Rule::sub, Assoc::Left))
        .op(Op::infix(Rule::mul, Assoc::Left) | Op::infix(Rule::div, Assoc::Left))
        .op(Op::prefix(Rule::neg))
        .op(Op::infix(Rule::pow, Assoc::Right))
}

pub(super) fn parse_expr(pair: Pair<'_, Rule>) -> Result<Expr> {
    // `flatten` walks the token queue without recursion.
    let operators = pair
        .clone()
        .into_inner()
        .flatten()
        .filter(|p| {
            matches!(
                p.as_rule(),
                Rule::add | Rule::sub | Rule::mul | Rule::div | Rule::pow | Rule::neg
            )
        })
        .count();
    if operators > MAX_OPERATORS {
        let span: Span = pair.as_span().into();
        return Err(Diagnostic::new(
            format!(
                "this expression has {operators} operators, more than the {MAX_OPERATORS} squall reads"
            ),
            Span::new(span.start, span.start + 1),
        )
        .label("expression starts here")
        .help("split it into `measure` lines"));
    }
    let pratt = pratt();
    parse_expr_with(&pratt, pair.into_inner())
}

pub(super) fn parse_expr_with(pratt: &PrattParser<Rule>, pairs: Pairs<'_, Rule>) -> Result<Expr> {
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

pub(super) fn parse_primary(pratt: &PrattParser<Rule>, pair: Pair<'_, Rule>) -> Result<Expr> {
    let span: Span = pair.as_span().into();
    let kind = match pair.as_rule() {
        Rule::paren => {
            let inner = Children::of(pair).expect(Rule::expr)?;
            let mut e = parse_expr_with(pratt, inner.into_inner())?;
            e.span = span;
            return Ok(e);
        }
        Rule::number => ExprKind::Number(number(&pair)?),
        Rule::param_ref => {
            ExprKind::Param(Children::of(pair).expect(Rule::ident)?.as_str().to_string())
        }
        Rule::path => {
            let mut ids = Vec::new();
            let mut index: Option<PathIndex> = None;
            for p in pair.into_inner() {
                if p.as_rule() != Rule::replica_index {
                    ids.push(ident(p));
                    continue;
                }
                let (value, at) = parse_replica_index(p)?;
                if index.is_some() {
                    return Err(Diagnostic::new("a path names one replica", at)
                        .label("a second replica index")
                        .help("e.g. `storm.during.api[1].calls`"));
                }
                index = Some(PathIndex {
                    after: ids.len().saturating_sub(1),
                    index: value,
                    span: at,
                });
            }
            ExprKind::Path(ids, index)
        }
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

/// `[1]`: a replica's index and where it is (from `[` to `]`), in a
/// fault's `on` and in a report's path. An index that is not a whole
/// number is refused here, where it is written.
pub(super) fn parse_replica_index(p: Pair<'_, Rule>) -> Result<(u64, Span)> {
    let span: Span = p.as_span().into();
    let n = Children::of(p).expect(Rule::number)?;
    let v = number(&n)?;
    if v.fract() != 0.0 || v >= u64::MAX as f64 {
        return Err(
            NotA::new(n.as_str(), "a replica index (a whole number from 0)").at(n.as_span().into()),
        );
    }
    Ok((v as u64, span))
}
