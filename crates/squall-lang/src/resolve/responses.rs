//! Responses: the answer a script step or a fault imposes, its status
//! code and its `Retry-After`.

use super::Cx;
use crate::ast::{ResponseAst, RetryAfterAst};
use crate::decl::Scenario;
use crate::diagnostic::Diagnostic;
use crate::model::{ResponseSpec, RetryAfter};
use crate::needs::{Need, Needs};
use crate::not_a::NotA;
use crate::units;

impl Scenario {
    pub(super) fn response(&self, r: &ResponseAst, cx: &mut Cx<'_>) -> Option<ResponseSpec> {
        Some(match r {
            ResponseAst::NetworkError => ResponseSpec::NetworkError,
            ResponseAst::Timeout => ResponseSpec::Timeout,
            ResponseAst::BodyError => ResponseSpec::BodyError,
            ResponseAst::Status {
                code,
                retry_after,
                span,
            } => {
                let Some(code) = crate::date::parse_status(code) else {
                    cx.errs.push(NotA::status_code(code).at(*span));
                    return None;
                };
                let retry_after = match retry_after {
                    None => None,
                    Some(RetryAfterAst::Delay(v)) => {
                        Some(RetryAfter::Delay(cx.keep(self.conv(v, cx.o, |v| {
                            units::ticks(v, self.clock, "a Retry-After delay")
                        }))?))
                    }
                    Some(RetryAfterAst::Date(text, dspan)) => {
                        let Some(at) = crate::date::parse_date(text) else {
                            cx.errs.push(NotA::retry_after(text).at(*dspan));
                            return None;
                        };
                        let (Some(epoch), Some(tick_ms)) = (self.epoch, self.clock.tick_millis())
                        else {
                            cx.errs.push(
                                Needs::new("a Retry-After date", Need::Epoch { wall_clock: true })
                                    .at(*dspan),
                            );
                            return None;
                        };
                        let ms = at - epoch;
                        if ms < 0 {
                            cx.errs.push(
                                Diagnostic::new(
                                    "this Retry-After date is before the scenario's epoch",
                                    *dspan,
                                )
                                .label("in the past"),
                            );
                            return None;
                        }
                        Some(RetryAfter::At(ms as u64 / tick_ms))
                    }
                };
                ResponseSpec::Status { code, retry_after }
            }
        })
    }
}
