//! Errors as plain data, rendered with miette only at the edge.
//!
//! Every stage of `squall-lang` reports problems as [`Diagnostic`] values: a
//! message, the span it is about, a short label for that span and an optional
//! help line. [`Diagnostics`] carries them together with the file name and
//! text, and implements [`miette::Diagnostic`] so the CLI (or a snapshot test)
//! can render them with line, column and a pointer at the offending text.

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use miette::{LabeledSpan, NamedSource, SourceCode};
use serde::Serialize;

use crate::span::Span;

/// One problem found in a scenario.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    /// What is wrong, lowercase, names in backticks.
    pub message: String,
    /// Where.
    pub span: Span,
    /// A short label printed under the span.
    pub label: String,
    /// How to fix it, when there is something useful to say.
    pub help: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with a message and a span; the label defaults to "here".
    pub fn new(message: impl Into<String>, span: Span) -> Self {
        Diagnostic {
            message: message.into(),
            span,
            label: "here".into(),
            help: None,
        }
    }

    /// Sets the label.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// Sets the help line.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Adds a help line only when `help` is some.
    pub fn maybe_help(mut self, help: Option<String>) -> Self {
        if help.is_some() {
            self.help = help;
        }
        self
    }
}

/// Result type of the language stages.
pub type Result<T, E = Diagnostic> = std::result::Result<T, E>;

/// The diagnostics of one file, with the file's name and text for rendering.
#[derive(Debug, Clone)]
pub struct Diagnostics {
    /// The file name shown in the rendering.
    pub name: String,
    /// The whole file text.
    pub source: Arc<str>,
    /// The problems, in the order found.
    pub list: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Wraps a list of problems found in `source`.
    pub fn new(
        name: impl Into<String>,
        source: impl Into<Arc<str>>,
        list: Vec<Diagnostic>,
    ) -> Self {
        Diagnostics {
            name: name.into(),
            source: source.into(),
            list,
        }
    }

    /// One renderable diagnostic per problem.
    pub fn located(&self) -> Vec<Located> {
        self.located_upto(usize::MAX)
    }

    /// The first `limit` problems, renderable. Rendering one reads the file
    /// up to its span, so a caller that prints diagnostics caps how many
    /// (the work stays linear in the file, however many problems it has).
    pub fn located_upto(&self, limit: usize) -> Vec<Located> {
        self.list
            .iter()
            .take(limit)
            .map(|d| Located {
                diagnostic: d.clone(),
                source: NamedSource::new(self.name.clone(), self.source.clone()),
                name: self.name.clone(),
                text: self.source.clone(),
                snippet: fits_snippet(&self.source, d.span),
            })
            .collect()
    }

    /// Plain one-line-per-problem text: `file:line:col: message`.
    pub fn to_plain(&self) -> String {
        let mut out = String::new();
        let mut cursor = Cursor::default();
        for d in &self.list {
            let (line, col) = cursor.line_col(&self.source, d.span.start);
            out.push_str(&format!(
                "{}:{}:{}: error: {}\n",
                self.name, line, col, d.message
            ));
            if let Some(h) = &d.help {
                out.push_str(&format!("  help: {h}\n"));
            }
        }
        out
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_plain())
    }
}

impl std::error::Error for Diagnostics {}

/// One diagnostic bound to its file, ready for miette.
#[derive(Debug)]
pub struct Located {
    /// The problem.
    pub diagnostic: Diagnostic,
    source: NamedSource<Arc<str>>,
    name: String,
    text: Arc<str>,
    /// False when the lines the span touches are too wide to show: then the
    /// rendering names the position but quotes no source.
    snippet: bool,
}

impl Located {
    /// `file:line:col` of the problem.
    pub fn position(&self) -> String {
        let (line, col) = self.diagnostic.span.line_col(&self.text);
        format!("{}:{}:{}", self.name, line, col)
    }
}

impl fmt::Display for Located {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.diagnostic.message)
    }
}

impl std::error::Error for Located {}

impl miette::Diagnostic for Located {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.position()))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        let help = self.diagnostic.help.clone();
        let help = if self.snippet {
            help
        } else {
            let note = format!("({}: the line is too long to quote)", self.diagnostic.label);
            Some(help.map_or(note.clone(), |h| format!("{h}\n{note}")))
        };
        help.map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        if !self.snippet {
            return None;
        }
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if !self.snippet {
            return None;
        }
        let d = &self.diagnostic;
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(
            Some(d.label.clone()),
            d.span,
        ))))
    }
}

/// Drops repeated diagnostics (same span and message) and sorts the rest by
/// position.
pub(crate) fn dedup(list: &mut Vec<Diagnostic>) {
    let mut seen = HashSet::new();
    list.retain(|d| seen.insert((d.span.start, d.span.end, d.message.clone())));
    list.sort_by_key(|d| d.span.start);
}

/// The widest source line (in bytes) a rendering quotes. miette pads its
/// pointer line to the column, and a pad past 65 535 panics; a line this
/// wide is unreadable anyway, so its diagnostics name the position only.
const SNIPPET_WIDTH: usize = 4096;

