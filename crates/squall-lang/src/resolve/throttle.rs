//! `throttle KIND { ... }` to the model: the SRE book's client-side
//! throttling (the table in [`crate::model::ThrottleSpec`]), its defaults
//! filled in. The kind and field names were checked by `validate`; here
//! the values, and what a throttle cannot sit beside.

use super::settings::Settings;
use super::Cx;
use crate::ast::KindBlockAst;
use crate::decl::{NodeDecl, Scenario};
use crate::diagnostic::Diagnostic;
use crate::model::ThrottleSpec;

/// The SRE book's defaults: `K = 2` and a trailing window of two minutes;
/// ten buckets as go-kratos/aegis's rolling counter keeps.
const DEFAULT_K: f64 = 2.0;
const DEFAULT_WINDOW_MS: u64 = 2 * 60 * 1000;
const DEFAULT_BUCKETS: u64 = 10;

impl Scenario {
    /// `throttle KIND { ... }` on node `n`.
    pub(super) fn throttle(
        &self,
        b: &KindBlockAst,
        n: &NodeDecl,
        cx: &mut Cx<'_>,
    ) -> Option<ThrottleSpec> {
        let set = Settings {
            scenario: self,
            block: b,
        };
        // What one node cannot hold beside a throttle.
        let beside = n
            .breaker
            .as_ref()
            .map(|x| x.span)
            .or(n.library_breaker.as_ref().map(|x| x.span))
            .map(|span| {
                (
                    span,
                    "a breaker",
                    "go-zero and go-kratos ship this rule as their breaker: a service's tries pass a breaker or a throttle; remove one (a variant can swap them with `breaker none  throttle sre`)",
                )
            })
            .or(n.hedge.as_ref().map(|h| {
                (
                    h.span,
                    "a hedge",
                    "squall throttles tries of a retry loop, not hedged tries",
                )
            }));
        if let Some((span, what, help)) = beside {
            cx.errs.push(
                Diagnostic::new(format!("`{}` throttles and has {what}", n.name), span)
                    .label(format!("{what} beside a throttle"))
                    .help(help),
            );
            return None;
        }
        let k = set.real(
            cx,
            "k",
            DEFAULT_K,
            |k| k.is_finite() && k >= 1.0,
            "is at least 1 (below 1 a healthy dependency's tries are rejected)",
        )?;
        let window = set.ticks(cx, "window", self.ms_ticks(DEFAULT_WINDOW_MS))?;
        let buckets = set.count(cx, "buckets", DEFAULT_BUCKETS, ThrottleSpec::MAX_BUCKETS)?;
        if buckets == 0 || window < buckets {
            let (what, name) = if buckets == 0 {
                ("no bucket", "buckets")
            } else {
                ("a bucket shorter than a tick", "window")
            };
            cx.errs.push(
                Diagnostic::new(
                    format!(
                        "a throttle's window of {window} ticks in {buckets} buckets leaves {what}"
                    ),
                    set.span_of(name),
                )
                .label(what)
                .help("each bucket spans window / buckets ticks, at least one: lengthen the `window` or use fewer `buckets`"),
            );
            return None;
        }
        Some(ThrottleSpec {
            k,
            window,
            buckets: buckets as u32,
        })
    }
}
