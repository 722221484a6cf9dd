//! Reading pest pairs: a pair's children in order, identifiers, strings and
//! numbers, and the internal-error diagnostic for a broken grammar
//! guarantee.

use pest::iterators::{Pair, Pairs};

use crate::ast::Ident;
use crate::diagnostic::{Diagnostic, Result};
use crate::not_a::NotA;
use crate::span::Span;

use super::grammar::Rule;

/// The children of a pair, taken in order.
pub(super) struct Children<'i> {
    span: Span,
    pub(super) inner: std::iter::Peekable<Pairs<'i, Rule>>,
}

impl<'i> Children<'i> {
    pub(super) fn of(pair: Pair<'i, Rule>) -> Self {
        Children {
            span: pair.as_span().into(),
            inner: pair.into_inner().peekable(),
        }
    }

    /// The next child, which the grammar says is a `rule`.
    pub(super) fn expect(&mut self, rule: Rule) -> Result<Pair<'i, Rule>> {
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
    pub(super) fn optional(&mut self, rule: Rule) -> Option<Pair<'i, Rule>> {
        if self.inner.peek().map(|p| p.as_rule()) == Some(rule) {
            self.inner.next()
        } else {
            None
        }
    }

    pub(super) fn next(&mut self) -> Option<Pair<'i, Rule>> {
        self.inner.next()
    }
}

pub(super) fn internal(span: Span, what: &str) -> Diagnostic {
    Diagnostic::new(format!("internal parser error: {what}"), span)
        .help("this is a bug in squall; please report it with the file that caused it")
}

pub(super) fn ident(pair: Pair<'_, Rule>) -> Ident {
    Ident {
        name: pair.as_str().to_string(),
        span: pair.as_span().into(),
    }
}

pub(super) fn string(pair: Pair<'_, Rule>) -> String {
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

pub(super) fn number(pair: &Pair<'_, Rule>) -> Result<f64> {
    let text: String = pair.as_str().chars().filter(|c| *c != '_').collect();
    let n = text
        .parse::<f64>()
        .map_err(|_| NotA::new(pair.as_str(), "a number").at(pair.as_span().into()))?;
    // Past about 1.8e308 a literal reads as infinity, which every later
    // stage would print as `inf` (or `null` in JSON) and compare as larger
    // than anything: refuse it here, where its place is known.
    if !n.is_finite() {
        return Err(too_large(pair.as_span().into(), pair.as_str()));
    }
    Ok(n)
}

/// A number literal (or a size in bytes) too large to compute with.
pub(crate) fn too_large(span: Span, text: &str) -> Diagnostic {
    let shown = if text.chars().count() > 24 {
        let head: String = text.chars().take(12).collect();
        format!(
            "{head}... ({} digits)",
            text.chars().filter(char::is_ascii_digit).count()
        )
    } else {
        text.to_string()
    };
    Diagnostic::new(format!("the number `{shown}` is too large"), span)
        .label("too large")
        .help("numbers up to about 1.8e308 can be computed with; write a smaller one")
}

/// The length of `text` up to the end of its last token: trailing blanks
/// and `#` comments left out (a `#` inside a string is not a comment).
pub(super) fn code_len(text: &str) -> usize {
    let (mut end, mut comment, mut quoted, mut escaped) = (0, false, false, false);
    for (i, ch) in text.char_indices() {
        if comment {
            comment = ch != '\n';
            continue;
        }
        if quoted {
            match (escaped, ch) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => quoted = false,
                _ => {}
            }
            end = i + ch.len_utf8();
            continue;
        }
        match ch {
            '#' => comment = true,
            '"' => {
                quoted = true;
                end = i + 1;
            }
            c if c.is_whitespace() => {}
            c => end = i + c.len_utf8(),
        }
    }
    end
}
