//! The "X is not a Y" family of diagnostics: one kind, one message builder.
//!
//! A word or a literal can be written where something of a given kind is
//! expected and turn out not to be one: `0x1g` is not a status code,
//! `yesterday` is not a date squall can read, `p101` is not a percentile,
//! `served` is not a rate per tick, `retry_after maybe` is not a choice.
//! Every place that finds one describes it with a [`NotA`] and turns it into
//! a diagnostic with [`NotA::at`], or with [`NotA::among`] when the valid
//! words are a list: then the help is the "did you mean" of
//! [`crate::diagnostic::suggest`], the matcher [`crate::unknown::Unknown`]
//! uses. The message is always `` `TEXT` is not a KIND ``, the label
//! `not a KIND` unless the call site says something sharper; like
//! [`crate::twice::Twice`], the kind keeps the sentence in one place.
//!
//! A value of the wrong kind for a setting (a word where a duration goes, a
//! size where a rate goes) is the same fact said of the setting rather than
//! the text: [`Takes`] words it `WHAT takes A KIND such as EXAMPLE, found
//! WHAT WAS WRITTEN`, labelled `expected A KIND`.

use crate::diagnostic::{suggest, Diagnostic};
use crate::span::Span;

/// How a date is written, for every help about one.
const DATE_FORMS: &str =
    "an HTTP date (`Wed, 14 Jan 2026 09:00:00 GMT`) or RFC 3339 (`2026-01-14T09:00:00Z`)";

/// Text written where a thing of some kind was expected, and is not one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotA<'a> {
    /// The text as written, quoted in the message.
    text: &'a str,
    /// What it should have been, with its article (`a status code`, `an
    /// HTTP status`: an article cannot be told from the letters of `HTTP`).
    kind: &'a str,
    /// Why not, said after a colon.
    because: Option<&'a str>,
    /// The label, when `not a KIND` is not the sharpest thing to say.
    label: Option<String>,
    /// How to write one.
    help: Option<String>,
}

impl<'a> NotA<'a> {
    /// `text` is not a `kind`.
    pub fn new(text: &'a str, kind: &'a str) -> Self {
        NotA {
            text,
            kind,
            because: None,
            label: None,
            help: None,
        }
    }

    /// `text` is not a status code (a decimal status or a hex code).
    pub fn status_code(text: &'a str) -> Self {
        NotA::new(text, "a status code")
            .help("write a decimal status such as `503` or a hexadecimal code such as `0x58`")
    }

    /// `text` is not a date squall can read (an `epoch`).
    pub fn date(text: &'a str) -> Self {
        NotA::new(text, "a date squall can read")
            .label("not a date")
            .help(format!("write {DATE_FORMS}"))
    }

    /// `text` is not a Retry-After squall can read: neither a delay nor a
    /// date.
    pub fn retry_after(text: &'a str) -> Self {
        NotA::new(text, "a Retry-After squall can read")
            .label("neither a delay nor a date")
            .help(format!("write a delay such as `2s`, or {DATE_FORMS}"))
    }

    /// Says why it is not one, after the message.
    pub fn because(mut self, why: &'a str) -> Self {
        self.because = Some(why);
        self
    }

    /// Sets the label.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Sets the help: how to write one.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The message: `` `TEXT` is not a KIND ``, and why.
    pub fn message(&self) -> String {
        match self.because {
            Some(why) => format!("`{}` is not {}: {why}", self.text, self.kind),
            None => format!("`{}` is not {}", self.text, self.kind),
        }
    }

    /// The refusal as one line, for a place with no span (a command-line
    /// argument, a file named on it): the message, then the help after a
    /// semicolon.
    pub fn plain(&self) -> String {
        match &self.help {
            Some(help) => format!("{}; {help}", self.message()),
            None => self.message(),
        }
    }

    /// The diagnostic at `span`.
    pub fn at(self, span: Span) -> Diagnostic {
        let message = self.message();
        let label = match self.label {
            Some(l) => l,
            None => format!("not {}", self.kind),
        };
        Diagnostic::new(message, span)
            .label(label)
            .maybe_help(self.help)
    }

    /// The diagnostic at `span`, when the valid words are `known`: a close
    /// one is suggested; otherwise the help set, if any.
    pub fn among<'k>(
        mut self,
        span: Span,
        word: &str,
        known: impl IntoIterator<Item = &'k str>,
    ) -> Diagnostic {
        if let Some(close) = suggest(word, known) {
            self.help = Some(format!("did you mean `{close}`?"));
        }
        self.at(span)
    }
}

