//! Policies: named generators, backoffs, retry policies (a service's, a
//! named one, an operation's) and breakers.

use super::Cx;
use crate::ast::{BackoffAst, BackoffRef, BreakerAst, Ident, OpAst, RetryAst, Value};
use crate::decl::Scenario;
use crate::diagnostic::Diagnostic;
use crate::model::{Backoff, BreakerSpec, RetrySpec, RngAlgorithm, RngSpec};
use crate::units;

impl Scenario {
    /// The file's named generators.
    pub(super) fn rngs(&self) -> Vec<RngSpec> {
        self.rngs
            .iter()
            .map(|r| RngSpec {
                name: r.name.name.clone(),
                algorithm: match r.algorithm.as_ref().map(|a| a.name.as_str()) {
                    Some("mulberry32") => RngAlgorithm::Mulberry32,
                    _ => RngAlgorithm::SplitMix64,
                },
                seed: r.seed.map(|(s, _)| s),
            })
            .collect()
    }

    pub(super) fn backoff(&self, b: &BackoffAst, cx: &mut Cx<'_>) -> Option<Backoff> {
        let o = cx.o;
        let ticks = |cx: &mut Cx<'_>, v: &Value, what: &str| {
            cx.keep(self.conv(v, o, |v| units::ticks(v, self.clock, what)))
        };
        let multiplier = |cx: &mut Cx<'_>, m: &Option<Value>| match m {
            None => Some(2.0),
            Some(m) => cx.keep(self.conv(m, o, |v| {
                let x = units::real(v, "a backoff multiplier")?;
                if x < 1.0 {
                    return Err(Diagnostic::new(
                        format!("a backoff multiplier below 1 ({x}) would shrink the waits"),
                        v.span,
                    )
                    .label("less than 1"));
                }
                Ok(x)
            })),
        };
        let cap_of =
            |cx: &mut Cx<'_>, c: &Option<Value>, base: Option<u64>| -> Option<Option<u64>> {
                let Some(c) = c else { return Some(None) };
                let cv = ticks(cx, c, "a backoff cap")?;
                if let Some(base) = base {
                    if cv < base {
                        cx.errs.push(
                            Diagnostic::new(
                                format!("the backoff cap ({cv}) is below its base ({base})"),
                                c.span,
                            )
                            .label("cap below base")
                            .help("the cap bounds the growing wait; make it at least the base"),
                        );
                        return None;
                    }
                }
                Some(Some(cv))
            };
        // A growing backoff's base, multiplier and cap, each checked (so
        // every problem is reported) before any is missing.
        let grown = |cx: &mut Cx<'_>, base: &Value, m: &Option<Value>, cap: &Option<Value>| {
            let base = ticks(cx, base, "a backoff base");
            let m = multiplier(cx, m);
            let cap = cap_of(cx, cap, base);
            Some((base?, m?, cap?))
        };
        let rng_of = |r: &Option<Ident>| {
            r.as_ref()
                .and_then(|id| self.rngs.iter().position(|x| x.name.name == id.name))
        };
        match b {
            BackoffAst::Fixed(v) => {
                ticks(cx, v, "a backoff wait").map(|wait| Backoff::Fixed { wait })
            }
            BackoffAst::Exponential {
                base,
                multiplier: m,
                cap,
            } => {
                let (base, multiplier, cap) = grown(cx, base, m, cap)?;
                Some(Backoff::Exponential {
                    base,
                    multiplier,
                    cap,
                })
            }
            BackoffAst::FullJitter {
                base,
                multiplier: m,
                cap,
                rng,
            } => {
                let (base, multiplier, cap) = grown(cx, base, m, cap)?;
                Some(Backoff::FullJitter {
                    base,
                    multiplier,
                    cap,
                    rng: rng_of(rng),
                })
            }
            BackoffAst::EqualJitter {
                base,
                multiplier: m,
                cap,
                rng,
            } => {
                let (base, multiplier, cap) = grown(cx, base, m, cap)?;
                Some(Backoff::EqualJitter {
                    base,
                    multiplier,
                    cap,
                    rng: rng_of(rng),
                })
            }
            BackoffAst::Decorrelated { base, cap, rng } => {
                let base = ticks(cx, base, "a backoff base");
                let cap = cap_of(cx, cap, base);
                Some(Backoff::Decorrelated {
                    base: base?,
                    cap: cap?,
                    rng: rng_of(rng),
                })
            }
            BackoffAst::Library(lib) => self.library_backoff(lib, cx).map(Backoff::Library),
        }
    }

    pub(super) fn retry(
        &self,
        r: &RetryAst,
        cx: &mut Cx<'_>,
        backoffs: &[(String, Backoff)],
    ) -> Option<RetrySpec> {
        if let Some(name) = &r.named {
            let (_, policy) = self.policies.iter().find(|(n, _)| *n == name.name)?;
            if policy.named.is_some() {
                return None; // policies name no other policy (the grammar allows no such thing)
            }
            return self.retry(policy, cx, backoffs);
        }
        let o = cx.o;
        let attempts =
            cx.keep(self.conv(r.attempts.as_ref()?, o, |v| attempts_count(v, "`attempts`")));
        let backoff = match r.backoff.as_ref()? {
            BackoffRef::Inline(b) => self.backoff(b, cx),
            BackoffRef::Named(id) => backoffs
                .iter()
                .find(|(n, _)| *n == id.name)
                .map(|(_, b)| b.clone()),
        };
        let deadline = match &r.deadline {
            None => Some(None),
            Some(v) => cx
                .keep(self.conv(v, o, |v| units::ticks(v, self.clock, "a deadline")))
                .map(Some),
        };
        let unknown = match &r.unknown_attempts {
            None => Some(2),
            Some(v) => cx.keep(self.conv(v, o, |v| attempts_count(v, "`unknown_attempts`"))),
        };
        let honor = r.retry_after.as_ref().is_none_or(|id| id.name != "ignore");
        let pushback = match &r.pushback {
            None => Some(None),
            Some(p) => self.pushback(p, cx).map(Some),
        };
        let gate = match &r.gate {
            None => Some(None),
            Some(v) => cx.keep(self.conv(v, o, gate_share)).map(Some),
        };
        let gate_window = match &r.gate_window {
            None => Some(None),
            Some(v) => cx
                .keep(self.conv(v, o, |v| {
                    at_least_a_tick(units::ticks(v, self.clock, "a gate window")?, v)
                }))
                .map(Some),
        };
        if let (Some(1), Some(v)) = (attempts, &r.gate) {
            cx.errs.push(
                Diagnostic::new("a `gate` only refuses retries, and `attempts 1` makes none", v.span)
                    .label("a gate without retries")
                    .help("allow retries (`attempts 4` is the gated study's three retries), or remove the `gate`"),
            );
            return None;
        }
        Some(RetrySpec {
            gate: gate?,
            gate_window: gate_window?,
            attempts: attempts?,
            backoff: backoff?,
            deadline: deadline?,
            honor_retry_after: honor,
            unknown_attempts: unknown?,
            pushback: pushback?,
        })
    }

    pub(super) fn op_retry(
        &self,
        op: &OpAst,
        entry: usize,
        cx: &mut Cx<'_>,
        backoffs: &[(String, Backoff)],
    ) -> Option<RetrySpec> {
        let base = match &op.policy {
            Some(p) => {
                let (_, policy) = self.policies.iter().find(|(n, _)| *n == p.name)?;
                self.retry(policy, cx, backoffs)
            }
            None => None,
        };
        let Some(v) = &op.attempts else { return base };
        let attempts = cx.keep(self.conv(v, cx.o, |v| attempts_count(v, "`attempts`")))?;
        let base = base.or_else(|| {
            self.nodes[entry]
                .retry
                .as_ref()
                .and_then(|r| self.retry(r, cx, backoffs))
        });
        match base {
            Some(mut r) => {
                r.attempts = attempts;
                Some(r)
            }
            None => {
                cx.errs.push(
                    Diagnostic::new(
                        format!("`attempts` on an operation changes the retry policy of `{}`, which has none", self.nodes[entry].name),
                        v.span,
                    )
                    .label("no policy to change")
                    .help("give the entry service a `retry { ... }`, or name a policy with `policy NAME`"),
                );
                None
            }
        }
    }

    pub(super) fn breaker(&self, b: &BreakerAst, cx: &mut Cx<'_>) -> Option<BreakerSpec> {
        let o = cx.o;
        let threshold = cx.keep(self.conv(b.after.as_ref()?, o, |v| {
            at_least_one(v, "a breaker threshold")
        }));
        let cooldown = cx.keep(self.conv(b.cooldown.as_ref()?, o, |v| {
            units::ticks(v, self.clock, "a cooldown")
        }));
        let probes = match &b.probes {
            None => Some(1),
            Some(v) => cx.keep(self.conv(v, o, |v| at_least_one(v, "`probes`"))),
        };
        Some(BreakerSpec {
            threshold: threshold?,
            cooldown: cooldown?,
            probes: probes?,
            per_path: b.per_path,
        })
    }
}

