//! One canonical layout for scenario files: what `squall fmt` prints.
//!
//! # The layout
//!
//! * Two spaces of indentation per block; one item per line inside
//!   `scenario`, `report` and `table` blocks.
//! * `source`, `service`, `retry`, `fault` and a variant's `source` block
//!   stay on one line when they fit in [`WIDTH`] columns and hold no comment
//!   (`source users { rate $demand  enters edge }`, two spaces between
//!   properties); otherwise one property per line. `variant` and `sweep`
//!   blocks stay on one line when they hold one item and fit.
//! * Values are printed canonically: `4 rounds`, `1 round`, `200ms`,
//!   `12/round`, numbers without `_` separators or trailing zeros; a
//!   literal a double holds only approximately (`18446744073709551616`) is
//!   kept as written, since its shortest spelling would say another number.
//!   Expressions get single spaces around operators and only the
//!   parentheses their meaning needs.
//! * Inside a table: `rows`, `at`, `label`, then the columns in order; inside
//!   a sweep: its axes, then `variant`.
//! * A blank line in the source between two items is kept (several become
//!   one); none is added.
//!
//! # Comments
//!
//! Every comment is kept. A comment on a line of its own stays in front of
//! the item that follows it, at that item's indentation; a comment after
//! code stays at the end of that code's line. The formatter then checks its
//! own work: the result must parse to the same syntax tree (spans aside) and
//! carry the same comments in the same order; otherwise [`format_source`]
//! refuses with an error instead of losing anything.
//!
//! # Adding a construct
//!
//! The tree walk (`items`, `blocks`, `report`) matches every AST enum
//! exhaustively and destructures every struct field by name, so a new
//! construct or a new field is a compile error there until the formatter
//! prints it.
//!
//! ```
//! let text = "scenario \"tiny\" { run 10 rounds  chain api->db  # the chain\n}";
//! let pretty = squall_lang::format::format_source(text).expect("formats");
//! assert_eq!(pretty, "scenario \"tiny\" {\n  run 10 rounds\n  chain api -> db  # the chain\n}\n");
//! ```
//!
//! # Where things are
//!
//! The formatter mirrors the parser (`crate::parse`): `values` prints values,
//! ranges and expressions on one line; `comments` finds comments and brace
//! pairs in the source; `layout` is the tree of lines and blocks and how it
//! is rendered (one line or many, comments and blank lines in place);
//! `items` turns the scenario and its top-level items into that tree,
//! `blocks` the blocks inside them (service, source, retry, operations), and
//! `report` the report's items and tables.

mod blocks;
mod comments;
mod items;
mod layout;
mod literals;
mod report;
mod sending;
mod values;

pub use values::{
    backoff_text, expect_text, expr_text, number_text, quoted, response_text, value_text,
};

use crate::ast::ScenarioAst;
use crate::diagnostic::Diagnostic;
use crate::parse::parse_file;
use crate::span::Span;
use comments::lex;
use layout::Printer;
pub use layout::WIDTH;

/// Formats a scenario file, keeping its comments.
///
/// Fails with the parse error when the text does not parse, and with an
/// explanation when the result would lose a comment or change the meaning.
pub fn format_source(source: &str) -> Result<String, Diagnostic> {
    let ast = parse_file(source)?;
    let lexed = lex(source);
    let mut printer = Printer::new(Some(source), lexed.comments.clone(), lexed.braces);
    let tree = printer.scenario(&ast);
    printer.render(&tree);
    let out = literals::keep_written(source, &printer.finish());

    let again = parse_file(&out).map_err(|d| {
        Diagnostic::new(
            format!(
                "internal error: the formatted text does not parse ({})",
                d.message
            ),
            Span::DETACHED,
        )
        .help("this is a bug in `squall fmt`; the file was left as it is")
    })?;
    if !same_modulo_spans(&ast, &again) {
        return Err(Diagnostic::new(
            "internal error: formatting would change what the file says",
            Span::DETACHED,
        )
        .help("this is a bug in `squall fmt`; the file was left as it is"));
    }
    let before: Vec<&str> = lexed.comments.iter().map(|c| c.text.as_str()).collect();
    let after_lexed = lex(&out);
    let after: Vec<&str> = after_lexed
        .comments
        .iter()
        .map(|c| c.text.as_str())
        .collect();
    if before != after {
        let missing = lexed
            .comments
            .iter()
            .zip(after.iter().map(Some).chain(std::iter::repeat(None)))
            .find(|(c, a)| *a != Some(&c.text.as_str()))
            .map(|(c, _)| c);
        let span = missing.map_or(Span::DETACHED, |c| Span::new(c.start, c.end));
        return Err(
            Diagnostic::new("cannot keep this comment in its place", span)
                .label("this comment")
                .help("move it onto a line of its own before an item; the file was left as it is"),
        );
    }
    Ok(out)
}

