//! Byte spans into a scenario file.
//!
//! Every syntax node carries a [`Span`]; line and column are computed only
//! when a diagnostic is rendered.

use serde::Serialize;

/// A byte range `start..end` in the source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// The span of something that is in no file: a value from the command
    /// line, an internal error before any text is read. It is the empty span
    /// at offset 0, which renders at line 1, column 1.
    pub const DETACHED: Span = Span { start: 0, end: 0 };

    /// A span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// The span covering both `self` and `other`.
    pub fn join(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    /// Length in bytes.
    pub fn len(self) -> usize {
        self.end.saturating_sub(self.start)
    }

    /// True when the span covers nothing.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// 1-based line and column of the span's start in `source`.
    pub fn line_col(self, source: &str) -> (usize, usize) {
        let mut start = self.start.min(source.len());
        while !source.is_char_boundary(start) {
            start -= 1;
        }
        let upto = &source[..start];
        let line = upto.matches('\n').count() + 1;
        let col = upto
            .rfind('\n')
            .map_or(upto.chars().count(), |i| upto[i + 1..].chars().count())
            + 1;
        (line, col)
    }
}

impl From<pest::Span<'_>> for Span {
    fn from(s: pest::Span<'_>) -> Self {
        Span::new(s.start(), s.end())
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(s: Span) -> Self {
        miette::SourceSpan::new(s.start.into(), s.len())
    }
}
