//! Text to syntax tree.
//!
//! The grammar lives in `squall.pest`. Each `parse_*` function builds one
//! construct from its pest pair. A missing child is reported as a diagnostic,
//! never a panic: the grammar guarantees the children exist, and
//! `Children` turns a broken guarantee into an internal-error diagnostic.
//!
//! No input can exhaust the stack: parentheses nest at most [`MAX_NESTING`]
//! deep (checked on the raw text before pest runs) and one expression holds
//! at most [`MAX_OPERATORS`] operators, which bounds the depth of every
//! expression tree the later passes recurse over.

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

/// Most rule calls pest may make on one input before giving up (guards
/// runaway input; pest also stops itself before the native stack runs out).
const CALL_LIMIT: usize = 5_000_000;

/// Deepest nesting of parentheses in an expression. Checked on the raw text
/// before pest runs, so that neither pest nor the recursive passes after it
/// (Pratt parsing, validation, dropping the tree) can exhaust the stack.
pub const MAX_NESTING: usize = 64;

/// Most operators (binary and unary minus) in one expression; with
/// [`MAX_NESTING`] this bounds the depth of every expression tree.
pub const MAX_OPERATORS: usize = 256;

/// What ends the text being parsed, as named in "found ..." messages.
#[derive(Debug, Clone, Copy, PartialEq)]
enum End {
    /// A scenario file.
    File,
    /// A value on its own (`--set name=value`).
    Value,
    /// The hole of a `line` template, closed by `}`.
    Hole,
}

impl End {
    fn name(self) -> &'static str {
        match self {
            End::File => "end of file",
            End::Value => "end of the value",
            End::Hole => "`}`",
        }
    }
}

/// Sets pest's process-wide limits; the same values every time, so calls
/// from several threads agree.
fn configure_pest() {
    pest::set_call_limit(std::num::NonZeroUsize::new(CALL_LIMIT));
    // Records the literal tokens tried at the failure point, so that "expected
    // ..." can name a closing `}` or `)`.
    pest::set_error_detail(true);
}

/// Parses a whole scenario file.
pub fn parse_file(source: &str) -> Result<ScenarioAst> {
    configure_pest();
    check_nesting(source)?;
    let mut pairs =
        Grammar::parse(Rule::file, source).map_err(|e| from_pest(e, source, End::File))?;
    let file = pairs
        .next()
        .ok_or_else(|| internal(Span::default(), "empty parse"))?;
    let mut c = Children::of(file);
    parse_scenario(c.expect(Rule::scenario)?)
}

/// Parses a value given on its own, as in `--set attempts=2`.
pub fn parse_value(text: &str) -> Result<Value> {
    configure_pest();
    let mut pairs =
        Grammar::parse(Rule::value_only, text).map_err(|e| from_pest(e, text, End::Value))?;
    let top = pairs
        .next()
        .ok_or_else(|| internal(Span::default(), "empty parse"))?;
    let mut c = Children::of(top);
    let value = c
        .next()
        .ok_or_else(|| internal(Span::default(), "empty value"))?;
    parse_pvalue(value)
}

