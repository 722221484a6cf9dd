//! Blocks inside items: retry, breaker, backoff, request, operation,
//! response block, route and response.

use pest::iterators::Pair;

use crate::ast::*;
use crate::diagnostic::Result;
use crate::span::Span;
use crate::twice::Twice;

use super::grammar::Rule;
use super::pairs::{code_len, ident, internal, string, Children};
use super::values::{parse_pvalue, parse_value_pair};

pub(super) fn empty_retry(span: Span) -> RetryAst {
    RetryAst {
        attempts: None,
        backoff: None,
        deadline: None,
        retry_after: None,
        unknown_attempts: None,
        pushback: None,
        gate: None,
        gate_window: None,
        named: None,
        span,
    }
}

pub(super) fn parse_retry(pair: Pair<'_, Rule>) -> Result<RetryAst> {
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

pub(super) fn retry_prop(retry: &mut RetryAst, p: Pair<'_, Rule>) -> Result<()> {
    let pspan: Span = p.as_span().into();
    let twice = |what: &str| {
        Twice::InBlock {
            setting: what,
            block: "retry policy",
        }
        .at(pspan)
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
        Rule::pushback_prop => {
            if retry.pushback.is_some() {
                return Err(twice("pushback"));
            }
            retry.pushback = Some(parse_kind_block(p)?);
        }
        Rule::gate_prop => {
            if retry.gate.is_some() {
                return Err(twice("gate"));
            }
            let mut values = p.into_inner().filter(|v| v.as_rule() == Rule::value);
            let share = values
                .next()
                .ok_or_else(|| internal(pspan, "gate without a share"))?;
            retry.gate = Some(parse_value_pair(share)?);
            retry.gate_window = values.next().map(parse_value_pair).transpose()?;
        }
        other => return Err(internal(pspan, &format!("unexpected {other:?}"))),
    }
    Ok(())
}

pub(super) fn parse_breaker(pair: Pair<'_, Rule>) -> Result<BreakerAst> {
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
            return Err(Twice::BreakerSetting.at(pspan));
        }
        *slot = Some(v);
    }
    Ok(b)
}

/// `budget KIND { ... }` or `breaker KIND { ... }`.
pub(super) fn parse_kind_block(pair: Pair<'_, Rule>) -> Result<KindBlockAst> {
    let span: Span = pair.as_span().into();
    // Without braces the rule's span runs on over what follows it.
    let span = Span::new(span.start, span.start + code_len(pair.as_str()));
    let mut inner = pair.into_inner();
    let kind = ident(
        inner
            .next()
            .ok_or_else(|| internal(span, "a block without its kind"))?,
    );
    let mut fields = Vec::new();
    for f in inner {
        let fspan: Span = f.as_span().into();
        let mut parts = f.into_inner();
        let name = ident(
            parts
                .next()
                .ok_or_else(|| internal(fspan, "a setting without a name"))?,
        );
        let value = parse_value_pair(
            parts
                .next()
                .ok_or_else(|| internal(fspan, "a setting without a value"))?,
        )?;
        fields.push((name, value));
    }
    Ok(KindBlockAst { kind, fields, span })
}

pub(super) fn parse_backoff(pair: Pair<'_, Rule>) -> Result<BackoffAst> {
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
    if rule == Rule::backoff_lib {
        return Ok(BackoffAst::Library(parse_kind_block(pair)?));
    }
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

pub(super) fn parse_request(pair: Pair<'_, Rule>) -> Result<RequestAst> {
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

pub(super) fn parse_op(pair: Pair<'_, Rule>) -> Result<OpAst> {
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

pub(super) fn parse_response_block(pair: Pair<'_, Rule>) -> Result<ResponseBlockAst> {
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
            Twice::InBlock {
                setting: what,
                block: "`response`",
            }
            .at(pspan)
        };
        match p.as_rule() {
            Rule::field_decl => {
                let mut c = Children::of(p);
                let name = ident(c.expect(Rule::ident)?);
                let source = ident(c.expect(Rule::ident)?);
                let core = c.expect(Rule::field_class)?.as_str() == "core";
                let bytes = parse_value_pair(c.expect(Rule::value)?)?;
                let timeout = match c.optional(Rule::field_timeout) {
                    Some(t) => {
                        let mut tc = Children::of(t);
                        tc.expect(Rule::kw_timeout)?;
                        Some(parse_value_pair(tc.expect(Rule::value)?)?)
                    }
                    None => None,
                };
                r.fields.push(FieldAst {
                    name,
                    source,
                    core,
                    bytes,
                    timeout,
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
                        return Err(Twice::InBlock {
                            setting: what,
                            block: "`ledger`",
                        }
                        .at(xspan));
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

pub(super) fn parse_route(pair: Pair<'_, Rule>) -> Result<RouteAst> {
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

pub(super) fn parse_response(pair: Pair<'_, Rule>) -> Result<ResponseAst> {
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
