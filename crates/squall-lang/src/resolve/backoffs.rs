//! A library's backoff (`backoff grpc { ... }`) and pushback (`pushback
//! retry_after { ... }`) to the model, each field converted to ticks, the
//! library's defaults filled in (the table in
//! [`crate::model::LibraryBackoff`]). Kinds and field names were checked by
//! `validate`; here only values.

use super::settings::Settings;
use super::Cx;
use crate::ast::KindBlockAst;
use crate::decl::Scenario;
use crate::diagnostic::Diagnostic;
use crate::model::{HedgeSpec, LibraryBackoff, Pushback};

impl Scenario {
    /// A duration of `ms` milliseconds in ticks, `None` under `clock round`.
    pub(super) fn ms_ticks(&self, ms: u64) -> Option<u64> {
        self.clock.tick_millis().map(|t| ms / t.max(1))
    }

    pub(super) fn library_backoff(
        &self,
        b: &KindBlockAst,
        cx: &mut Cx<'_>,
    ) -> Option<LibraryBackoff> {
        let set = Settings {
            scenario: self,
            block: b,
        };
        // `name` must be above 0 ticks (`what` says whose rule that is).
        let positive = |cx: &mut Cx<'_>, name: &str, v: Option<u64>, what: &str| {
            let v = v?;
            if v == 0 {
                cx.errs.push(
                    Diagnostic::new(format!("`{name}` is above 0 ({what})"), set.span_of(name))
                        .label("no wait"),
                );
                return None;
            }
            Some(v)
        };
        // `max` at least `low`.
        let at_least = |cx: &mut Cx<'_>, name: &str, v: u64, low: u64, of: &str| {
            if v < low {
                cx.errs.push(
                    Diagnostic::new(
                        format!("`{name}` ({v}) is below `{of}` ({low})"),
                        set.span_of(name),
                    )
                    .label(format!("below `{of}`"))
                    .help(format!(
                        "`{name}` bounds the growing wait; make it at least `{of}`"
                    )),
                );
                return None;
            }
            Some(v)
        };
        match b.kind.name.as_str() {
            "grpc" => {
                let a6 = "gRFC A6";
                let initial = set.ticks(cx, "initial", Some(0));
                let max = set.ticks(cx, "max", Some(0));
                let multiplier =
                    set.real(cx, "multiplier", 1.0, |x| x > 0.0, "is above 0 (gRFC A6)");
                let initial = positive(cx, "initial", initial, a6)?;
                let max = positive(cx, "max", max, a6)?;
                Some(LibraryBackoff::Grpc {
                    initial,
                    max,
                    multiplier: multiplier?,
                })
            }
            kind @ ("envoy" | "envoy_docs") => {
                // Envoy rounds a base below 1 ms up to 1 ms.
                let base = set.ticks(cx, "base", self.ms_ticks(25))?.max(1);
                let max = set.ticks(cx, "max", Some(base.saturating_mul(10)))?;
                let max = at_least(cx, "max", max, base, "base")?;
                Some(LibraryBackoff::Envoy {
                    base,
                    max,
                    docs: kind == "envoy_docs",
                })
            }
            "polly_decorrelated" => {
                let median = set.ticks(cx, "median", self.ms_ticks(2000))?;
                let max = match set.get("max") {
                    None => None,
                    Some(_) => Some(set.ticks(cx, "max", None)?),
                };
                Some(LibraryBackoff::Polly { median, max })
            }
            "aws" => {
                let base = set.ticks(cx, "base", self.ms_ticks(100))?;
                let cap = set.ticks(cx, "cap", self.ms_ticks(20_000))?;
                let cap = at_least(cx, "cap", cap, base, "base")?;
                Some(LibraryBackoff::Aws { base, cap })
            }
            _ => None,
        }
    }

    pub(super) fn pushback(&self, b: &KindBlockAst, cx: &mut Cx<'_>) -> Option<Pushback> {
        let set = Settings {
            scenario: self,
            block: b,
        };
        match b.kind.name.as_str() {
            "grpc" => Some(Pushback::Grpc),
            "retry_after" => Some(Pushback::RetryAfter {
                max_interval: set.ticks(cx, "max_interval", self.ms_ticks(300_000))?,
            }),
            _ => None,
        }
    }
}

impl Scenario {
    /// `hedge KIND { ... }` on node `n`: A6's fields, and no `retry` beside
    /// it (A6: a method has a retry policy or a hedging policy, never both).
    pub(super) fn hedge(
        &self,
        b: &KindBlockAst,
        n: &crate::decl::NodeDecl,
        cx: &mut Cx<'_>,
    ) -> Option<HedgeSpec> {
        let set = Settings {
            scenario: self,
            block: b,
        };
        if n.retry.is_some() {
            cx.errs.push(
                Diagnostic::new(
                    format!("`{}` both retries and hedges", n.name),
                    b.span,
                )
                .label("a hedge beside a `retry`")
                .help("gRFC A6: a call has a retry policy or a hedging policy, never both; a variant can swap them with `retry none  hedge grpc { ... }`"),
            );
            return None;
        }
        // What a hedging service would otherwise ignore.
        let ignored = n
            .timed
            .iter()
            .find(|t| t.key.name == "timeout")
            .map(|t| {
                (
                    t.span,
                    "a per-try `timeout`",
                    "A6 bounds hedged tries by the call's deadline only",
                )
            })
            .or(n.budget.as_ref().map(|b| {
                (
                    b.span,
                    "a retry budget",
                    "squall does not throttle hedges yet (A6 would)",
                )
            }));
        if let Some((span, what, why)) = ignored {
            cx.errs.push(
                Diagnostic::new(format!("`{}` hedges and has {what}", n.name), span)
                    .label(format!("{what} beside a hedge"))
                    .help(format!("a hedging service does not use it: {why}")),
            );
            return None;
        }
        let max_attempts = set.count(cx, "max_attempts", 0, HedgeSpec::MAX_ATTEMPTS)?;
        if max_attempts < 2 {
            cx.errs.push(
                Diagnostic::new(
                    format!("`max_attempts` is at least 2 (gRFC A6), found {max_attempts}"),
                    set.span_of("max_attempts"),
                )
                .label("no hedge")
                .help("the first try counts: `max_attempts 2` sends one hedge"),
            );
            return None;
        }
        let delay = set.ticks(cx, "hedging_delay", Some(0))?;
        Some(HedgeSpec {
            max_attempts: max_attempts as u32,
            delay,
        })
    }
}
