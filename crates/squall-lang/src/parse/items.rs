//! The scenario and its top-level items, `expect` checks and variant items.

use pest::iterators::Pair;

use crate::ast::*;
use crate::diagnostic::{Diagnostic, Result};
use crate::span::Span;

use super::{
    blocks::{
        empty_retry, parse_backoff, parse_breaker, parse_kind_block, parse_op, parse_request,
        parse_response, parse_response_block, parse_retry, parse_route, retry_prop,
    },
    grammar::Rule,
    pairs::{code_len, ident, internal, number, string, Children},
    report::parse_report_item,
    sending::parse_send_block,
    timed::{is_timed, parse_timed},
    values::{
        parse_expr, parse_pvalue, parse_range, parse_replica_index, parse_value_inner,
        parse_value_pair,
    },
};

pub(super) fn parse_scenario(pair: Pair<'_, Rule>) -> Result<ScenarioAst> {
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

pub(super) fn parse_item(pair: Pair<'_, Rule>) -> Result<Item> {
    let span: Span = pair.as_span().into();
    let text = pair.as_str();
    let rule = pair.as_rule();
    if rule == Rule::series_decl {
        return Ok(Item::Series(parse_timed(pair)?));
    }
    if rule == Rule::provider_decl {
        return Ok(Item::Provider(parse_send_block(pair)?));
    }
    if rule == Rule::sender_decl {
        return Ok(Item::Sender(parse_send_block(pair)?));
    }
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
            let mut decl = RngAst {
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
            Item::Endpoint(EndpointAst { node, routes })
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
        Rule::draws_decl => Item::Draws(ident(c.expect(Rule::word)?)),
        Rule::work_budget_decl => {
            let p = c.expect(Rule::number)?;
            let text: String = p.as_str().chars().filter(|c| *c != '_').collect();
            let budget = text.parse::<u64>().ok().filter(|&n| n > 0).ok_or_else(|| {
                Diagnostic::new(
                    "a work budget must be a whole number of events from 1 to 18446744073709551615",
                    p.as_span().into(),
                )
                .label("not a work budget")
                .help("e.g. `work_budget 1_000_000_000`")
            })?;
            Item::WorkBudget(budget, p.as_str().to_string(), p.as_span().into())
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
                    Rule::at_times => {
                        SourceProp::At(p.into_inner().map(parse_at_time).collect::<Result<_>>()?)
                    }
                    Rule::request_prop => SourceProp::Request(parse_request(p)?),
                    Rule::source_deadline
                    | Rule::source_clients
                    | Rule::think_prop
                    | Rule::serial_prop
                    | Rule::source_priority => SourceProp::Timed(parse_timed(p)?),
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
            Item::Source(SourceAst { name, props, span })
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
                    _ => props.push(parse_service_prop(p)?),
                }
            }
            Item::Service(ServiceAst { names, props })
        }
        Rule::fault_decl => {
            let name = ident(c.expect(Rule::ident)?);
            let mut props = Vec::new();
            while let Some(p) = c.next() {
                props.push(match p.as_rule() {
                    Rule::on_prop => FaultProp::On(
                        p.into_inner()
                            .map(parse_target)
                            .collect::<Result<Vec<_>>>()?,
                    ),
                    Rule::during_prop => {
                        FaultProp::During(parse_range(Children::of(p).expect(Rule::range)?)?)
                    }
                    Rule::capacity_prop => {
                        FaultProp::Capacity(parse_value_pair(Children::of(p).expect(Rule::value)?)?)
                    }
                    Rule::fail_prop => {
                        FaultProp::Fail(parse_response(Children::of(p).expect(Rule::response)?)?)
                    }
                    r if is_timed(r) => FaultProp::Timed(parse_timed(p)?),
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
            Item::Fault(FaultAst { name, props, span })
        }
        Rule::link_decl => {
            let from = ident(c.expect(Rule::ident)?);
            let to = ident(c.expect(Rule::ident)?);
            let mut props = Vec::new();
            while let Some(p) = c.next() {
                props.push(parse_timed(p)?);
            }
            Item::Link(LinkAst {
                from,
                to,
                props,
                span,
            })
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
            Item::Variant(VariantAst { name, label, items })
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
            Item::Sweep(SweepAst {
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
            // The rule's span runs on over the blank lines and comments
            // after the check (pest skips them while it looks for more of
            // the expression); the line's text ends at its last token.
            let span = Span::new(span.start, span.start + code_len(text));
            Item::Expect(ExpectAst { lhs, check, span })
        }
        other => return Err(internal(span, &format!("unexpected item {other:?}"))),
    })
}

pub(super) fn parse_expect_check(pair: Pair<'_, Rule>) -> Result<ExpectCheck> {
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
                    // A sign is read so that `within -5%` gets its own
                    // message, not "expected ... found `%`".
                    let negative = inner.as_str().starts_with('-');
                    let n = number(&Children::of(inner).expect(Rule::number)?)?;
                    Tolerance::Percent(if negative { -n } else { n }, tspan)
                }
                _ => Tolerance::Absolute(parse_bound(inner)?),
            };
            ExpectCheck::Near(expected, tolerance)
        }
        other => return Err(internal(span, &format!("unexpected check {other:?}"))),
    })
}

