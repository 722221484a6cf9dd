//! Statuses that stand for errors: `limit … status 429`, `errors 30% as
//! 503`, a fault's `fail 503`. A success status (2xx) there is accepted by
//! the grammar, and then the engine would count the 200 as a failure: it is
//! refused, at the code.

use crate::ast::{ResponseAst, Timed, TimedPart};
use crate::diagnostic::Diagnostic;
use crate::span::Span;

use super::Validator;

/// True for a status that means success (HTTP 2xx), as the engine's
/// outcome classification reads it.
pub(crate) fn is_success(code: u32) -> bool {
    (200..=299).contains(&code)
}

impl Validator {
    /// A setting that answers with an error status (`limit`, `errors`):
    /// its code must not be a success.
    pub(super) fn check_error_status(&mut self, t: &Timed) {
        if !matches!(t.key.name.as_str(), "limit" | "errors" | "optimistic") {
            return;
        }
        for p in &t.parts {
            if let TimedPart::Code(code, span) = p {
                self.refuse_success(*code, *span, &t.key.name);
            }
        }
    }

    /// A fault's `fail STATUS`: an error, never a success.
    pub(super) fn check_fail_status(&mut self, r: &ResponseAst) {
        if let ResponseAst::Status { code, span, .. } = r {
            if let Some(c) = crate::date::parse_status(code) {
                self.refuse_success(c, *span, "fail");
            }
        }
    }

    fn refuse_success(&mut self, code: u32, span: Span, keyword: &str) {
        if is_success(code) {
            let example = match keyword {
                "limit" => "`status 429`",
                "errors" => "`as 503`",
                "optimistic" => "`conflict 409`",
                _ => "`fail 503`",
            };
            self.err(
                Diagnostic::new(
                    format!(
                        "`{keyword}` answers with an error, and {code} is a success status (2xx): the call would count as failed with a success code"
                    ),
                    span,
                )
                .label("a success status")
                .help(format!("give an error status, e.g. {example}")),
            );
        }
    }
}
