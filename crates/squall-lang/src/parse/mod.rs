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
//!
//! The parser is split by construct: `items` (the scenario and its top-level
//! items, `expect` checks and variant items), `blocks` (retry, breaker,
//! backoff, request, operation, response and route blocks), `report` (report
//! items, format specs and table axes), `values` (values, ranges and
//! expressions with the Pratt parser) and `pest_errors` (pest's errors turned
//! into diagnostics, with a human name for every rule). The formatter
//! ([`crate::format`]) mirrors this split in the other direction.

mod blocks;
mod items;
mod pest_errors;
mod report;
mod sending;
mod timed;
mod values;

use pest::iterators::{Pair, Pairs};
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
use items::parse_scenario;
use pest_errors::from_pest;
use report::parse_format_spec;
use values::{parse_expr, parse_pvalue};

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
        .ok_or_else(|| internal(Span::DETACHED, "empty parse"))?;
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
        .ok_or_else(|| internal(Span::DETACHED, "empty parse"))?;
    let mut c = Children::of(top);
    let value = c
        .next()
        .ok_or_else(|| internal(Span::DETACHED, "empty value"))?;
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
        .ok_or_else(|| internal(Span::DETACHED, "empty parse"))?;
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
    let n = text.parse::<f64>().map_err(|_| {
        Diagnostic::new(
            format!("`{}` is not a number", pair.as_str()),
            pair.as_span().into(),
        )
    })?;
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
