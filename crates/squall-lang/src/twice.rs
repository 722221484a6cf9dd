//! The "given twice" family of diagnostics: one kind, one message builder.
//!
//! A file may say many things only once: a name per kind, a `clock`, a
//! `retry` block per service, an `on` per fault, a setting per block. Every
//! place that finds a second one describes it with a [`Twice`] and turns it
//! into a diagnostic with [`Twice::at`], pointing at the second occurrence.
//! The wording of each case is the one the diagnostics tests pin; the kind
//! keeps it in one place, so a new case is a new variant here, not a new
//! sentence at a call site (like just's `CompileErrorKind`).

use crate::diagnostic::Diagnostic;
use crate::span::Span;

/// What was given twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Twice<'a> {
    /// A declared name: `param x`, `window w`, `source s`, a field, a route.
    Declared {
        /// The kind of thing (`param`, `window`, `field`, ...).
        kind: &'a str,
        /// Its name.
        name: &'a str,
    },
    /// A scenario-wide setting written as a keyword: `run`, `warmup`,
    /// `epoch`, `seed`.
    Setting {
        /// The keyword.
        keyword: &'a str,
    },
    /// The scenario's `clock`.
    Clock,
    /// A service named twice in one `service a, b { ... }` line.
    InServiceLine {
        /// The service.
        service: &'a str,
    },
    /// A service's `capacity`.
    ServiceCapacity {
        /// The service.
        service: &'a str,
    },
    /// A block a node has at most one of: `retry`, `response`, `endpoint`.
    Block {
        /// The node.
        owner: &'a str,
        /// The block's keyword.
        block: &'a str,
    },
    /// A node's `breaker`.
    Breaker {
        /// The node.
        owner: &'a str,
    },
    /// A keyword a fault says once: `on`, `during`.
    FaultSays {
        /// The fault.
        fault: &'a str,
        /// The keyword.
        keyword: &'a str,
    },
    /// A fault's `capacity`.
    FaultCapacity {
        /// The fault.
        fault: &'a str,
    },
    /// A source's base rate (a `rate` without `during`).
    BaseRate {
        /// The source.
        source: &'a str,
    },
    /// A source's `enters`.
    Enters,
    /// A param that is two axes of one sweep.
    SweepAxis {
        /// The param.
        param: &'a str,
    },
    /// A setting inside a block: `attempts` in a retry policy, `marker` in
    /// a `response`, `entries` in a `ledger`.
    InBlock {
        /// The setting's keyword.
        setting: &'a str,
        /// The block, as the message names it (`retry policy`, `` `response` ``).
        block: &'a str,
    },
    /// A setting of a `breaker { ... }`.
    BreakerSetting,
    /// A service's setting of calls that take time: `latency`, `workers`,
    /// `queue`, `timeout`, ...
    ServiceSetting {
        /// The service.
        service: &'a str,
        /// The setting's keyword.
        setting: &'a str,
    },
    /// A keyword a source says once: `deadline`.
    SourceSays {
        /// The source.
        source: &'a str,
        /// The keyword.
        keyword: &'a str,
    },
}

impl Twice<'_> {
    /// The diagnostic's message.
    pub(crate) fn message(&self) -> String {
        match *self {
            Twice::Declared { kind, name } => format!("{kind} `{name}` is declared twice"),
            Twice::Setting { keyword } => format!("`{keyword}` is declared twice"),
            Twice::Clock => "the clock is declared twice".to_string(),
            Twice::InServiceLine { service } => {
                format!("`{service}` is named twice in one `service` line")
            }
            Twice::ServiceCapacity { service } => {
                format!("the capacity of `{service}` is given twice")
            }
            Twice::Block { owner, block } => format!("`{owner}` has two `{block}` blocks"),
            Twice::Breaker { owner } => format!("`{owner}` has two breakers"),
            Twice::FaultSays { fault, keyword } => {
                format!("fault `{fault}` says `{keyword}` twice")
            }
            Twice::FaultCapacity { fault } => format!("fault `{fault}` gives its capacity twice"),
            Twice::BaseRate { source } => format!("source `{source}` has two base rates"),
            Twice::Enters => "a source enters one node".to_string(),
            Twice::SweepAxis { param } => format!("`{param}` is swept twice"),
            Twice::InBlock { setting, block } => {
                format!("`{setting}` is given twice in one {block}")
            }
            Twice::BreakerSetting => "a breaker setting is given twice".to_string(),
            Twice::ServiceSetting { service, setting } => {
                format!("`{setting}` of `{service}` is given twice")
            }
            Twice::SourceSays { source, keyword } => {
                format!("source `{source}` says `{keyword}` twice")
            }
        }
    }

    /// The label at the second occurrence.
    pub(crate) fn label(&self) -> String {
        match *self {
            Twice::Declared { .. } => "second declaration".to_string(),
            Twice::Setting { keyword } => format!("second `{keyword}`"),
            Twice::Clock => "second `clock`".to_string(),
            Twice::InServiceLine { .. } => "second time".to_string(),
            Twice::ServiceCapacity { .. } => "second capacity".to_string(),
            Twice::Block { block, .. } => format!("second `{block}`"),
            Twice::Breaker { .. } => "second `breaker`".to_string(),
            Twice::FaultSays { keyword, .. } => format!("second `{keyword}`"),
            Twice::FaultCapacity { .. } => "second `capacity`".to_string(),
            Twice::BaseRate { .. } => "second `rate` without `during`".to_string(),
            Twice::Enters => "second `enters`".to_string(),
            Twice::SweepAxis { .. } => "second axis".to_string(),
            Twice::InBlock { setting, .. } => format!("second `{setting}`"),
            Twice::BreakerSetting => "second setting".to_string(),
            Twice::ServiceSetting { setting, .. } => format!("second `{setting}`"),
            Twice::SourceSays { keyword, .. } => format!("second `{keyword}`"),
        }
    }

    /// The diagnostic, pointing at the second occurrence.
    pub(crate) fn at(&self, span: Span) -> Diagnostic {
        Diagnostic::new(self.message(), span).label(self.label())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_says_what_was_repeated() {
        let d = Twice::Declared {
            kind: "param",
            name: "attempts",
        }
        .at(Span::DETACHED);
        assert_eq!(d.message, "param `attempts` is declared twice");
        assert_eq!(d.label, "second declaration");
        let d = Twice::InBlock {
            setting: "marker",
            block: "`response`",
        }
        .at(Span::DETACHED);
        assert_eq!(d.message, "`marker` is given twice in one `response`");
        assert_eq!(d.label, "second `marker`");
    }
}
