//! Retry budgets: a `budget KIND { ... }` block to a [`BudgetSpec`], each
//! field converted (durations to ticks, rates per tick), the library's
//! defaults filled in for the fields not written.
//!
//! | kind           | fields (default)                                                   |
//! |----------------|--------------------------------------------------------------------|
//! | `grpc`         | `max_tokens` (required, 1..=1000), `token_ratio` (required, > 0)   |
//! | `envoy`        | `budget_percent` (20), `min_retry_concurrency` (3)                 |
//! | `finagle`      | `ttl` (10 s, 1–60 s), `min_retries_per_sec` (10), `percent_can_retry` (0.2) |
//! | `aws`          | `capacity` (500), `retry_cost` (5), `timeout_cost` (10), `success_refund` (1) |
//! | `token_bucket` | `size` (required), `per_call` (0), `refill` (a rate; 0)            |
//!
//! The kind and field names were checked by `validate`; here only values.

use super::settings::Settings;
use super::Cx;
use crate::ast::{KindBlockAst, Value};
use crate::decl::Scenario;
use crate::diagnostic::Diagnostic;
use crate::model::BudgetSpec;
use crate::needs::{Need, Needs};
use crate::units;

impl Scenario {
    pub(super) fn budget(&self, b: &KindBlockAst, cx: &mut Cx<'_>) -> Option<BudgetSpec> {
        let set = Settings {
            scenario: self,
            block: b,
        };
        let field = |name: &str| set.get(name);
        let real = |cx: &mut Cx<'_>, name: &str, default: f64, ok: fn(f64) -> bool, what: &str| {
            set.real(cx, name, default, ok, what)
        };
        let count =
            |cx: &mut Cx<'_>, name: &str, default: u64, max: u64| set.count(cx, name, default, max);
        let second = self.clock.tick_millis().map(|ms| 1000 / ms.max(1));
        match b.kind.name.as_str() {
            "grpc" => {
                let max_tokens = count(cx, "max_tokens", 0, 1000)?;
                if max_tokens == 0 {
                    let span = field("max_tokens").map_or(b.span, |v| v.span);
                    cx.errs.push(
                        Diagnostic::new("`max_tokens` is at least 1 (gRFC A6: in (0, 1000])", span)
                            .label("0 tokens"),
                    );
                    return None;
                }
                let token_ratio = real(cx, "token_ratio", 0.0, |x| x > 0.0, "is above 0")?;
                Some(BudgetSpec::Grpc {
                    max_tokens: max_tokens as u32,
                    token_ratio,
                })
            }
            "envoy" => Some(BudgetSpec::Envoy {
                budget_percent: real(
                    cx,
                    "budget_percent",
                    20.0,
                    |x| (0.0..=100.0).contains(&x),
                    "is a percent in 0..100",
                )?,
                min_retry_concurrency: count(cx, "min_retry_concurrency", 3, u64::from(u32::MAX))?,
            }),
            "finagle" => {
                let ttl = match (field("ttl"), second) {
                    (Some(v), _) => self.finagle_ttl(v, second, cx)?,
                    (None, Some(s)) => 10 * s,
                    (None, None) => {
                        cx.errs.push(
                            Needs::new("a `finagle` budget under `clock round`", Need::Words("its `ttl` in rounds"))
                                .label("no `ttl`")
                                .help("its default, 10 s, has no length in rounds: write e.g. `ttl 10 rounds`")
                                .at(b.span),
                        );
                        return None;
                    }
                };
                let per_sec = real(
                    cx,
                    "min_retries_per_sec",
                    if second.is_some() { 10.0 } else { 0.0 },
                    |x| x >= 0.0,
                    "is at least 0",
                )?;
                let reserve = match second {
                    Some(s) => (per_sec * (ttl / s.max(1)) as f64).floor() as u64,
                    None if per_sec == 0.0 => 0,
                    None => {
                        let span = field("min_retries_per_sec").map_or(b.span, |v| v.span);
                        cx.errs.push(
                            Needs::new("`min_retries_per_sec`", Need::WallClock)
                                .because("a round has no seconds")
                                .help("write `min_retries_per_sec 0`")
                                .at(span),
                        );
                        return None;
                    }
                };
                Some(BudgetSpec::Finagle {
                    ttl,
                    reserve,
                    percent_can_retry: real(
                        cx,
                        "percent_can_retry",
                        0.2,
                        |x| (0.0..=1000.0).contains(&x),
                        "is in 0..1000 (Finagle's range; 0.2 = 20 %)",
                    )?,
                })
            }
            "aws" => {
                let c = |cx: &mut Cx<'_>, name: &str, default: u64| {
                    count(cx, name, default, u64::from(u32::MAX)).map(|n| n as u32)
                };
                Some(BudgetSpec::Aws {
                    capacity: c(cx, "capacity", 500)?,
                    retry_cost: c(cx, "retry_cost", 5)?,
                    timeout_cost: c(cx, "timeout_cost", 10)?,
                    success_refund: c(cx, "success_refund", 1)?,
                })
            }
            "token_bucket" => {
                let size = real(cx, "size", 0.0, |x| x >= 1.0, "is at least 1 token")?;
                let per_call = real(cx, "per_call", 0.0, |x| x >= 0.0, "is at least 0")?;
                let o = cx.o;
                let per_tick = match field("refill") {
                    None => 0.0,
                    Some(v) => cx.keep(
                        self.conv(v, o, |v| units::per_tick(v, self.clock, "a refill rate")),
                    )?,
                };
                Some(BudgetSpec::TokenBucket {
                    size,
                    per_call,
                    per_tick,
                })
            }
            _ => None,
        }
    }

    fn finagle_ttl(&self, v: &Value, second: Option<u64>, cx: &mut Cx<'_>) -> Option<u64> {
        let o = cx.o;
        cx.keep(self.conv(v, o, |v| {
            let t = units::ticks(v, self.clock, "a budget's ttl")?;
            if let Some(s) = second {
                if t < s || t > 60 * s {
                    return Err(
                        Diagnostic::new("Finagle's `ttl` is between 1 s and 60 s", v.span)
                            .label("outside 1s..60s"),
                    );
                }
            } else if t == 0 {
                return Err(Diagnostic::new("a `ttl` of 0 keeps nothing", v.span).label("0"));
            }
            Ok(t)
        }))
    }
}