pub(super) fn parse_bound(pair: Pair<'_, Rule>) -> Result<Bound> {
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

pub(super) fn parse_compare(pair: &Pair<'_, Rule>) -> Result<CmpOp> {
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

pub(super) fn parse_rate(pair: Pair<'_, Rule>) -> Result<RateAst> {
    let mut c = Children::of(pair);
    let value = parse_value_pair(c.expect(Rule::value)?)?;
    let mut to = None;
    let during = match c.optional(Rule::rate_ramp) {
        Some(ramp) => {
            let mut r = Children::of(ramp);
            r.expect(Rule::kw_to)?;
            to = Some(Box::new(parse_value_pair(r.expect(Rule::value)?)?));
            match r.optional(Rule::range) {
                Some(range) => Some(parse_range(range)?),
                None => None,
            }
        }
        None => match c.optional(Rule::range) {
            Some(r) => Some(parse_range(r)?),
            None => None,
        },
    };
    Ok(RateAst { value, during, to })
}

/// One property of a `service` block (or of a variant's `service` change).
fn parse_service_prop(p: Pair<'_, Rule>) -> Result<ServiceProp> {
    Ok(match p.as_rule() {
        Rule::retry_block => ServiceProp::Retry(parse_retry(p)?),
        Rule::capacity_prop => {
            ServiceProp::Capacity(parse_value_pair(Children::of(p).expect(Rule::value)?)?)
        }
        Rule::breaker_block => ServiceProp::Breaker(parse_breaker(p)?),
        Rule::budget_block => ServiceProp::Budget(parse_kind_block(p)?),
        Rule::hedge_block => ServiceProp::Hedge(parse_kind_block(p)?),
        Rule::limiter_block => ServiceProp::Limiter(parse_kind_block(p)?),
        Rule::throttle_block => ServiceProp::Throttle(parse_kind_block(p)?),
        Rule::breaker_lib => ServiceProp::LibraryBreaker(parse_kind_block(p)?),
        Rule::response_block => ServiceProp::Response(parse_response_block(p)?),
        r if is_timed(r) => ServiceProp::Timed(parse_timed(p)?),
        other => {
            return Err(internal(
                p.as_span().into(),
                &format!("unexpected {other:?}"),
            ))
        }
    })
}

pub(super) fn parse_variant_item(pair: Pair<'_, Rule>) -> Result<VariantItem> {
    let rule = pair.as_rule();
    let span: Span = pair.as_span().into();
    if rule == Rule::send_override {
        return Ok(VariantItem::Send(parse_send_block(pair)?));
    }
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
            let mut props = Vec::new();
            while let Some(p) = c.next() {
                props.push(match p.as_rule() {
                    Rule::rate_prop => SourceProp::Rate(parse_rate(p)?),
                    _ => SourceProp::Timed(parse_timed(p)?),
                });
            }
            VariantItem::Source(name, props)
        }
        Rule::service_override => {
            let mut names = Vec::new();
            let mut changes = Vec::new();
            while let Some(p) = c.next() {
                if p.as_rule() == Rule::ident {
                    names.push(ident(p));
                } else if p.as_rule() == Rule::removal {
                    let pspan: Span = p.as_span().into();
                    let kw = p
                        .into_inner()
                        .next()
                        .ok_or_else(|| internal(pspan, "a removal without its keyword"))?;
                    changes.push(ServiceChange::Remove(ident(kw)));
                } else {
                    changes.push(ServiceChange::Set(parse_service_prop(p)?));
                }
            }
            VariantItem::Service(names, changes)
        }
        other => return Err(internal(span, &format!("unexpected {other:?}"))),
    })
}

/// One entry of `at [...]`: `5ms`, or `1ms x 100`.
fn parse_at_time(pair: Pair<'_, Rule>) -> Result<AtTime> {
    let mut c = Children::of(pair);
    let time = parse_value_pair(c.expect(Rule::value)?)?;
    let count = match c.optional(Rule::cross) {
        Some(_) => Some(parse_value_pair(c.expect(Rule::value)?)?),
        None => None,
    };
    Ok(AtTime { time, count })
}

/// `db`, `api[1]` or `api -> db`: a node a fault strikes, with a
/// replica's index, or a link from one node to the node it calls. An
/// index that is not a whole number is refused here, where it is written.
fn parse_target(pair: Pair<'_, Rule>) -> Result<Target> {
    let mut c = Children::of(pair);
    let node = ident(c.expect(Rule::ident)?);
    let replica = match c.next() {
        None => None,
        Some(p) if p.as_rule() == Rule::link_to => {
            let to = ident(Children::of(p).expect(Rule::ident)?);
            return Ok(Target {
                node,
                replica: None,
                to: Some(to),
            });
        }
        Some(p) => Some(parse_replica_index(p)?),
    };
    Ok(Target {
        node,
        replica,
        to: None,
    })
}
