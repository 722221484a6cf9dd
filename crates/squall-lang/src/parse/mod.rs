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
mod grammar;
mod items;
mod pairs;
mod pest_errors;
mod report;
mod sending;
mod timed;
mod values;

use pest::Parser as _;

use crate::ast::*;
use crate::diagnostic::{Diagnostic, Result};
use crate::span::Span;

use grammar::{Grammar, Rule};
use items::parse_scenario;
use pairs::{internal, Children};
use pest_errors::{from_pest, End};
use report::parse_format_spec;
pub use values::MAX_OPERATORS;
use values::{parse_expr, parse_pvalue};

/// Most rule calls pest may make on one input before giving up (guards
/// runaway input; pest also stops itself before the native stack runs out).
const CALL_LIMIT: usize = 5_000_000;

/// Deepest nesting of parentheses in an expression. Checked on the raw text
/// before pest runs, so that neither pest nor the recursive passes after it
/// (Pratt parsing, validation, dropping the tree) can exhaust the stack.
pub const MAX_NESTING: usize = 64;

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
