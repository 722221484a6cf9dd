//! Settings of calls that take time (`latency ...`, `workers 20`,
//! `discipline lifo`, `discipline adaptive_lifo { target_delay 5ms }`,
//! `optimistic conflict 409`, `priority 1`,
//! `timeout 250ms cancel`, `deadline 2s propagate`, `errors 30% as 503`,
//! `series every 1s`): kept as written, a keyword and its parts.

use pest::iterators::Pair;

use crate::ast::{Ident, Timed, TimedPart};
use crate::diagnostic::{Diagnostic, Result};
use crate::not_a::NotA;
use crate::span::Span;

use super::grammar::Rule;
use super::pairs::internal;
use super::values::parse_value_pair;

/// The keyword each rule starts with.
fn keyword(rule: Rule) -> Option<&'static str> {
    Some(match rule {
        Rule::latency_prop | Rule::fault_latency => "latency",
        Rule::load_prop => "load",
        Rule::workers_prop => "workers",
        Rule::queue_prop => "queue",
        Rule::discipline_prop => "discipline",
        Rule::optimistic_prop => "optimistic",
        Rule::replicas_prop => "replicas",
        Rule::balance_prop => "balance",
        Rule::limit_prop => "limit",
        Rule::timeout_prop => "timeout",
        Rule::source_deadline => "deadline",
        Rule::source_clients => "clients",
        Rule::source_priority => "priority",
        Rule::think_prop => "think",
        Rule::serial_prop => "serial",
        Rule::fault_errors => "errors",
        Rule::fault_answer => "answer",
        Rule::link_answer => "answer latency",
        Rule::fault_partition => "partition",
        Rule::series_decl => "series",
        Rule::consumers_prop => "consumers",
        Rule::work_prop => "work",
        Rule::poison_prop => "poison",
        Rule::redeliver_prop => "redeliver",
        Rule::max_receives_prop => "max_receives",
        Rule::dead_letter_prop => "dead_letter",
        _ => return None,
    })
}

/// True for the rules [`parse_timed`] reads.
pub(super) fn is_timed(rule: Rule) -> bool {
    keyword(rule).is_some()
}

/// A setting of calls that take time.
pub(super) fn parse_timed(pair: Pair<'_, Rule>) -> Result<Timed> {
    let mut span: Span = pair.as_span().into();
    let key = keyword(pair.as_rule()).ok_or_else(|| internal(span, "not a timed setting"))?;
    let optional_tail = matches!(
        pair.as_rule(),
        Rule::discipline_prop | Rule::fault_latency | Rule::fault_answer
    );
    if optional_tail {
        // A rule ending in an optional part (`discipline` without its `{
        // ... }`, `latency x 3` without `jitter`) takes the space the
        // grammar skipped looking for it: the setting ends at its word.
        span = Span::new(span.start, span.start + pair.as_str().trim_end().len());
    }
    let line = pair.as_span().start_pos().line_col().0;
    let mut parts = Vec::new();
    let mut inner = pair.into_inner().peekable();
    while let Some(p) = inner.next() {
        let pspan: Span = p.as_span().into();
        match p.as_rule() {
            Rule::kw_timeout if key == "queue" && p.as_span().start_pos().line_col().0 != line => {
                let wait = inner.peek().map_or("50ms", |v| v.as_str());
                return Err(queue_timeout_apart(&parts, wait, pspan));
            }
            Rule::value => parts.push(TimedPart::Value(parse_value_pair(p)?)),
            // A block's `name value` (`discipline adaptive_lifo { ... }`):
            // its name a word, then its value.
            Rule::setting => {
                for q in p.into_inner() {
                    parts.push(match q.as_rule() {
                        Rule::value => TimedPart::Value(parse_value_pair(q)?),
                        _ => TimedPart::Word(Ident {
                            name: q.as_str().to_string(),
                            span: q.as_span().into(),
                        }),
                    });
                }
            }
            Rule::percent_sign => match parts.pop() {
                Some(TimedPart::Value(v)) => parts.push(TimedPart::Percent(v)),
                _ => return Err(internal(pspan, "`%` without a value")),
            },
            Rule::status_code => {
                let text = p.as_str();
                let code = match text.strip_prefix("0x") {
                    Some(hex) => u32::from_str_radix(hex, 16),
                    None => text.parse::<u32>(),
                }
                .map_err(|_| NotA::status_code(text).at(pspan))?;
                parts.push(TimedPart::Code(code, pspan));
            }
            _ => parts.push(TimedPart::Word(Ident {
                name: p.as_str().to_string(),
                span: pspan,
            })),
        }
    }
    Ok(Timed {
        key: Ident {
            name: key.to_string(),
            span: Span::new(span.start, span.start + key.len()),
        },
        parts,
        span,
    })
}

/// `queue 100` and `timeout 50ms` on the next line: the grammar reads the
/// `timeout` as the queue's (the longest wait in it), though on a line of
/// its own it looks like the node's per-try timeout. Neither reading is
/// taken silently: the two spellings are shown.
fn queue_timeout_apart(parts: &[TimedPart], wait: &str, at: Span) -> Diagnostic {
    let room = match parts.first() {
        Some(TimedPart::Value(v)) => crate::format::value_text(v),
        _ => "unbounded".to_string(),
    };
    Diagnostic::new(
        format!("`timeout` on the line after `queue {room}` is ambiguous"),
        at,
    )
    .label("the queue's timeout, or the node's per-try timeout?")
    .help(format!(
        "for the longest wait in the queue, write it on the `queue` line: `queue {room} timeout {wait}`; \
         for the node's per-try timeout on the calls it makes, write `timeout {wait}` before the `queue` line"
    ))
}
