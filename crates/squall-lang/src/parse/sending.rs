//! `provider` and `sender` blocks and a variant's changes to them: a name,
//! for a sender the provider it sends to, and settings kept as written (a
//! key and its parts), which `resolve/sending.rs` reads.

use pest::iterators::Pair;

use crate::ast::{CodeItem, CodeLit, Ident, SendBlockAst, SendKind, SendPart, SendSetting};
use crate::diagnostic::Result;
use crate::not_a::NotA;
use crate::span::Span;

use super::grammar::Rule;
use super::pairs::{ident, internal, number, Children};
use super::values::parse_value_pair;

/// A `provider_decl`, a `sender_decl` or a `send_override`.
pub(super) fn parse_send_block(pair: Pair<'_, Rule>) -> Result<SendBlockAst> {
    let span: Span = pair.as_span().into();
    let rule = pair.as_rule();
    let mut c = Children::of(pair);
    let kind = match rule {
        Rule::provider_decl => SendKind::Provider,
        Rule::sender_decl => SendKind::Sender,
        Rule::send_override => match c.expect(Rule::send_kind)?.as_str() {
            "provider" => SendKind::Provider,
            _ => SendKind::Sender,
        },
        other => return Err(internal(span, &format!("unexpected {other:?}"))),
    };
    let name = ident(c.expect(Rule::ident)?);
    let to = match c.optional(Rule::send_to) {
        Some(p) => Some(ident(Children::of(p).expect(Rule::ident)?)),
        None => None,
    };
    let mut settings = Vec::new();
    while let Some(p) = c.next() {
        settings.push(parse_setting(p)?);
    }
    Ok(SendBlockAst {
        kind,
        name,
        to,
        settings,
        span,
    })
}

fn parse_setting(pair: Pair<'_, Rule>) -> Result<SendSetting> {
    let span: Span = pair.as_span().into();
    let mut c = Children::of(pair);
    let key = ident(c.expect(Rule::ident)?);
    let mut parts = Vec::new();
    while let Some(p) = c.next() {
        let pspan: Span = p.as_span().into();
        parts.push(match p.as_rule() {
            Rule::value => SendPart::Value(parse_value_pair(p)?),
            Rule::percent => {
                let n = Children::of(p).expect(Rule::number)?;
                SendPart::Percent(number(&n)?, pspan)
            }
            Rule::send_hex => SendPart::Hex(code(p.as_str(), pspan)?.code, pspan),
            Rule::send_word => SendPart::Word(Ident {
                name: p.as_str().to_string(),
                span: pspan,
            }),
            Rule::send_codes => {
                let mut items = Vec::new();
                for item in p.into_inner() {
                    let ispan: Span = item.as_span().into();
                    let mut ic = Children::of(item);
                    let from = ic.expect(Rule::send_code)?;
                    let from = code(from.as_str(), from.as_span().into())?;
                    let to = match ic.next() {
                        Some(t) => Some(code(t.as_str(), t.as_span().into())?),
                        None => None,
                    };
                    items.push(CodeItem {
                        from,
                        to,
                        span: ispan,
                    });
                }
                SendPart::Codes(items, pspan)
            }
            Rule::send_block => {
                let mut inner = Vec::new();
                for s in p.into_inner() {
                    inner.push(parse_setting(s)?);
                }
                SendPart::Block(inner, pspan)
            }
            other => return Err(internal(pspan, &format!("unexpected {other:?}"))),
        });
    }
    Ok(SendSetting { key, parts, span })
}

/// `429` or `0x58`.
fn code(text: &str, span: Span) -> Result<CodeLit> {
    let (parsed, hex) = match text.strip_prefix("0x") {
        Some(h) => (u32::from_str_radix(h, 16), true),
        None => (text.parse::<u32>(), false),
    };
    let code = parsed.map_err(|_| {
        NotA::new(text, "a code squall can hold")
            .label("too large")
            .help("an HTTP status such as `429`, or a protocol code in hex such as `0x58`")
            .at(span)
    })?;
    Ok(CodeLit { code, hex, span })
}
