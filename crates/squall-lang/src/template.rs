//! `line` templates: text with `{expr}` or `{expr:.N}` holes.
//!
//! `{{` and `}}` stand for literal braces; `\"`, `\\` and `\n` are escapes as
//! in any quoted string.

use crate::ast::Expr;
use crate::diagnostic::{Diagnostic, Result};
use crate::parse::parse_template_expr;
use crate::span::Span;

/// A piece of a template as written.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    /// Literal text (escapes already applied).
    Text(String),
    /// An expression and its digits; spans are file offsets.
    Hole(Expr, Option<usize>),
}

/// Splits a raw template (the text between the quotes, starting at file
/// offset `span.start`) into pieces.
pub fn parse_template(raw: &str, span: Span) -> Result<Vec<Piece>> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let bytes = raw.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'{' if bytes.get(i + 1) == Some(&b'{') => {
                text.push('{');
                i += 2;
            }
            b'}' if bytes.get(i + 1) == Some(&b'}') => {
                text.push('}');
                i += 2;
            }
            b'{' => {
                let Some(close) = raw[i + 1..].find('}') else {
                    return Err(Diagnostic::new(
                        "unclosed `{` in a line template",
                        Span::new(span.start + i, span.start + i + 1),
                    )
                    .label("opened here")
                    .help("close the value with `}`, or write `{{` for a literal brace"));
                };
                let inner = &raw[i + 1..i + 1 + close];
                let offset = span.start + i + 1;
                let (mut expr, digits) = parse_template_expr(inner).map_err(|mut d| {
                    d.span = Span::new(d.span.start + offset, d.span.end + offset);
                    d
                })?;
                shift(&mut expr, offset);
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                pieces.push(Piece::Hole(expr, digits));
                i += close + 2;
            }
            b'}' => {
                return Err(Diagnostic::new(
                    "a lone `}` in a line template",
                    Span::new(span.start + i, span.start + i + 1),
                )
                .label("here")
                .help("write `}}` for a literal brace"));
            }
            b'\\' => {
                // The escaped character may be more than one byte long.
                let escaped = raw[i + 1..].chars().next();
                match escaped {
                    Some('n') => text.push('\n'),
                    Some('t') => text.push('\t'),
                    Some(o) => text.push(o),
                    None => {}
                }
                i += 1 + escaped.map_or(0, char::len_utf8);
            }
            _ => {
                // Copy one whole UTF-8 character.
                let ch_len = raw[i..].chars().next().map_or(1, char::len_utf8);
                text.push_str(&raw[i..i + ch_len]);
                i += ch_len;
            }
        }
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

fn shift(e: &mut Expr, by: usize) {
    use crate::ast::ExprKind::*;
    e.span = Span::new(e.span.start + by, e.span.end + by);
    match &mut e.kind {
        Number(_) | Param(_) => {}
        Path(ids, index) => {
            for id in ids {
                id.span = Span::new(id.span.start + by, id.span.end + by);
            }
            if let Some(x) = index {
                x.span = Span::new(x.span.start + by, x.span.end + by);
            }
        }
        Call(name, args) => {
            name.span = Span::new(name.span.start + by, name.span.end + by);
            for a in args {
                shift(a, by);
            }
        }
        Neg(x) => shift(x, by),
        Binary(_, a, b) => {
            shift(a, by);
            shift(b, by);
        }
    }
}