/// True when every line a rendering of `span` quotes (the span's lines and
/// one line of context each side) is at most [`SNIPPET_WIDTH`] bytes wide.
fn fits_snippet(source: &str, span: Span) -> bool {
    let bytes = source.as_bytes();
    let start = span.start.min(bytes.len());
    let end = span.end.min(bytes.len()).max(start);
    let line_start = |at: usize| {
        bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1)
    };
    let line_end = |at: usize| {
        bytes[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| at + i)
    };
    let mut from = line_start(start);
    if from > 0 {
        from = line_start(from - 1);
    }
    let mut to = line_end(end);
    if to < bytes.len() {
        to = line_end(to + 1);
    }
    bytes[from..to]
        .split(|&b| b == b'\n')
        .all(|line| line.len() <= SNIPPET_WIDTH)
}

/// Line and column of increasing positions, each found from the last: the
/// positions of a sorted list cost one pass over the file together.
#[derive(Default)]
struct Cursor {
    at: usize,
    line: usize,
    col: usize,
}

impl Cursor {
    /// 1-based line and column (in characters) of byte `pos` of `source`.
    fn line_col(&mut self, source: &str, pos: usize) -> (usize, usize) {
        let mut pos = pos.min(source.len());
        while !source.is_char_boundary(pos) {
            pos -= 1;
        }
        if pos < self.at {
            *self = Cursor::default();
        }
        for c in source[self.at..pos].chars() {
            if c == '\n' {
                self.line += 1;
                self.col = 0;
            } else {
                self.col += 1;
            }
        }
        self.at = pos;
        (self.line + 1, self.col + 1)
    }
}

/// Names longer than this (in characters) get no suggestion: no identifier
/// a person types is that long, and comparing costs the product of lengths.
const SUGGEST_MAX_LEN: usize = 64;

/// The most work (characters read and edit-table cells filled) one
/// suggestion may take; candidates past it are not compared. It bounds the
/// cost of a file with thousands of unknown names among thousands of known
/// ones to a constant per problem.
const SUGGEST_BUDGET: usize = 1 << 14;

/// The closest of `candidates` to `name`, if one is close enough to be a
/// likely misspelling.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    suggest_counted(name, candidates).0
}

/// [`suggest`], and the work it took (bounded by [`SUGGEST_BUDGET`]).
fn suggest_counted<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> (Option<&'a str>, usize) {
    // A character is at most four bytes: a byte length past this is too long.
    let too_long = |s: &str| s.len() > 4 * SUGGEST_MAX_LEN;
    if too_long(name) || name.chars().count() > SUGGEST_MAX_LEN {
        return (None, 0);
    }
    let a: Vec<char> = name.chars().collect();
    let mut rows = Rows::default();
    let mut b: Vec<char> = Vec::new();
    let mut work = 0;
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let read = 1 + c.len().min(4 * SUGGEST_MAX_LEN);
        if work + read > SUGGEST_BUDGET {
            break;
        }
        work += read;
        if too_long(c) {
            continue;
        }
        b.clear();
        b.extend(c.chars());
        if b.len() > SUGGEST_MAX_LEN {
            continue;
        }
        let limit = (a.len().max(b.len()) / 3).max(1);
        // The distance is at least the difference in length.
        if a.len().abs_diff(b.len()) > limit {
            continue;
        }
        if work + a.len() * b.len() > SUGGEST_BUDGET {
            break;
        }
        // Only a distance within the limit and better than the best so far
        // matters: the table stops as soon as no cell can reach it.
        let max = best.map_or(limit, |(bd, _)| bd.saturating_sub(1));
        let (d, cells) = rows.distance(&a, &b, max);
        work += cells;
        if let Some(d) = d {
            best = Some((d, c));
        }
    }
    (best.map(|(_, c)| c), work)
}

/// A `did you mean` help line for `name` among `candidates`.
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    suggest(name, candidates).map(|s| format!("did you mean `{s}`?"))
}

/// Edit distance over characters, counting the swap of two neighbours as
/// one edit (optimal string alignment): `egde` is one edit from `edge`.
#[cfg(test)]
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let (d, _) = Rows::default().distance(&a, &b, usize::MAX);
    d.unwrap_or(usize::MAX)
}

/// The three rows of the edit table, kept between comparisons so comparing
/// many candidates allocates once.
#[derive(Default)]
struct Rows {
    /// Two rows back (for swaps), one back, and the current one.
    prev2: Vec<usize>,
    prev: Vec<usize>,
    cur: Vec<usize>,
}

