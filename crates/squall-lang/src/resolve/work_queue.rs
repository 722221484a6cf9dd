//! Work queues: a service with `consumers` is a queue of messages worked
//! by that many consumers. Its other settings say how long a message
//! takes (`work`, a latency distribution), which messages always fail
//! (`poison`), how a failed message comes back (`redeliver immediately`,
//! or after a backoff of one of the retry backoff kinds), and where it
//! goes after its last receive (`max_receives` with `dead_letter`).

use super::Cx;
use crate::ast::{BackoffAst, Ident, Timed, TimedPart};
use crate::decl::{NodeDecl, Scenario};
use crate::diagnostic::Diagnostic;
use crate::model::{Backoff, LatencySpec, Poison, WorkQueueSpec};
use crate::needs::{Need, Needs};
use crate::not_a::NotA;
use crate::units;

/// The settings only a work queue takes.
pub(crate) const QUEUE_SETTINGS: [&str; 6] = [
    "consumers",
    "work",
    "poison",
    "redeliver",
    "max_receives",
    "dead_letter",
];

/// The settings of a service that are none of a work queue's business.
const NOT_ON_A_QUEUE: [&str; 10] = [
    "latency",
    "load",
    "workers",
    "queue",
    "discipline",
    "optimistic",
    "limit",
    "timeout",
    "replicas",
    "balance",
];

fn setting<'a>(timed: &'a [Timed], key: &str) -> Option<&'a Timed> {
    timed.iter().find(|t| t.key.name == key)
}

impl Scenario {
    /// Node `n` as a work queue, or `None` when it has no `consumers`
    /// (then any other queue setting is an error).
    pub(super) fn work_queue(&self, n: &NodeDecl, cx: &mut Cx<'_>) -> Option<WorkQueueSpec> {
        let Some(c) = setting(&n.timed, "consumers") else {
            if let Some(t) = n
                .timed
                .iter()
                .find(|t| QUEUE_SETTINGS.contains(&t.key.name.as_str()))
            {
                cx.errs.push(
                    Diagnostic::new(
                        format!(
                            "`{}` is a work queue's setting, and `{}` has no `consumers`",
                            t.key.name, n.name
                        ),
                        t.span,
                    )
                    .label("a queue setting on a plain service")
                    .help("make the service a work queue with e.g. `consumers 4`"),
                );
            }
            return None;
        };
        self.refuse_on_queue(n, c, cx);
        let consumers = self.whole(c, "", "a number of consumers", cx)?;
        if consumers == 0 {
            cx.errs.push(
                Needs::new(
                    "a work queue",
                    Need::AtLeastOne {
                        one: "consumer",
                        many: "consumers",
                    },
                )
                .at(c.span),
            );
            return None;
        }
        let work = setting(&n.timed, "work").and_then(|t| self.latency(t, cx));
        let poison = setting(&n.timed, "poison").and_then(|t| self.poison(t, cx));
        let redeliver = match setting(&n.timed, "redeliver") {
            Some(t) if !t.has("immediately") => Some(self.backoff(&redeliver_backoff(t)?, cx)?),
            _ => None,
        };
        let cap = setting(&n.timed, "max_receives");
        let max_receives = match cap {
            Some(t) => {
                let m = self.whole(t, "", "a receive cap", cx)?;
                if m == 0 {
                    cx.errs.push(
                        Diagnostic::new("a message is received at least once", t.span)
                            .label("`max_receives 0`")
                            .help("write `max_receives 1` to dead-letter a message at its first failure"),
                    );
                    return None;
                }
                Some(u32::try_from(m).unwrap_or(u32::MAX))
            }
            None => None,
        };
        let dlq = setting(&n.timed, "dead_letter");
        let dead_letter = dlq.and_then(Timed::first_word).map(|w| w.name.clone());
        match (cap, dlq) {
            (Some(t), None) => cx.errs.push(
                Diagnostic::new(
                    format!(
                        "`max_receives` on `{}` has nowhere to move the message",
                        n.name
                    ),
                    t.span,
                )
                .label("a receive cap without a dead-letter queue")
                .help("add `dead_letter NAME`: a message past its last receive moves there"),
            ),
            (None, Some(t)) => cx.errs.push(
                Diagnostic::new(
                    format!("`dead_letter` on `{}` is never reached", n.name),
                    t.span,
                )
                .label("a dead-letter queue without a receive cap")
                .help(
                    "add `max_receives N`: the message moves there after its N-th failed receive",
                ),
            ),
            _ => {}
        }
        // A poison message worked in no time and back at once, with no cap,
        // would be received for ever without time passing.
        let instant = work
            .as_ref()
            .is_none_or(|l| *l == LatencySpec::Constant(0.0));
        let at_once = matches!(
            redeliver,
            None | Some(Backoff::Fixed { wait: 0 }) | Some(Backoff::Exponential { base: 0, .. })
        );
        if poison.is_some() && max_receives.is_none() && instant && at_once {
            cx.errs.push(
                Diagnostic::new(
                    format!(
                        "a poison message on `{}` would be received for ever without time passing",
                        n.name
                    ),
                    c.span,
                )
                .label("no work time, no wait, no cap")
                .help("give the consumers a `work` time, a `redeliver` backoff, or a `max_receives` cap"),
            );
            return None;
        }
        Some(WorkQueueSpec {
            consumers: u32::try_from(consumers).unwrap_or(u32::MAX),
            work,
            poison,
            redeliver,
            max_receives,
            dead_letter,
        })
    }

