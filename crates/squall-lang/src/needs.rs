//! The "X needs Y" family of diagnostics: one kind, one message builder.
//!
//! Many things are incomplete without something else: a retry policy without
//! `attempts`, a breaker without a `cooldown`, a sender or `per_second` under
//! `clock round`, a Retry-After date without an `epoch`, a pool of no
//! senders, a value that names no node where a node is needed. Every place
//! that finds one describes it with a [`Needs`]: who needs it and what, as a
//! [`Need`], and turns it into a diagnostic with [`Needs::at`]. The message is
//! always `WHO needs WHAT` (with `: WHY` when a reason is given), the label
//! says what is missing at the span, and the help says how to write it; like
//! [`crate::twice::Twice`] and [`crate::unknown::Unknown`], the kind keeps the
//! sentence in one place, so a call site says what is missing, not how to
//! word it.

use crate::diagnostic::Diagnostic;
use crate::span::Span;

/// What is needed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need<'a> {
    /// A setting or a block written as its keyword: `attempts`, `stale_for`,
    /// `policies [..]`. Label: no `KEY`.
    Key(&'a str),
    /// A setting or block counted as one: a `cooldown`, a `ledger`, a
    /// `window`. Label: no `KEY`.
    AKey(&'a str),
    /// At least one of something: `one` is its singular (`worker`), `many`
    /// its plural (`workers`). Label: no MANY.
    AtLeastOne {
        /// The singular, as the message says it.
        one: &'a str,
        /// The plural, as the label says it.
        many: &'a str,
    },
    /// A wall clock (`clock ms` or `clock s`), under `clock round`. Label:
    /// under `clock round`; help: how to set one.
    WallClock,
    /// The scenario's `epoch` (the time of tick 0); with `wall_clock`, a
    /// wall clock too. Help: how to write both.
    Epoch {
        /// Whether a wall clock is needed as well.
        wall_clock: bool,
    },
    /// A part of a value's path that its context does not give (`variant`,
    /// `window`, `node`), in `context` (`this table`). Label: which PART?
    Context {
        /// The missing part.
        part: &'a str,
        /// The place that gives none, as the message names it.
        context: &'a str,
    },
    /// Anything else, said as written: `0 < p50 <= p99`, `its `ttl` in
    /// rounds`. The call site gives the label.
    Words(&'a str),
}

/// Something (`who`) that lacks what it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Needs<'a> {
    /// Who needs it, as the message starts: `a retry policy`, `` `per_second` ``.
    who: &'a str,
    /// What it needs.
    need: Need<'a>,
    /// Why, said after a colon.
    because: Option<&'a str>,
    /// The label, when the need's own label does not fit.
    label: Option<String>,
    /// The help, or the part of it that says what else could be written.
    help: Option<String>,
}

impl<'a> Needs<'a> {
    /// `who` needs `need`.
    pub fn new(who: &'a str, need: Need<'a>) -> Self {
        Needs {
            who,
            need,
            because: None,
            label: None,
            help: None,
        }
    }

    /// Says why it is needed, after the message.
    pub fn because(mut self, why: &'a str) -> Self {
        self.because = Some(why);
        self
    }

    /// Sets the label (each need has its own otherwise).
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Sets the help: how to write what is missing. For a wall clock, it is
    /// the other way out, said after how to set the clock.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The message: `WHO needs WHAT`, and why.
    pub fn message(&self) -> String {
        let what = match self.need {
            Need::Key(key) => format!("`{key}`"),
            Need::AKey(key) => format!("{} `{key}`", article(key)),
            Need::AtLeastOne { one, .. } => format!("at least one {one}"),
            Need::WallClock => "a wall clock".to_string(),
            Need::Epoch { wall_clock: false } => "the scenario's `epoch`".to_string(),
            Need::Epoch { wall_clock: true } => {
                "the scenario's `epoch` and a wall clock".to_string()
            }
            Need::Context { part, context } => {
                format!("{} {part}, and {context} has none", article(part))
            }
            Need::Words(words) => words.to_string(),
        };
        match self.because {
            Some(why) => format!("{} needs {what}: {why}", self.who),
            None => format!("{} needs {what}", self.who),
        }
    }

    /// The label: what is missing, at the span.
    fn default_label(&self) -> String {
        match self.need {
            Need::Key(key) | Need::AKey(key) => format!("no `{key}`"),
            Need::AtLeastOne { many, .. } => format!("no {many}"),
            Need::WallClock => "under `clock round`".to_string(),
            Need::Epoch { wall_clock: false } => "a date, but no `epoch`".to_string(),
            Need::Epoch { wall_clock: true } => {
                "a date, but no `epoch` or no wall clock".to_string()
            }
            Need::Context { part, .. } => format!("which {part}?"),
            Need::Words(_) => "here".to_string(),
        }
    }

    /// The help: how to write what is missing.
    fn full_help(&self) -> Option<String> {
        const CLOCK: &str = "set `clock ms` or `clock s`";
        const EPOCH: &str = "add `epoch \"2026-01-14T09:00:00Z\"` (the UTC time of tick 0)";
        match (self.need, &self.help) {
            (Need::WallClock, None) => Some(CLOCK.to_string()),
            (Need::WallClock, Some(other)) => Some(format!("{CLOCK}, or {other}")),
            (Need::Epoch { wall_clock: false }, None) => Some(EPOCH.to_string()),
            (Need::Epoch { wall_clock: true }, None) => {
                Some(format!("{EPOCH} and `clock ms` or `clock s`"))
            }
            (_, help) => help.clone(),
        }
    }

    /// The diagnostic at `span`: the message, the label and the help.
    pub fn at(&self, span: Span) -> Diagnostic {
        let label = self.label.clone().unwrap_or_else(|| self.default_label());
        Diagnostic::new(self.message(), span)
            .label(label)
            .maybe_help(self.full_help())
    }

    /// The refusal as one line, for a place with no span (a command-line
    /// argument): the message, then the help after a semicolon.
    pub fn plain(&self) -> String {
        match self.full_help() {
            Some(help) => format!("{}; {help}", self.message()),
            None => self.message(),
        }
    }
}

/// `a` or `an` before a word, by its first letter: the words here are
/// lowercase keywords and nouns (`ledger`, `isolation`, `window`), never an
/// acronym, whose sound the letters do not tell.
fn article(word: &str) -> &'static str {
    match word.trim_start_matches('`').chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each need words its message, label and help the same way wherever it
    /// is used; the expected strings are the wording the call sites wrote by
    /// hand before (and the diagnostics tests pin).
    #[test]
    fn each_need_words_the_message_label_and_help() {
        let span = Span::new(0, 4);
        let d = Needs::new("a retry policy", Need::Key("attempts"))
            .help("e.g. `retry { attempts 3 }`")
            .at(span);
        assert_eq!(d.message, "a retry policy needs `attempts`");
        assert_eq!(d.label, "no `attempts`");
        assert_eq!(d.help.as_deref(), Some("e.g. `retry { attempts 3 }`"));
        let d = Needs::new("`stale_fallback`", Need::AKey("ledger"))
            .because("it serves last known values")
            .at(span);
        assert_eq!(
            d.message,
            "`stale_fallback` needs a `ledger`: it serves last known values"
        );
        assert_eq!(d.label, "no `ledger`");
        assert_eq!(d.help, None);
        let d = Needs::new(
            "a node",
            Need::AtLeastOne {
                one: "worker",
                many: "workers",
            },
        )
        .at(span);
        assert_eq!(d.message, "a node needs at least one worker");
        assert_eq!(d.label, "no workers");
        // A wall clock: the help says how to set one, then the other way out.
        let d = Needs::new("`per_second`", Need::WallClock)
            .help("write the rate per round")
            .at(span);
        assert_eq!(d.message, "`per_second` needs a wall clock");
        assert_eq!(d.label, "under `clock round`");
        assert_eq!(
            d.help.as_deref(),
            Some("set `clock ms` or `clock s`, or write the rate per round")
        );
        let d = Needs::new("a Retry-After date", Need::Epoch { wall_clock: true }).at(span);
        assert_eq!(
            d.message,
            "a Retry-After date needs the scenario's `epoch` and a wall clock"
        );
        assert_eq!(
            d.help.as_deref(),
            Some("add `epoch \"2026-01-14T09:00:00Z\"` (the UTC time of tick 0) and `clock ms` or `clock s`")
        );
        let d = Needs::new(
            "this value",
            Need::Context {
                part: "window",
                context: "this table",
            },
        )
        .at(span);
        assert_eq!(
            d.message,
            "this value needs a window, and this table has none"
        );
        assert_eq!(d.label, "which window?");
        let d = Needs::new("an `isolation` table", Need::AKey("window")).at(span);
        assert_eq!(d.message, "an `isolation` table needs a `window`");
        let d = Needs::new("a lognormal", Need::Words("0 < p50 <= p99"))
            .label("p99 below p50")
            .at(span);
        assert_eq!(d.message, "a lognormal needs 0 < p50 <= p99");
        assert_eq!(d.label, "p99 below p50");
    }

    /// The one-line form: the message, and the help after a semicolon
    /// (hand-worded: what `squall new` said before the kind, with the
    /// semicolon every one-line refusal uses).
    #[test]
    fn the_plain_form_puts_the_help_after_the_message() {
        let line = Needs::new("`squall new`", Need::Words("a name"))
            .help("e.g. `squall new checkout`")
            .plain();
        assert_eq!(
            line,
            "`squall new` needs a name; e.g. `squall new checkout`"
        );
        let line = Needs::new("a sweep", Need::Words("at least one axis")).plain();
        assert_eq!(line, "a sweep needs at least one axis");
    }
}
