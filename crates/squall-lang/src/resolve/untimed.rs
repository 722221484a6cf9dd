//! The one refusal of a construct that needs calls that take time, in a
//! run where none does (a round model: a call and its answer happen in the
//! same instant). A limiter, a balancer that reads load, a link's latency
//! and a link fault each say why they need it; the sentence's end, and the
//! way out it offers, are the same for all.

use crate::diagnostic::Diagnostic;
use crate::span::Span;

/// `"{why}, and no call in this run takes time"` at `span`, labelled
/// `label`, with `help` (what to give the run, or another choice).
pub(super) fn refused(why: String, span: Span, label: &str, help: String) -> Diagnostic {
    Diagnostic::new(format!("{why}, and no call in this run takes time"), span)
        .label(label)
        .help(help)
}

/// The way out that fits every construct: calls that take time. On the
/// round path a call and its answer happen in the same instant.
pub(super) fn give_time() -> String {
    "give a service `latency`, `workers` or a `timeout`; on the round path a call and its answer happen in the same instant".to_string()
}