    /// A work queue calls nobody, nobody calls it (sources enter it), and
    /// the settings of a server or a caller are not its own.
    fn refuse_on_queue(&self, n: &NodeDecl, consumers: &Timed, cx: &mut Cx<'_>) {
        let called = self.nodes.iter().any(|m| {
            m.downstream
                .into_iter()
                .chain(m.fanout.iter().copied())
                .any(|d| self.nodes[d].name == n.name)
        });
        if n.downstream.is_some() || !n.fanout.is_empty() || called {
            cx.errs.push(
                Diagnostic::new(
                    format!("work queue `{}` is in the middle of a chain", n.name),
                    consumers.span,
                )
                .label("a work queue")
                .help("sources enter a work queue (`enters NAME`); its consumers call nobody"),
            );
        }
        for t in &n.timed {
            if NOT_ON_A_QUEUE.contains(&t.key.name.as_str()) {
                let hint = if t.key.name == "latency" {
                    "a consumer's time per message is `work ...`"
                } else if t.key.name == "workers" {
                    "a queue's pool is `consumers N`"
                } else {
                    "a work queue takes `consumers`, `work`, `poison`, `redeliver`, `max_receives` and `dead_letter`"
                };
                cx.errs.push(
                    NotA::new(&t.key.name, "a work queue's setting")
                        .label(format!("on work queue `{}`", n.name))
                        .help(hint)
                        .at(t.span),
                );
            }
        }
        if n.retry.is_some() || n.breaker.is_some() || n.budget.is_some() {
            cx.errs.push(
                Diagnostic::new(
                    format!(
                        "work queue `{}` calls nobody, so it has no retry, breaker or budget",
                        n.name
                    ),
                    consumers.span,
                )
                .label("a work queue")
                .help("a queue's own second chance is `redeliver ...` with `max_receives`"),
            );
        }
    }

    /// `poison 3` (the first three messages) or `poison 1%`.
    fn poison(&self, t: &Timed, cx: &mut Cx<'_>) -> Option<Poison> {
        let share = matches!(t.parts.first(), Some(TimedPart::Percent(_)));
        let v = t.value_after("")?;
        if share {
            let p = cx.keep(self.conv(v, cx.o, |v| units::real(v, "a poison share")))?;
            if !(0.0..=100.0).contains(&p) {
                cx.errs.push(
                    Diagnostic::new(format!("a share of {p}% is not between 0 and 100"), t.span)
                        .label("not a share"),
                );
                return None;
            }
            return Some(Poison::Share(p / 100.0));
        }
        // `poison $p` with `param p = 1%` is a share, as `poison 1%` is.
        let n = cx.keep(self.conv(v, cx.o, |v| match v.kind {
            crate::ast::ValueKind::Percent(p) => Ok(Err(p)),
            _ => units::count(v, "a number of poison messages").map(Ok),
        }))?;
        match n {
            Ok(n) => Some(Poison::First(n)),
            Err(p) if (0.0..=100.0).contains(&p) => Some(Poison::Share(p / 100.0)),
            Err(p) => {
                cx.errs.push(
                    Diagnostic::new(format!("a share of {p}% is not between 0 and 100"), t.span)
                        .label("not a share"),
                );
                None
            }
        }
    }
}

/// `redeliver exponential 100ms x 2 cap 10s` as the backoff it names.
fn redeliver_backoff(t: &Timed) -> Option<BackoffAst> {
    let kind: &Ident = t.first_word()?;
    let base = t.value_after(&kind.name)?.clone();
    let multiplier = t.value_after("x").cloned();
    let cap = t.value_after("cap").cloned();
    Some(match kind.name.as_str() {
        "fixed" => BackoffAst::Fixed(base),
        "exponential" => BackoffAst::Exponential {
            base,
            multiplier,
            cap,
        },
        "full_jitter" => BackoffAst::FullJitter {
            base,
            multiplier,
            cap,
            rng: None,
        },
        "equal_jitter" => BackoffAst::EqualJitter {
            base,
            multiplier,
            cap,
            rng: None,
        },
        _ => BackoffAst::Decorrelated {
            base,
            cap,
            rng: None,
        },
    })
}
