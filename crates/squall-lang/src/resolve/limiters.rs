//! Adaptive concurrency limits: a `limiter KIND { ... }` block to a
//! [`LimiterSpec`], each field converted (durations to ticks, percents to
//! shares) and checked against its library's range, the library's default
//! for a field not written (the table in `model/run/limiter.rs`); and the
//! refusal of a limiter in a run where no call takes time.
//!
//! The kind and field names were checked by `validate`; here only values.

use super::settings::Settings;
use super::Cx;
use crate::ast::KindBlockAst;
use crate::decl::{NodeDecl, Scenario};
use crate::diagnostic::Diagnostic;
use crate::model::{AimdSpec, EnvoySpec, Gradient2Spec, LimiterSpec, Model, VegasSpec};

/// The largest limit squall accepts: the engine keeps a try's in-flight
/// count in 16 bits, so its call record does not grow (the libraries'
/// defaults are at most 1000).
const MAX_LIMIT: u64 = 65_535;

impl Scenario {
    /// `limiter KIND { ... }` on node `n`.
    pub(super) fn limiter(
        &self,
        b: &KindBlockAst,
        n: &NodeDecl,
        cx: &mut Cx<'_>,
    ) -> Option<LimiterSpec> {
        if n.hedge.is_some() {
            cx.errs.push(
                Diagnostic::new(format!("`{}` hedges and has a concurrency limiter", n.name), b.span)
                    .label("a limiter beside a hedge")
                    .help("squall's limiter guards a caller's tries one at a time, and a hedging call sends several at once: drop the `hedge` or the `limiter`"),
            );
            return None;
        }
        let set = Settings {
            scenario: self,
            block: b,
        };
        let limit = |cx: &mut Cx<'_>, name: &str, default: u64| -> Option<u32> {
            let v = set.count(cx, name, default, MAX_LIMIT)?;
            if v == 0 {
                cx.errs.push(
                    Diagnostic::new(format!("`{name}` is at least 1"), set.span_of(name))
                        .label("a limit of 0 sends nothing")
                        .help("a limiter that lets no try through never hears a round trip, so it would never open again"),
                );
                return None;
            }
            Some(v as u32)
        };
        let share = |x: f64| x > 0.0 && x <= 1.0;
        let ms = |n: u64| self.clock.tick_millis().map(|t| n / t.max(1));
        match b.kind.name.as_str() {
            "aimd" => {
                let initial_limit = limit(cx, "initial_limit", 20)?;
                let min_limit = limit(cx, "min_limit", 20)?;
                let max_limit = limit(cx, "max_limit", 200)?;
                self.ordered(cx, &set, ("min_limit", min_limit), ("max_limit", max_limit))?;
                let backoff_ratio = set.real(
                    cx,
                    "backoff_ratio",
                    0.9,
                    |x| (0.5..1.0).contains(&x),
                    "is in [0.5, 1) (AIMDLimit's precondition)",
                )?;
                let timeout = set.ticks(cx, "timeout", ms(5000))?;
                if timeout == 0 {
                    cx.errs.push(
                        Diagnostic::new(
                            "`timeout` is above 0 (AIMDLimit's precondition)",
                            set.span_of("timeout"),
                        )
                        .label("0"),
                    );
                    return None;
                }
                Some(LimiterSpec::Aimd(AimdSpec {
                    initial_limit,
                    min_limit,
                    max_limit,
                    backoff_ratio,
                    timeout,
                }))
            }
            "vegas" => Some(LimiterSpec::Vegas(VegasSpec {
                initial_limit: limit(cx, "initial_limit", 20)?,
                max_concurrency: limit(cx, "max_concurrency", 1000)?,
                smoothing: set.real(cx, "smoothing", 1.0, share, "is in (0, 1]")?,
                probe_multiplier: limit(cx, "probe_multiplier", 30)?,
            })),
            "gradient2" => {
                let initial_limit = limit(cx, "initial_limit", 20)?;
                let min_limit = limit(cx, "min_limit", 20)?;
                let max_concurrency = limit(cx, "max_concurrency", 200)?;
                self.ordered(
                    cx,
                    &set,
                    ("min_limit", min_limit),
                    ("max_concurrency", max_concurrency),
                )?;
                Some(LimiterSpec::Gradient2(Gradient2Spec {
                    initial_limit,
                    min_limit,
                    max_concurrency,
                    smoothing: set.real(cx, "smoothing", 0.2, share, "is in (0, 1]")?,
                    queue_size: set.count(cx, "queue_size", 4, MAX_LIMIT)? as u32,
                    long_window: limit(cx, "long_window", 600)?,
                    rtt_tolerance: set.real(
                        cx,
                        "rtt_tolerance",
                        1.5,
                        |x| x >= 1.0,
                        "is at least 1.0 (Gradient2Limit's precondition)",
                    )?,
                }))
            }
            "envoy" => {
                let positive = |cx: &mut Cx<'_>, name: &str| -> Option<u64> {
                    let t = set.ticks(cx, name, Some(0))?;
                    if t == 0 {
                        cx.errs.push(
                            Diagnostic::new(
                                format!("`{name}` is above 0 (Envoy's proto)"),
                                set.span_of(name),
                            )
                            .label("no time"),
                        );
                        return None;
                    }
                    Some(t)
                };
                let percent = |cx: &mut Cx<'_>, name: &str, default: f64, max: f64| {
                    let ok: fn(f64) -> bool = if max > 100.0 {
                        |x| x >= 0.0
                    } else {
                        |x| (0.0..=100.0).contains(&x)
                    };
                    set.real(cx, name, default, ok, "is a percent, at least 0 (and at most 100 for a share of the samples or of the interval)")
                        .map(|x| x / 100.0)
                };
                let update_interval = positive(cx, "concurrency_update_interval")?;
                let min_rtt_interval = positive(cx, "interval")?;
                let percentile = percent(cx, "sample_aggregate_percentile", 50.0, 100.0)?;
                if percentile == 0.0 {
                    cx.errs.push(
                        Diagnostic::new(
                            "`sample_aggregate_percentile` is above 0",
                            set.span_of("sample_aggregate_percentile"),
                        )
                        .label("p0"),
                    );
                    return None;
                }
                let min_concurrency = limit(cx, "min_concurrency", 3)?;
                let max_limit = limit(cx, "max_concurrency_limit", 1000)?;
                self.ordered(
                    cx,
                    &set,
                    ("min_concurrency", min_concurrency),
                    ("max_concurrency_limit", max_limit),
                )?;
                Some(LimiterSpec::Envoy(EnvoySpec {
                    update_interval,
                    min_rtt_interval,
                    request_count: limit(cx, "request_count", 50)?,
                    jitter: percent(cx, "jitter", 15.0, 100.0)?,
                    min_concurrency,
                    buffer: percent(cx, "buffer", 25.0, f64::INFINITY)?,
                    percentile,
                    max_limit,
                }))
            }
            _ => None,
        }
    }

    /// `low` is at most `high` (both settings of one block).
    fn ordered(
        &self,
        cx: &mut Cx<'_>,
        set: &Settings<'_>,
        low: (&str, u32),
        high: (&str, u32),
    ) -> Option<()> {
        if low.1 <= high.1 {
            return Some(());
        }
        let span = set
            .get(low.0)
            .or(set.get(high.0))
            .map_or(set.block.span, |v| v.span);
        cx.errs.push(
            Diagnostic::new(
                format!("`{}` ({}) is above `{}` ({})", low.0, low.1, high.0, high.1),
                span,
            )
            .label("no limit fits between them")
            .help(format!("lower `{}` or raise `{}`", low.0, high.0)),
        );
        None
    }

    /// A limiter adapts from each try's round trip: refused in a run where
    /// no call takes time (every round trip would be 0).
    pub(super) fn check_limiters(&self, model: &Model, cx: &mut Cx<'_>) {
        if model.takes_time() {
            return;
        }
        for (i, n) in model.nodes.iter().enumerate() {
            let Some(spec) = n.limiter else {
                continue;
            };
            let decl = self.changed_node(i, &self.nodes[i], cx.o);
            let block = decl.as_ref().map_or(&self.nodes[i].limiter, |d| &d.limiter);
            let span = block.as_ref().map_or(self.nodes[i].span, |b| b.span);
            cx.errs.push(super::untimed::refused(
                format!(
                    "`limiter {}` adapts from each try's round-trip time",
                    spec.kind()
                ),
                span,
                "every try would answer in the instant it is sent",
                format!(
                    "give `{}`'s callee a service time, e.g. `latency exponential mean 5ms  workers 4`",
                    n.name
                ),
            ));
        }
    }
}
