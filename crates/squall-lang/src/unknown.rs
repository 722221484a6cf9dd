//! The "unknown name" family of diagnostics: one kind, one message builder.
//!
//! Wherever a name is looked up (a node, a source, a window, a variant, a
//! param, a backoff, a generator, a fault, a policy, a sender's setting, a
//! word of a fixed set like a clock), a name that names nothing is described
//! with an [`Unknown`] and turned into a diagnostic with [`Unknown::at`],
//! which is handed the names that do exist and computes the "did you mean"
//! suggestion itself. The wording of each case is the one the diagnostics
//! tests pin; like [`crate::twice::Twice`], the kind keeps the sentence in
//! one place, so a call site says what is unknown, not how to word it.
//!
//! A name given where there is no span (a command-line argument, a keyword
//! of the Python package) is worded by the same kind as one line,
//! [`Unknown::plain`], with the known names listed.

use crate::diagnostic::{suggest, Diagnostic};
use crate::span::Span;

/// A name that names nothing of its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unknown<'a> {
    /// What kind of thing the name should name (`node`, `window`,
    /// `degradation policy`, `setting`).
    kind: &'a str,
    /// The name as written, without its sigil.
    name: &'a str,
    /// Written before the name and before a suggestion: `$` for a param
    /// referenced in a value or an expression.
    sigil: &'static str,
    /// Where it was looked up, said after the name (`in a sender`).
    within: Option<String>,
    /// The label under the name; `no KIND of this name` unless set.
    label: Option<String>,
    /// The help when no known name is close.
    otherwise: Otherwise,
}

/// The help an [`Unknown`] gives when no known name is close to it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Otherwise {
    /// None.
    Nothing,
    /// This help.
    Help(String),
    /// This help, but only when no name of the kind exists at all (`declare
    /// it: ...`).
    WhenNoneExists(String),
}

impl<'a> Unknown<'a> {
    /// An unknown `name` of `kind`.
    pub fn new(kind: &'a str, name: &'a str) -> Self {
        Unknown {
            kind,
            name,
            sigil: "",
            within: None,
            label: None,
            otherwise: Otherwise::Nothing,
        }
    }

    /// A param referenced as `$name`.
    pub fn param_ref(name: &'a str) -> Self {
        Unknown {
            sigil: "$",
            ..Unknown::new("param", name)
        }
    }

    /// Names where it was looked up, after the name: `in a sender`.
    pub fn within(mut self, place: impl Into<String>) -> Self {
        self.within = Some(place.into());
        self
    }

    /// Sets the label under the name (the default is `no KIND of this name`).
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// The help to give when no known name is close.
    pub fn otherwise(mut self, help: impl Into<String>) -> Self {
        self.otherwise = Otherwise::Help(help.into());
        self
    }

    /// The help to give when no name of the kind exists at all.
    pub fn otherwise_when_none(mut self, help: impl Into<String>) -> Self {
        self.otherwise = Otherwise::WhenNoneExists(help.into());
        self
    }

    /// The message: `unknown KIND `NAME``, and where it was looked up.
    pub fn message(&self) -> String {
        let Unknown {
            kind, sigil, name, ..
        } = self;
        match &self.within {
            Some(place) => format!("unknown {kind} `{sigil}{name}` {place}"),
            None => format!("unknown {kind} `{sigil}{name}`"),
        }
    }

    /// The diagnostic at `span`, with "did you mean" help when one of the
    /// `known` names is close to it.
    pub fn at<'k>(self, span: Span, known: impl IntoIterator<Item = &'k str>) -> Diagnostic {
        let mut any = false;
        let close = suggest(self.name, known.into_iter().inspect(|_| any = true));
        let help = match (close, &self.otherwise) {
            (Some(s), _) => Some(format!("did you mean `{}{s}`?", self.sigil)),
            (None, Otherwise::Help(h)) => Some(h.clone()),
            (None, Otherwise::WhenNoneExists(h)) if !any => Some(h.clone()),
            (None, _) => None,
        };
        let label = match &self.label {
            Some(l) => l.clone(),
            None => format!("no {} of this name", self.kind),
        };
        Diagnostic::new(self.message(), span)
            .label(label)
            .maybe_help(help)
    }

    /// The refusal as one line, for a name given where there is no span
    /// (a command-line argument): the message, the help [`Unknown::at`]
    /// gives after a semicolon, then the names that do exist:
    /// ``unknown param `atempts`; did you mean `attempts`? (params:
    /// attempts, spacing)``.
    pub fn plain(&self, known: &[&str]) -> String {
        let d = self.clone().at(Span::new(0, 0), known.iter().copied());
        let mut line = d.message;
        if let Some(help) = d.help {
            line.push_str("; ");
            line.push_str(&help);
        }
        let list = if known.is_empty() {
            "none".to_string()
        } else {
            known.join(", ")
        };
        format!("{line} ({}s: {list})", self.kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wording of each form, as the call sites used to write it by
    /// hand (and the diagnostics tests pin).
    #[test]
    fn each_form_words_the_message_label_and_help() {
        let span = Span::new(0, 4);
        let d = Unknown::new("window", "durng").at(span, ["during", "after"]);
        assert_eq!(d.message, "unknown window `durng`");
        assert_eq!(d.label, "no window of this name");
        assert_eq!(d.help.as_deref(), Some("did you mean `during`?"));
        // Nothing close, nothing to say instead: no help.
        let d = Unknown::new("window", "zzz").at(span, ["during"]);
        assert_eq!(d.help, None);
        // A param reference keeps its `$` in the name and the suggestion.
        let d = Unknown::param_ref("rat")
            .otherwise("declare it: `param rat = ...`")
            .at(span, ["rate"]);
        assert_eq!(d.message, "unknown param `$rat`");
        assert_eq!(d.help.as_deref(), Some("did you mean `$rate`?"));
        let d = Unknown::param_ref("q")
            .otherwise("declare it: `param q = ...`")
            .at(span, ["rate"]);
        assert_eq!(d.help.as_deref(), Some("declare it: `param q = ...`"));
        // "Declare it" only when none of the kind exists.
        let none = Unknown::new("backoff", "b").otherwise_when_none("declare it");
        assert_eq!(
            none.clone().at(span, []).help.as_deref(),
            Some("declare it")
        );
        assert_eq!(none.at(span, ["zzzzzz"]).help, None);
        let d = Unknown::new("setting", "rat")
            .within("in a sender")
            .label("not a setting here")
            .at(span, ["rate"]);
        assert_eq!(d.message, "unknown setting `rat` in a sender");
        assert_eq!(d.label, "not a setting here");
    }

    /// The one-line form says what the located one says, and lists the
    /// names that exist (hand-worded: the command line's wording before
    /// the kind, with `unknown` as the language says it).
    #[test]
    fn the_plain_form_is_one_line_with_the_known_names() {
        let line = Unknown::new("param", "atempts").plain(&["attempts", "spacing"]);
        assert_eq!(
            line,
            "unknown param `atempts`; did you mean `attempts`? (params: attempts, spacing)"
        );
        let line = Unknown::new("variant", "zzz").plain(&[]);
        assert_eq!(line, "unknown variant `zzz` (variants: none)");
    }
}