/// Formats a syntax tree with no source text (no comments, no blank lines).
pub fn format_ast(ast: &ScenarioAst) -> String {
    let mut printer = Printer::new(None, Vec::new(), Vec::new());
    let tree = printer.scenario(ast);
    printer.render(&tree);
    printer.finish()
}

/// True when two syntax trees say the same thing, ignoring where it was
/// written (every span).
pub fn same_modulo_spans(a: &ScenarioAst, b: &ScenarioAst) -> bool {
    match (serde_json::to_value(a), serde_json::to_value(b)) {
        (Ok(mut x), Ok(mut y)) => {
            strip_spans(&mut x);
            strip_spans(&mut y);
            x == y
        }
        _ => false,
    }
}

/// Replaces every serialized [`Span`] (an object of exactly `start` and
/// `end`) with `null`.
fn strip_spans(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            let is_span = map.len() == 2
                && map.get("start").is_some_and(serde_json::Value::is_u64)
                && map.get("end").is_some_and(serde_json::Value::is_u64);
            if is_span {
                *v = serde_json::Value::Null;
            } else {
                map.values_mut().for_each(strip_spans);
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(strip_spans),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(s: &str) -> String {
        match format_source(s) {
            Ok(t) => t,
            Err(d) => format!("error: {}", d.message),
        }
    }

    #[test]
    fn parentheses_only_where_needed() {
        let text = "scenario \"x\" { report { measure a = (1 + 2) * 3 - (4 - 5) + -(2 ^ 3) ^ 2 / (a.b ^ (c ^ d)) } }";
        let out = fmt(text);
        assert!(
            out.contains("measure a = (1 + 2) * 3 - (4 - 5) + -(2 ^ 3) ^ 2 / a.b ^ c ^ d"),
            "{out}"
        );
    }

    #[test]
    fn comments_stay_in_place() {
        let text = "# head\n\nscenario \"x\" {   # opener\n  # before run\n  run 4 rounds # after run\n\n\n  service db {\n    # inside\n    capacity 3/round\n  }\n  # at the end\n}\n# after all\n";
        let out = fmt(text);
        assert_eq!(
            out,
            "# head\n\nscenario \"x\" {  # opener\n  # before run\n  run 4 rounds  # after run\n\n  service db {\n    # inside\n    capacity 3/round\n  }\n  # at the end\n}\n# after all\n"
        );
        assert_eq!(fmt(&out), out);
    }

    #[test]
    fn strings_with_hashes_are_not_comments() {
        let text = "scenario \"a # b\" { report { line \"x # {1}\" } }";
        let out = fmt(text);
        assert_eq!(
            out,
            "scenario \"a # b\" {\n  report {\n    line \"x # {1}\"\n  }\n}\n"
        );
    }

    #[test]
    fn values_are_canonical() {
        let text = "scenario \"x\" { run 1_000 rounds  param a = 1 round  param b = 200 ms  param c = 4 / round  param d = 2.50 }";
        let out = fmt(text);
        assert!(out.contains("run 1000 rounds\n"), "{out}");
        assert!(out.contains("param a = 1 round\n"), "{out}");
        assert!(out.contains("param b = 200ms\n"), "{out}");
        assert!(out.contains("param c = 4/round\n"), "{out}");
        assert!(out.contains("param d = 2.5\n"), "{out}");
    }

    #[test]
    fn expect_forms() {
        let text = "scenario \"x\" { expect a.b in 6.0..6.5  expect a.b == 25 rounds within 10%  expect a.b==3 within 0.1 expect a.b>=2/round }";
        let out = fmt(text);
        assert!(out.contains("  expect a.b in 6..6.5\n"), "{out}");
        assert!(
            out.contains("  expect a.b == 25 rounds within 10%\n"),
            "{out}"
        );
        assert!(out.contains("  expect a.b == 3 within 0.1\n"), "{out}");
        assert!(out.contains("  expect a.b >= 2/round\n"), "{out}");
        // An expression that starts like a rate stays an expression.
        let text = "scenario \"x\" { expect a < 100 / storm.normal  expect a < (2 / round) }";
        let out = fmt(text);
        assert!(out.contains("  expect a < 100 / storm.normal\n"), "{out}");
        assert!(out.contains("  expect a < (2 / round)\n"), "{out}");
    }

    #[test]
    fn long_blocks_break() {
        let long = "x".repeat(90);
        let text = format!("scenario \"x\" {{ source {long} {{ rate 1/round  enters a }} }}");
        let out = fmt(&text);
        assert!(
            out.contains(&format!(
                "  source {long} {{\n    rate 1/round\n    enters a\n  }}\n"
            )),
            "{out}"
        );
    }
}