/// A retry gate's threshold, `gate 10%`: a percent in 0..100, as a
/// fraction (mbrooker's `retry_sim` writes 10 % as `max_rate` 0.1).
fn gate_share(v: &Value) -> Result<f64, Diagnostic> {
    let n = units::real(v, "a retry gate")?;
    if !(0.0..=100.0).contains(&n) {
        return Err(Diagnostic::new(
            format!("a retry gate is a percent in 0..100, found {n}%"),
            v.span,
        )
        .label("out of range")
        .help("`gate 10%` retries while failed tries stay at or under 10 % of requests"));
    }
    Ok(n / 100.0)
}

/// A gate window of `n` ticks: at least one tick, or nothing is counted.
fn at_least_a_tick(n: u64, v: &Value) -> Result<u64, Diagnostic> {
    if n == 0 {
        return Err(
            Diagnostic::new("a gate window is at least one tick", v.span)
                .label("an empty window")
                .help("leave `window` out to count from the start of the run, as retry_sim does"),
        );
    }
    Ok(n)
}

/// A count of tries: a whole number, at least 1, at most a million.
fn attempts_count(v: &Value, what: &str) -> Result<u32, Diagnostic> {
    let n = units::count(v, what)?;
    if n == 0 {
        return Err(Diagnostic::new(
            format!("{what} counts tries including the first, so it is at least 1"),
            v.span,
        )
        .label("0 tries")
        .help("`attempts 1` means no retries"));
    }
    if n > 1_000_000 {
        return Err(Diagnostic::new(
            format!("{what} of {n} is more than squall simulates (1000000)"),
            v.span,
        )
        .label("too many"));
    }
    Ok(n as u32)
}

/// A whole count of at least 1 (a breaker's threshold or probes).
fn at_least_one(v: &Value, what: &str) -> Result<u32, Diagnostic> {
    let n = units::count(v, what)?;
    if n == 0 {
        return Err(Diagnostic::new(format!("{what} must be at least 1"), v.span).label("0"));
    }
    u32::try_from(n).map_err(|_| {
        Diagnostic::new(format!("{what} of {n} is too large"), v.span).label("too large")
    })
}