/// Parses an expression embedded in a `line` template, with its optional
/// `:.N` format. Spans are relative to `text`.
pub fn parse_template_expr(text: &str) -> Result<(Expr, Option<usize>)> {
    configure_pest();
    check_nesting(text)?;
    let mut pairs =
        Grammar::parse(Rule::template_expr, text).map_err(|e| from_pest(e, text, End::Hole))?;
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

/// Fails at the first `(` nested deeper than [`MAX_NESTING`], skipping
/// comments and quoted strings (a `line` template's holes are checked when
/// the template is parsed).
fn check_nesting(text: &str) -> Result<()> {
    let mut depth = 0usize;
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '#' => {
                for (_, c) in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '"' => {
                while let Some((_, c)) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' | '\n' => break,
                        _ => {}
                    }
                }
            }
            '(' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(Diagnostic::new(
                        format!(
                            "this expression is too deeply nested: more than {MAX_NESTING} open parentheses"
                        ),
                        Span::new(i, i + 1),
                    )
                    .label("too deep")
                    .help("simplify the expression, or split it into `measure` lines"));
                }
            }
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

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
        Rule::run_decl => match c.next() {
            Some(p) if p.as_rule() == Rule::range => Item::RunRange(parse_range(p)?),
            Some(p) => Item::Run(parse_value_pair(p)?),
            None => return Err(internal(span, "run without a value")),
        },
        Rule::epoch_decl => {
            let p = c.expect(Rule::string)?;
            let sspan: Span = p.as_span().into();
            Item::Epoch(string(p), sspan)
        }
        Rule::rng_decl => {
            let name = ident(c.expect(Rule::ident)?);
            let mut decl = RngDecl {
                name,
                algorithm: None,
                seed: None,
            };
            while let Some(p) = c.next() {
                let pspan: Span = p.as_span().into();
                match p.as_rule() {
                    Rule::rng_seed => {
                        let n = Children::of(p).expect(Rule::number)?;
                        let text: String = n.as_str().chars().filter(|c| *c != '_').collect();
                        let seed = text.parse::<u64>().map_err(|_| {
                            Diagnostic::new("a seed must be a whole number", n.as_span().into())
                                .label("not a whole number")
                        })?;
                        decl.seed = Some((seed, pspan));
                    }
                    Rule::rng_algorithm => {
                        decl.algorithm = Some(ident(Children::of(p).expect(Rule::ident)?))
                    }
                    other => return Err(internal(pspan, &format!("unexpected {other:?}"))),
                }
            }
            Item::Rng(decl)
        }
        Rule::backoff_decl => {
            let name = ident(c.expect(Rule::ident)?);
            Item::Backoff(name, parse_backoff(c.expect(Rule::backoff_kind)?)?)
        }
        Rule::policy_decl => {
            let name = ident(c.expect(Rule::ident)?);
            let mut retry = empty_retry(span);
            while let Some(p) = c.next() {
                retry_prop(&mut retry, p)?;
            }
            Item::Policy(name, retry)
        }
        Rule::endpoint_decl => {
            let node = ident(c.expect(Rule::ident)?);
            let mut routes = Vec::new();
            while let Some(p) = c.next() {
                routes.push(parse_route(p)?);
            }
            Item::Endpoint(EndpointDecl { node, routes })
        }
        Rule::seed_decl => {
            let p = c.expect(Rule::number)?;
            let text: String = p.as_str().chars().filter(|c| *c != '_').collect();
            let seed = text.parse::<u64>().map_err(|_| {
                Diagnostic::new(
                    "a seed must be a whole number from 0 to 18446744073709551615",
                    p.as_span().into(),
                )
                .label("not a seed")
            })?;
            Item::Seed(seed, p.as_span().into())
        }
        Rule::param_decl => {
            let name = ident(c.expect(Rule::ident)?);
            let value = c
                .next()
                .ok_or_else(|| internal(span, "param without a value"))?;
            Item::Param(name, parse_pvalue(value)?)
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
                    Rule::at_times => SourceProp::At(
                        p.into_inner()
                            .map(parse_value_pair)
                            .collect::<Result<_>>()?,
                    ),
                    Rule::request_prop => SourceProp::Request(parse_request(p)?),
                    Rule::sequential_block => {
                        let mut ops = Vec::new();
                        for op in p.into_inner() {
                            ops.push(parse_op(op)?);
                        }
                        SourceProp::Sequential(ops)
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
        Rule::chain_decl => {
            let mut nodes = Vec::new();
            let mut fanout = Vec::new();
            for p in c.inner {
                match p.as_rule() {
                    Rule::fanout => fanout = p.into_inner().map(ident).collect(),
                    _ => nodes.push(ident(p)),
                }
            }
            Item::Chain(nodes, fanout)
        }
        Rule::warmup_decl => Item::Warmup(parse_value_pair(c.expect(Rule::value)?)?),
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
                    Rule::breaker_block => props.push(ServiceProp::Breaker(parse_breaker(p)?)),
                    Rule::response_block => {
                        props.push(ServiceProp::Response(parse_response_block(p)?))
                    }
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
                    Rule::on_prop => FaultProp::On(p.into_inner().map(ident).collect()),
                    Rule::during_prop => {
                        FaultProp::During(parse_range(Children::of(p).expect(Rule::range)?)?)
                    }
                    Rule::capacity_prop => {
                        FaultProp::Capacity(parse_value_pair(Children::of(p).expect(Rule::value)?)?)
                    }
                    Rule::fail_prop => {
                        FaultProp::Fail(parse_response(Children::of(p).expect(Rule::response)?)?)
                    }
                    Rule::every_prop => {
                        let espan: Span = p.as_span().into();
                        let mut ec = Children::of(p);
                        let every = parse_value_pair(ec.expect(Rule::value)?)?;
                        let mut phase = None;
                        let mut step = None;
                        while let Some(x) = ec.next() {
                            match x.as_rule() {
                                Rule::value => phase = Some(parse_value_pair(x)?),
                                Rule::per_field => {
                                    step = Some(parse_value_pair(
                                        Children::of(x).expect(Rule::value)?,
                                    )?)
                                }
                                other => {
                                    return Err(internal(
                                        x.as_span().into(),
                                        &format!("unexpected {other:?}"),
                                    ))
                                }
                            }
                        }
                        FaultProp::Every(EveryAst {
                            every,
                            phase,
                            step,
                            span: espan,
                        })
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
                            values.push(parse_pvalue(v)?);
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

fn empty_retry(span: Span) -> RetryAst {
    RetryAst {
        attempts: None,
        backoff: None,
        deadline: None,
        retry_after: None,
        unknown_attempts: None,
        named: None,
        span,
    }
}

fn parse_retry(pair: Pair<'_, Rule>) -> Result<RetryAst> {
    let span: Span = pair.as_span().into();
    let mut retry = empty_retry(span);
    for p in pair.into_inner() {
        if p.as_rule() == Rule::ident {
            retry.named = Some(ident(p));
        } else {
            retry_prop(&mut retry, p)?;
        }
    }
    Ok(retry)
}

fn retry_prop(retry: &mut RetryAst, p: Pair<'_, Rule>) -> Result<()> {
    let pspan: Span = p.as_span().into();
    let twice = |what: &str| {
        Diagnostic::new(
            format!("`{what}` is given twice in one retry policy"),
            pspan,
        )
        .label(format!("second `{what}`"))
    };
    match p.as_rule() {
        Rule::attempts_prop => {
            if retry.attempts.is_some() {
                return Err(twice("attempts"));
            }
            retry.attempts = Some(parse_value_pair(Children::of(p).expect(Rule::value)?)?);
        }
        Rule::backoff_prop => {
            if retry.backoff.is_some() {
                return Err(twice("backoff"));
            }
            let kind = Children::of(p)
                .next()
                .ok_or_else(|| internal(pspan, "backoff without a kind"))?;
            retry.backoff = Some(match kind.as_rule() {
                Rule::ident => BackoffRef::Named(ident(kind)),
                _ => BackoffRef::Inline(parse_backoff(kind)?),
            });
        }
        Rule::deadline_prop => {
            if retry.deadline.is_some() {
                return Err(twice("deadline"));
            }
            retry.deadline = Some(parse_value_pair(Children::of(p).expect(Rule::value)?)?);
        }
        Rule::retry_after_prop => {
            if retry.retry_after.is_some() {
                return Err(twice("retry_after"));
            }
            retry.retry_after = Some(ident(Children::of(p).expect(Rule::ident)?));
        }
        Rule::unknown_prop => {
            if retry.unknown_attempts.is_some() {
                return Err(twice("unknown_attempts"));
            }
            retry.unknown_attempts = Some(parse_value_pair(Children::of(p).expect(Rule::value)?)?);
        }
        other => return Err(internal(pspan, &format!("unexpected {other:?}"))),
    }
    Ok(())
}

fn parse_breaker(pair: Pair<'_, Rule>) -> Result<BreakerAst> {
    let span: Span = pair.as_span().into();
    let mut b = BreakerAst {
        after: None,
        cooldown: None,
        probes: None,
        per_path: false,
        span,
    };
    for p in pair.into_inner() {
        let rule = p.as_rule();
        let pspan: Span = p.as_span().into();
        if rule == Rule::breaker_scope {
            b.per_path = true;
            continue;
        }
        let v = parse_value_pair(Children::of(p).expect(Rule::value)?)?;
        let slot = match rule {
            Rule::breaker_after => &mut b.after,
            Rule::breaker_cooldown => &mut b.cooldown,
            Rule::breaker_probes => &mut b.probes,
            other => return Err(internal(pspan, &format!("unexpected {other:?}"))),
        };
        if slot.is_some() {
            return Err(
                Diagnostic::new("a breaker setting is given twice", pspan).label("second setting")
            );
        }
        *slot = Some(v);
    }
    Ok(b)
}

fn parse_backoff(pair: Pair<'_, Rule>) -> Result<BackoffAst> {
    let span: Span = pair.as_span().into();
    // `backoff_kind` wraps exactly one concrete kind.
    let pair = if pair.as_rule() == Rule::backoff_kind {
        Children::of(pair)
            .next()
            .ok_or_else(|| internal(span, "empty backoff"))?
    } else {
        pair
    };
    let rule = pair.as_rule();
    let mut c = Children::of(pair);
    let base = parse_value_pair(c.expect(Rule::value)?)?;
    let mut multiplier = None;
    let mut cap = None;
    let mut rng = None;
    while let Some(p) = c.next() {
        match p.as_rule() {
            Rule::cross => multiplier = Some(parse_value_pair(c.expect(Rule::value)?)?),
            Rule::cap_part => cap = Some(parse_value_pair(Children::of(p).expect(Rule::value)?)?),
            Rule::rng_use => rng = Some(ident(Children::of(p).expect(Rule::ident)?)),
            other => {
                return Err(internal(
                    p.as_span().into(),
                    &format!("unexpected {other:?}"),
                ))
            }
        }
    }
    Ok(match rule {
        Rule::backoff_fixed => BackoffAst::Fixed(base),
        Rule::backoff_exponential => BackoffAst::Exponential {
            base,
            multiplier,
            cap,
        },
        Rule::backoff_full => BackoffAst::FullJitter {
            base,
            multiplier,
            cap,
            rng,
        },
        Rule::backoff_equal => BackoffAst::EqualJitter {
            base,
            multiplier,
            cap,
            rng,
        },
        Rule::backoff_decorrelated => BackoffAst::Decorrelated { base, cap, rng },
        other => return Err(internal(span, &format!("unexpected backoff {other:?}"))),
    })
}

fn parse_request(pair: Pair<'_, Rule>) -> Result<RequestAst> {
    let span: Span = pair.as_span().into();
    let mut c = Children::of(pair);
    let method = c.expect(Rule::http_method)?.as_str().to_string();
    let path = c.expect(Rule::url_path)?.as_str().to_string();
    let key = c.optional(Rule::key_flag).is_some();
    Ok(RequestAst {
        method,
        path,
        key,
        span,
    })
}

fn parse_op(pair: Pair<'_, Rule>) -> Result<OpAst> {
    let span: Span = pair.as_span().into();
    let mut c = Children::of(pair);
    let label = string(c.expect(Rule::string)?);
    let method = c.expect(Rule::http_method)?.as_str().to_string();
    let path = c.expect(Rule::url_path)?.as_str().to_string();
    let mut op = OpAst {
        label,
        request: RequestAst {
            method,
            path,
            key: false,
            span,
        },
        attempts: None,
        policy: None,
    };
    while let Some(p) = c.next() {
        match p.as_rule() {
            Rule::key_flag => op.request.key = true,
            Rule::op_attempts => {
                op.attempts = Some(parse_value_pair(Children::of(p).expect(Rule::value)?)?)
            }
            Rule::op_policy => op.policy = Some(ident(Children::of(p).expect(Rule::ident)?)),
            other => {
                return Err(internal(
                    p.as_span().into(),
                    &format!("unexpected {other:?}"),
                ))
            }
        }
    }
    Ok(op)
}

fn parse_response_block(pair: Pair<'_, Rule>) -> Result<ResponseBlockAst> {
    let span: Span = pair.as_span().into();
    let mut r = ResponseBlockAst {
        fields: Vec::new(),
        marker: None,
        policy: None,
        ledger: None,
        span,
    };
    for p in pair.into_inner() {
        let pspan: Span = p.as_span().into();
        let twice = |what: &str| {
            Diagnostic::new(format!("`{what}` is given twice in one `response`"), pspan)
                .label(format!("second `{what}`"))
        };
        match p.as_rule() {
            Rule::field_decl => {
                let mut c = Children::of(p);
                let name = ident(c.expect(Rule::ident)?);
                let source = ident(c.expect(Rule::ident)?);
                let core = c.expect(Rule::field_class)?.as_str() == "core";
                let bytes = parse_value_pair(c.expect(Rule::value)?)?;
                r.fields.push(FieldAst {
                    name,
                    source,
                    core,
                    bytes,
                });
            }
            Rule::marker_prop => {
                if r.marker.is_some() {
                    return Err(twice("marker"));
                }
                r.marker = Some(parse_value_pair(Children::of(p).expect(Rule::value)?)?);
            }
            Rule::degrade_prop => {
                if r.policy.is_some() {
                    return Err(twice("policy"));
                }
                let v = Children::of(p)
                    .next()
                    .ok_or_else(|| internal(pspan, "policy without a value"))?;
                r.policy = Some(match v.as_rule() {
                    Rule::param_ref => Value {
                        kind: ValueKind::Param(
                            Children::of(v).expect(Rule::ident)?.as_str().to_string(),
                        ),
                        span: pspan,
                    },
                    _ => parse_pvalue(v)?,
                });
            }
            Rule::ledger_block => {
                if r.ledger.is_some() {
                    return Err(twice("ledger"));
                }
                let mut l = LedgerAst {
                    entries: None,
                    stale_for: None,
                    span: pspan,
                };
                for x in p.into_inner() {
                    let rule = x.as_rule();
                    let xspan: Span = x.as_span().into();
                    let v = parse_value_pair(Children::of(x).expect(Rule::value)?)?;
                    let (slot, what) = match rule {
                        Rule::ledger_entries => (&mut l.entries, "entries"),
                        _ => (&mut l.stale_for, "stale_for"),
                    };
                    if slot.is_some() {
                        return Err(Diagnostic::new(
                            format!("`{what}` is given twice in one `ledger`"),
                            xspan,
                        )
                        .label(format!("second `{what}`")));
                    }
                    *slot = Some(v);
                }
                r.ledger = Some(l);
            }
            other => return Err(internal(pspan, &format!("unexpected {other:?}"))),
        }
    }
    Ok(r)
}

fn parse_route(pair: Pair<'_, Rule>) -> Result<RouteAst> {
    let span: Span = pair.as_span().into();
    let mut c = Children::of(pair);
    let first = c.next().ok_or_else(|| internal(span, "empty route"))?;
    let (name, method, path) = if first.as_rule() == Rule::route_default {
        (
            Ident {
                name: "default".into(),
                span: first.as_span().into(),
            },
            None,
            None,
        )
    } else {
        let name = ident(first);
        let method = c.expect(Rule::http_method)?.as_str().to_string();
        let path = c.expect(Rule::url_path)?.as_str().to_string();
        (name, Some(method), Some(path))
    };
    let script_pair = c.expect(Rule::script)?;
    let mut script = Vec::new();
    for step in script_pair.into_inner() {
        let sspan: Span = step.as_span().into();
        let mut sc = Children::of(step);
        let response = parse_response(sc.expect(Rule::response)?)?;
        let mut times = None;
        let mut until = None;
        while let Some(p) = sc.next() {
            match p.as_rule() {
                Rule::cross => times = Some(parse_value_pair(sc.expect(Rule::value)?)?),
                Rule::value => until = Some(parse_value_pair(p)?),
                other => {
                    return Err(internal(
                        p.as_span().into(),
                        &format!("unexpected {other:?}"),
                    ))
                }
            }
        }
        script.push(StepAst {
            response,
            times,
            until,
            span: sspan,
        });
    }
    Ok(RouteAst {
        name,
        method,
        path,
        script,
    })
}

fn parse_response(pair: Pair<'_, Rule>) -> Result<ResponseAst> {
    let span: Span = pair.as_span().into();
    let inner = Children::of(pair)
        .next()
        .ok_or_else(|| internal(span, "empty response"))?;
    Ok(match inner.as_rule() {
        Rule::network_response => ResponseAst::NetworkError,
        Rule::timeout_response => ResponseAst::Timeout,
        Rule::body_response => ResponseAst::BodyError,
        Rule::status_response => {
            let sspan: Span = inner.as_span().into();
            let mut c = Children::of(inner);
            let code = c.expect(Rule::status_code)?.as_str().to_string();
            let retry_after = match c.next() {
                None => None,
                Some(p) if p.as_rule() == Rule::string => {
                    let ps: Span = p.as_span().into();
                    Some(RetryAfterAst::Date(string(p), ps))
                }
                Some(p) => Some(RetryAfterAst::Delay(parse_value_pair(p)?)),
            };
            ResponseAst::Status {
                code,
                retry_after,
                span: sspan,
            }
        }
        other => return Err(internal(span, &format!("unexpected response {other:?}"))),
    })
}

fn parse_variant_item(pair: Pair<'_, Rule>) -> Result<VariantItem> {
    let rule = pair.as_rule();
    let span: Span = pair.as_span().into();
    let mut c = Children::of(pair);
    Ok(match rule {
        Rule::set_item => {
            let name = ident(c.expect(Rule::ident)?);
            let value = c
                .next()
                .ok_or_else(|| internal(span, "set without a value"))?;
            VariantItem::Set(name, parse_pvalue(value)?)
        }
        Rule::without_item => VariantItem::Without(c.inner.map(ident).collect()),
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
                    Rule::at_prop => table.at = Some(ident(Children::of(p).expect(Rule::ident)?)),
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
        Rule::size => {
            let mut c = Children::of(inner);
            let n = number(&c.expect(Rule::number)?)?;
            let unit = c.expect(Rule::byte_unit)?;
            let scale = match unit.as_str() {
                "KiB" => 1024.0,
                "MiB" => 1024.0 * 1024.0,
                "GiB" => 1024.0 * 1024.0 * 1024.0,
                _ => 1.0,
            };
            ValueKind::Size { bytes: n * scale }
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
    let mark = |m: Mark, span: Span| Value {
        kind: ValueKind::Mark(m),
        span,
    };
    let bound = |c: &mut Children<'_>| -> Result<Value> {
        let p = c
            .next()
            .ok_or_else(|| internal(span, "range without a bound"))?;
        match p.as_rule() {
            Rule::end_mark => Ok(mark(Mark::End, p.as_span().into())),
            _ => parse_value_pair(p),
        }
    };
    if let Some(p) = c.optional(Rule::after_warmup) {
        let s: Span = p.as_span().into();
        return Ok(Range {
            start: mark(Mark::AfterWarmup, s),
            end: mark(Mark::End, s),
            span,
        });
    }
    let start = bound(&mut c)?;
    let end = bound(&mut c)?;
    Ok(Range { start, end, span })
}

/// A param's value: a value, or a word such as a policy name.
fn parse_pvalue(pair: Pair<'_, Rule>) -> Result<Value> {
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
fn pratt() -> PrattParser<Rule> {
    PrattParser::new()
        .op(Op::infix(Rule::add, Assoc::Left) | Op::infix(Rule::sub, Assoc::Left))
        .op(Op::infix(Rule::mul, Assoc::Left) | Op::infix(Rule::div, Assoc::Left))
        .op(Op::prefix(Rule::neg))
        .op(Op::infix(Rule::pow, Assoc::Right))
}

fn parse_expr(pair: Pair<'_, Rule>) -> Result<Expr> {
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
        Rule::paren => "`(`",
        Rule::add | Rule::sub | Rule::mul | Rule::div | Rule::pow => "an operator",
        Rule::neg => "`-`",
        Rule::epoch_decl => "`epoch`",
        Rule::rng_decl => "`rng`",
        Rule::backoff_decl => "`backoff`",
        Rule::policy_decl => "`policy`",
        Rule::endpoint_decl => "`endpoint`",
        Rule::at_times => "`at [times]`",
        Rule::request_prop => "`request`",
        Rule::sequential_block => "`sequential { ... }`",
        Rule::op_decl => "`op`",
        Rule::key_flag => "`idempotency_key`",
        Rule::deadline_prop => "`deadline`",
        Rule::retry_after_prop => "`retry_after`",
        Rule::unknown_prop => "`unknown_attempts`",
        Rule::backoff_kind | Rule::backoff_full | Rule::backoff_equal | Rule::backoff_decorrelated => {
            "a backoff (`fixed`, `exponential`, `full_jitter`, `equal_jitter`, `decorrelated`)"
        }
        Rule::cap_part => "`cap`",
        Rule::rng_use => "`rng`",
        Rule::breaker_block => "`breaker { ... }`",
        Rule::breaker_after => "`after N failures`",
        Rule::breaker_cooldown => "`cooldown`",
                Rule::breaker_probes => "`probes`",
        Rule::breaker_scope => "`per path`",
        Rule::route_decl | Rule::route_default => "`route NAME METHOD /path { ... }` or `default { ... }`",
        Rule::http_method => "an HTTP method (`GET`, `POST`, ... or `*`)",
        Rule::url_path => "a path such as `/items`",
        Rule::script | Rule::step | Rule::response | Rule::status_response => {
            "a response (a status such as `503`, `network_error`, `timeout`, `body_error`)"
        }
        Rule::status_code => "a status code",
                Rule::fail_prop => "`fail`",
        Rule::size | Rule::byte_unit => "a size such as `180 B` or `2 MiB`",
        Rule::word => "a word",
        Rule::end_mark => "`end`",
        Rule::after_warmup => "`after warmup`",
        Rule::warmup_decl => "`warmup`",
        Rule::fanout => "a list of nodes such as `[a, b]`",
        Rule::response_block => "`response { ... }`",
        Rule::field_decl => "`field NAME from NODE core|optional SIZE`",
        Rule::field_class => "`core` or `optional`",
        Rule::marker_prop => "`marker`",
        Rule::degrade_prop => "`policy`",
        Rule::ledger_block => "`ledger { ... }`",
        Rule::ledger_entries => "`entries`",
        Rule::ledger_stale => "`stale_for`",
        Rule::every_prop => "`every`",
                Rule::per_field => "`step N per field`",
        Rule::per_field_tail => "`per field` (a phase step is per field)",
        Rule::isolation_decl => "`isolation`",
        Rule::isolation_variants => "`variants [..]`",
        Rule::isolation_window => "`window`",
        Rule::waits_decl => "`waits`",
        Rule::herd_decl => "`herd`",
        Rule::operations_decl => "`operations`",
        Rule::trace_decl => "`trace`",
        Rule::policies_prop => "`policies`",
                Rule::value_only => "a value",
        _ => "something else",
    }
}

/// Longest stretch of the input quoted in a "found ..." message.
const MAX_FOUND_CHARS: usize = 40;

/// The offending token at byte `start`: up to the next whitespace, at least
/// one character, at most [`MAX_FOUND_CHARS`]. Returns its end.
fn token_end(source: &str, start: usize) -> usize {
    let rest = source.get(start..).unwrap_or("");
    let mut end = start;
    for (n, (i, c)) in rest.char_indices().enumerate() {
        if n >= MAX_FOUND_CHARS || (n > 0 && c.is_whitespace()) {
            break;
        }
        end = start + i + c.len_utf8();
        if c.is_whitespace() {
            break;
        }
    }
    end
}

/// `text` for a message: invisible characters spelled out.
fn visible(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_whitespace() || c.is_control() {
                format!("\\u{{{:x}}}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// True when the `"` at `start` opens a string that the line never closes.
fn unclosed_string_at(source: &str, start: usize) -> bool {
    let Some(rest) = source.get(start..).and_then(|r| r.strip_prefix('"')) else {
        return false;
    };
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '"' => return false,
            '\n' => return true,
            _ => {}
        }
    }
    true
}

fn from_pest(e: pest::error::Error<Rule>, source: &str, end: End) -> Diagnostic {
    use pest::error::{ErrorVariant, InputLocation};
    let start = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((a, _)) => a,
    };
    let mut start = start.min(source.len());
    while !source.is_char_boundary(start) {
        start -= 1;
    }
    let stop = token_end(source, start);
    let found = source.get(start..stop).unwrap_or("");
    let span = Span::new(start, stop);
    let attempts = e.parse_attempts();
    match e.variant {
        ErrorVariant::ParsingError {
            positives,
            negatives: _,
        } => {
            if unclosed_string_at(source, start) {
                return Diagnostic::new(
                    "expected `\"` to close this string, found the end of the line",
                    Span::new(start, start + 1),
                )
                .label("the string starts here")
                .help("a string ends with `\"` on the line where it starts");
            }
            let mut names: Vec<&str> = Vec::new();
            for r in &positives {
                let name = match r {
                    Rule::EOI => end.name(),
                    r => rule_name(*r),
                };
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            // Closing brackets are literals, which pest lists only among the
            // tokens it tried, not among the rules.
            if let Some(attempts) = attempts {
                for token in attempts.expected_tokens() {
                    let name = match token.to_string().as_str() {
                        "}" => "`}`",
                        ")" => "`)`",
                        "]" => "`]`",
                        _ => continue,
                    };
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
            }
            let expected = match names.split_last() {
                None => "something else".to_string(),
                Some((last, [])) => (*last).to_string(),
                Some((last, rest)) => format!("{} or {}", rest.join(", "), last),
            };
            let found_text = if found.is_empty() {
                end.name().to_string()
            } else {
                format!("`{}`", visible(found))
            };
            let label = match (found.is_empty(), names.as_slice()) {
                (true, _) => format!("{} here", end.name()),
                (false, [one]) => format!("expected {one}"),
                (false, _) => "not expected here".to_string(),
            };
            // A misspelt keyword: name the closest expected one.
            let keywords: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
            let word: String = found
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let hint = if word.is_empty() {
                None
            } else {
                crate::diagnostic::did_you_mean(&word, keywords)
            };
            Diagnostic::new(format!("expected {expected}, found {found_text}"), span)
                .label(label)
                .maybe_help(hint)
        }
        ErrorVariant::CustomError { message } => {
            if message.contains("call limit") || message.contains("stack limit") {
                Diagnostic::new("the input is too large or too deeply nested to read", span)
                    .label("gave up here")
                    .help("simplify the expression, or split the file")
            } else {
                Diagnostic::new(message, span)
            }
        }
    }
}
