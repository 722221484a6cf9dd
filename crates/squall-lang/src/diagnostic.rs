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
        self.list
            .iter()
            .map(|d| Located {
                diagnostic: d.clone(),
                source: NamedSource::new(self.name.clone(), self.source.clone()),
                name: self.name.clone(),
                text: self.source.clone(),
            })
            .collect()
    }

    /// Plain one-line-per-problem text: `file:line:col: message`.
    pub fn to_plain(&self) -> String {
        let mut out = String::new();
        for d in &self.list {
            let (line, col) = d.span.line_col(&self.source);
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
        self.diagnostic
            .help
            .as_ref()
            .map(|h| Box::new(h.clone()) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
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

/// The closest of `candidates` to `name`, if one is close enough to be a
/// likely misspelling.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(name, c);
        let limit = (name.chars().count().max(c.chars().count()) / 3).max(1);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
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
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows: two back (for swaps), one back, and the current one.
    let mut prev2: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 0..a.len() {
        cur[0] = i + 1;
        for j in 0..b.len() {
            let cost = usize::from(a[i] != b[j]);
            let mut d = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
            if i > 0 && j > 0 && a[i] == b[j - 1] && a[i - 1] == b[j] {
                d = d.min(prev2[j - 1] + 1);
            }
            cur[j + 1] = d;
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
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
    fn line_and_column() {
        let src = "ab\ncd\nef";
        assert_eq!(Span::new(0, 1).line_col(src), (1, 1));
        assert_eq!(Span::new(4, 5).line_col(src), (2, 2));
        assert_eq!(Span::new(6, 7).line_col(src), (3, 1));
    }
}
