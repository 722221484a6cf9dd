//! [`Refusal`]: a run the engine will not start, located at the declaration
//! that causes it.
//!
//! The engine's builder refuses a model past its limits (a run too long to
//! count, a source sending too many requests, ...); its [`SimError`] names
//! no place in the file. [`Refusal::locate`] finds one from the scenario's
//! declarations: the `run` for a run's length, the `source` (its first
//! `rate`) for a source's requests, and the `sweep` (its first value) when
//! only a sweep's point is refused. [`crate::RunPlan::refusals`] reports
//! each distinct refusal once, however many runs share it.

use squall_engine::SimError;
use squall_lang::{RunKey, Scenario, Span};

/// A run the engine refuses, with where in the file it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The first run refused this way.
    pub key: RunKey,
    /// How many runs are refused this way.
    pub runs: usize,
    /// Why.
    pub error: SimError,
    /// The file.
    pub file: String,
    /// 1-based line and column of the declaration that causes it (`None`:
    /// no declaration to point at).
    pub at: Option<(usize, usize)>,
}

impl Refusal {
    /// The refusal of run `key` of `s` with `error`, located.
    pub fn locate(s: &Scenario, key: RunKey, error: SimError) -> Refusal {
        let at = span(s, key, &error).map(|sp| sp.line_col(&s.source));
        Refusal {
            key,
            runs: 1,
            error,
            file: s.file.clone(),
            at,
        }
    }

    /// `file:line:col` (or `file` alone).
    pub fn place(&self) -> String {
        match self.at {
            Some((line, col)) => format!("{}:{line}:{col}", self.file),
            None => self.file.clone(),
        }
    }
}

/// The span of the declaration behind `error` in run `key`.
fn span(s: &Scenario, key: RunKey, error: &SimError) -> Option<Span> {
    let run = s
        .run_range
        .as_ref()
        .map(|r| r.span)
        .or(s.run.as_ref().map(|v| v.span));
    let sweep = match key {
        RunKey::Point(i, _) | RunKey::Cross(_, i, _) => s.sweeps[i]
            .axes
            .first()
            .and_then(|(_, values)| values.first())
            .map(|v| v.span),
        RunKey::Variant(_) => None,
    };
    let source = |name: &str| {
        s.sources
            .iter()
            .find(|src| src.name == name)
            .and_then(|src| src.rates.first())
            .map(|r| r.value.span)
    };
    let sender = |names: &[String]| {
        s.senders
            .iter()
            .find(|b| b.kind == squall_lang::ast::SendKind::Sender && names.contains(&b.name.name))
            .map(|b| b.name.span)
    };
    match error {
        SimError::TooLong { .. } | SimError::TooManyRecords { .. } => sweep.or(run),
        SimError::SendersOverBudget { senders, .. } => sweep.or_else(|| sender(senders)).or(run),
        SimError::TooManyRequests { name, .. }
        | SimError::RateTooLarge { name, .. }
        | SimError::EstimateOverBudget { name, .. } => sweep.or_else(|| source(name)).or(run),
        _ => sweep.or(run),
    }
}