impl Rows {
    /// The distance of `a` and `b` when it is at most `max`, and the cells
    /// filled to find out. The smallest cell of a row never shrinks from one
    /// row to the next, so a row whose cells all exceed `max` ends the search.
    fn distance(&mut self, a: &[char], b: &[char], max: usize) -> (Option<usize>, usize) {
        let Rows { prev2, prev, cur } = self;
        prev2.clear();
        prev2.resize(b.len() + 1, 0);
        prev.clear();
        prev.extend(0..=b.len());
        cur.clear();
        cur.resize(b.len() + 1, 0);
        let mut cells = 0;
        for i in 0..a.len() {
            cur[0] = i + 1;
            let mut row_min = cur[0];
            for j in 0..b.len() {
                let cost = usize::from(a[i] != b[j]);
                let mut d = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
                if i > 0 && j > 0 && a[i] == b[j - 1] && a[i - 1] == b[j] {
                    d = d.min(prev2[j - 1] + 1);
                }
                cur[j + 1] = d;
                row_min = row_min.min(d);
            }
            cells += b.len();
            std::mem::swap(prev2, prev);
            std::mem::swap(prev, cur);
            if row_min > max {
                return (None, cells);
            }
        }
        let d = prev[b.len()];
        ((d <= max).then_some(d), cells)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(
            suggest("wroker", ["edge", "api", "worker", "db"]),
            Some("worker")
        );
        assert_eq!(suggest("dbb", ["edge", "api", "worker", "db"]), Some("db"));
        assert_eq!(suggest("zzzzzz", ["edge", "api", "worker", "db"]), None);
        // A swap of two neighbours is one edit.
        assert_eq!(
            suggest("egde", ["edge", "api", "worker", "db"]),
            Some("edge")
        );
        assert_eq!(suggest("bd", ["edge", "api", "worker", "db"]), Some("db"));
        assert_eq!(suggest("cache", ["edge", "api", "worker", "db"]), None);
        assert_eq!(
            suggest("strom", ["grew", "storm", "no_retries"]),
            Some("storm")
        );
    }

    #[test]
    fn distances() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("wroker", "worker"), 1);
        assert_eq!(edit_distance("ab", "ba"), 1);
        assert_eq!(edit_distance("ca", "abc"), 3);
        assert_eq!(edit_distance("é", "e"), 1);
    }

    #[test]
    fn a_long_misspelt_name_costs_bounded_work() {
        // 100 000 characters, one off from a known name of the same length:
        // before, a full 10^10-cell edit table (12-43 s).
        let long = "a".repeat(100_000);
        let typo = format!("b{}", &long[1..]);
        let (hint, work) = suggest_counted(&typo, [long.as_str(), "edge"]);
        assert_eq!(hint, None);
        assert!(work <= SUGGEST_BUDGET, "{work}");
        // A long candidate costs no more than its capped length to skip.
        let (hint, work) = suggest_counted("egde", [long.as_str(), "edge"]);
        assert_eq!(hint, Some("edge"));
        assert!(work < 1_000, "{work}");
    }

    #[test]
    fn a_bounded_distance_agrees_with_the_full_one() {
        let words = [
            "", "a", "ab", "ba", "abc", "acb", "edge", "egde", "worker", "wroker", "db",
        ];
        let chars = |s: &str| s.chars().collect::<Vec<char>>();
        for a in words {
            for b in words {
                let full = edit_distance(a, b);
                for max in 0..5 {
                    let (d, _) = Rows::default().distance(&chars(a), &chars(b), max);
                    assert_eq!(d, (full <= max).then_some(full), "{a} {b} {max}");
                }
            }
        }
    }

    #[test]
    fn many_candidates_cost_bounded_work() {
        let names: Vec<String> = (0..100_000).map(|i| format!("node{i}")).collect();
        let (hint, work) = suggest_counted("nod3", names.iter().map(String::as_str));
        assert_eq!(hint, Some("node3"));
        assert!(work <= SUGGEST_BUDGET, "{work}");
    }

    #[test]
    fn lines_too_wide_to_quote_are_not_quoted() {
        let wide = format!("a\n{}x\nb", " ".repeat(70_000));
        let at = wide.find('x').unwrap_or(0);
        assert!(!fits_snippet(&wide, Span::new(at, at + 1)));
        // The line before the wide one is quoted with it as context: not quoted.
        assert!(!fits_snippet(&wide, Span::new(0, 1)));
        let narrow = "a\nbb\nc\n";
        assert!(fits_snippet(narrow, Span::new(2, 3)));
        assert!(fits_snippet(narrow, Span::new(100, 100)));
    }

    #[test]
    fn the_cursor_agrees_with_line_col() {
        let src = "ab\ncé\n\nf";
        let mut cursor = Cursor::default();
        for pos in [0, 1, 3, 4, 6, 7, 8, 9, 1, 100] {
            assert_eq!(
                cursor.line_col(src, pos),
                Span::new(pos, pos).line_col(src),
                "{pos}"
            );
        }
    }

    #[test]
    fn line_and_column() {
        let src = "ab\ncd\nef";
        assert_eq!(Span::new(0, 1).line_col(src), (1, 1));
        assert_eq!(Span::new(4, 5).line_col(src), (2, 2));
        assert_eq!(Span::new(6, 7).line_col(src), (3, 1));
    }
}