/// A setting given a value of the wrong kind: `WHAT takes A KIND such as
/// EXAMPLE, found FOUND`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Takes<'a> {
    /// The setting, as the message starts (`` `records` ``, `a latency`).
    what: String,
    /// What it takes, with its article (`a duration`, `a plain number`).
    kind: &'a str,
    /// An example of one, as written (`` `200ms` or `2s` ``).
    example: Option<String>,
    /// What was written instead, described (`a word`, `a size`).
    found: Option<&'a str>,
}

impl<'a> Takes<'a> {
    /// `what` takes `kind`.
    pub fn new(what: impl Into<String>, kind: &'a str) -> Self {
        Takes {
            what: what.into(),
            kind,
            example: None,
            found: None,
        }
    }

    /// An example of what it takes.
    pub fn such_as(mut self, example: impl Into<String>) -> Self {
        self.example = Some(example.into());
        self
    }

    /// What was written instead.
    pub fn found(mut self, found: &'a str) -> Self {
        self.found = Some(found);
        self
    }

    /// The message.
    pub fn message(&self) -> String {
        let mut m = format!("{} takes {}", self.what, self.kind);
        if let Some(e) = &self.example {
            m.push_str(&format!(" such as {e}"));
        }
        if let Some(f) = self.found {
            m.push_str(&format!(", found {f}"));
        }
        m
    }

    /// The diagnostic at `span`, labelled `expected A KIND`.
    pub fn at(&self, span: Span) -> Diagnostic {
        Diagnostic::new(self.message(), span).label(format!("expected {}", self.kind))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wording of each form; the expected strings are what the call
    /// sites wrote by hand before (and the diagnostics tests pin).
    #[test]
    fn each_form_words_the_message_label_and_help() {
        let span = Span::new(0, 4);
        let d = NotA::status_code("0x1g").at(span);
        assert_eq!(d.message, "`0x1g` is not a status code");
        assert_eq!(d.label, "not a status code");
        assert_eq!(
            d.help.as_deref(),
            Some("write a decimal status such as `503` or a hexadecimal code such as `0x58`")
        );
        let d = NotA::date("yesterday").at(span);
        assert_eq!(d.message, "`yesterday` is not a date squall can read");
        assert_eq!(d.label, "not a date");
        assert_eq!(d.help, Some(format!("write {DATE_FORMS}")));
        let d = NotA::retry_after("soon").at(span);
        assert_eq!(d.message, "`soon` is not a Retry-After squall can read");
        assert_eq!(d.label, "neither a delay nor a date");
        assert_eq!(
            d.help,
            Some(format!("write a delay such as `2s`, or {DATE_FORMS}"))
        );
        // The kind carries its article.
        let d = NotA::new("700", "an HTTP status").at(span);
        assert_eq!(d.message, "`700` is not an HTTP status");
        assert_eq!(d.label, "not an HTTP status");
        // Among a list: a close word is suggested, else the help stands.
        let d = NotA::new("retry_after honr", "a choice")
            .label("expected `honor` or `ignore`")
            .among(span, "honr", ["honor", "ignore"]);
        assert_eq!(d.message, "`retry_after honr` is not a choice");
        assert_eq!(d.help.as_deref(), Some("did you mean `honor`?"));
        // A setting given a value of another kind.
        let d = Takes::new("a latency", "a duration")
            .such_as("`200ms` or `2s`")
            .found("a word")
            .at(span);
        assert_eq!(
            d.message,
            "a latency takes a duration such as `200ms` or `2s`, found a word"
        );
        assert_eq!(d.label, "expected a duration");
        let d = Takes::new("`records`", "a whole number").at(span);
        assert_eq!(d.message, "`records` takes a whole number");
        assert_eq!(d.label, "expected a whole number");
        let d = NotA::new("zzz", "a choice")
            .help("write `honor` or `ignore`")
            .among(span, "zzz", ["honor", "ignore"]);
        assert_eq!(d.help.as_deref(), Some("write `honor` or `ignore`"));
    }

    /// The one-line form, with a reason and a help (hand-worded: what
    /// `squall diff` said of a file that is not a report before the kind).
    #[test]
    fn the_plain_form_says_why_and_how() {
        let line = NotA::new("old.json", "a squall JSON report")
            .because("expected value at line 1 column 1")
            .help("write one with `squall run --format json`")
            .plain();
        assert_eq!(
            line,
            "`old.json` is not a squall JSON report: expected value at line 1 column 1; \
             write one with `squall run --format json`"
        );
        assert_eq!(NotA::new("x", "a date").plain(), "`x` is not a date");
    }
}
