//! Link faults (`fault cut { on api -> db ... }`) and links' steady
//! latencies (`link api -> db { latency 2ms }`) checked against the
//! resolved model: `api` must call `db`, the run must take time (a link's
//! delay and lost tries are events of the timed path), and a try a link
//! loses (`fail timeout`, `partition`) must have something that ends it
//! at the caller: its per-try `timeout`, or a deadline it knows.

use super::{untimed, Cx};
use crate::ast::ResponseAst;
use crate::decl::Scenario;
use crate::diagnostic::Diagnostic;
use crate::model::{LinkSpec, Model};
use crate::span::Span;

impl Scenario {
    /// The links' steady latencies, resolved (checked with the model by
    /// [`Scenario::check_links`]).
    pub(super) fn links(&self, cx: &mut Cx<'_>) -> Vec<LinkSpec> {
        self.links
            .iter()
            .map(|l| LinkSpec {
                caller: l.caller,
                callee: l.callee,
                latency: l.latency.as_ref().and_then(|t| self.latency(t, cx)),
                answer: l.answer.as_ref().and_then(|t| self.latency(t, cx)),
            })
            .collect()
    }

    /// Every link fault and link latency of the run with `model`, checked.
    pub(super) fn check_links(&self, model: &Model, cx: &mut Cx<'_>) {
        for l in &self.links {
            if let Some(d) = no_such_call(model, l.caller, l.callee, l.span) {
                cx.errs.push(d);
            } else if !model.takes_time() {
                cx.errs.push(untimed::refused(
                    format!(
                        "link `{} -> {}` has a latency",
                        model.nodes[l.caller].name, model.nodes[l.callee].name
                    ),
                    l.span,
                    "a link's latency needs calls that take time",
                    untimed::give_time(),
                ));
            }
        }
        for (i, f) in self.faults.iter().enumerate() {
            if cx.o.without.contains(&i) {
                continue;
            }
            let loses = matches!(f.fail, Some(ResponseAst::Timeout))
                || f.timed.iter().any(|t| t.key.name == "partition");
            for (k, &callee) in f.nodes.iter().enumerate() {
                let (Some(caller), Some(&span)) =
                    (f.callers.get(k).copied().flatten(), f.spans.get(k))
                else {
                    continue;
                };
                let (Some(a), Some(b)) = (model.nodes.get(caller), model.nodes.get(callee)) else {
                    continue;
                };
                if let Some(d) = no_such_call(model, caller, callee, span) {
                    cx.errs.push(d);
                    continue;
                }
                if !model.takes_time() {
                    cx.errs.push(untimed::refused(
                        format!("fault `{}` acts on a link", f.name),
                        span,
                        "a link fault needs calls that take time",
                        untimed::give_time(),
                    ));
                    continue;
                }
                if loses && !ends_lost_try(model, caller) {
                    cx.errs.push(
                        Diagnostic::new(
                            format!(
                                "a try lost on the link `{} -> {}` would wait forever",
                                a.name, b.name
                            ),
                            span,
                        )
                        .label("its tries are lost here")
                        .help(if a.hedge.is_some() {
                            format!(
                                "`{}` hedges, so its tries end only at a deadline: give every source a `deadline` that `{}` knows (its entry, or `propagate`)",
                                a.name, a.name
                            )
                        } else {
                            format!(
                                "give `{}` a per-try `timeout`, or every source a `deadline` that `{}` knows (its entry, or `propagate`)",
                                a.name, a.name
                            )
                        }),
                    );
                }
            }
        }
    }
}

/// `caller` does not call `callee` (written at `span`): the refusal.
fn no_such_call(model: &Model, caller: usize, callee: usize, span: Span) -> Option<Diagnostic> {
    let (a, b) = (model.nodes.get(caller)?, model.nodes.get(callee)?);
    if a.downstream == Some(callee) {
        return None;
    }
    Some(
        Diagnostic::new(format!("`{}` does not call `{}`", a.name, b.name), span)
            .label("no such link")
            .help(match a.downstream.and_then(|d| model.nodes.get(d)) {
                Some(d) => format!(
                    "a link joins a node to the next in a chain: `{}` calls `{}`",
                    a.name, d.name
                ),
                None => format!("`{}` calls no node", a.name),
            }),
    )
}

/// True when a try `caller` sends and loses ends: by its per-try timeout
/// (a hedging node has none: its timer sends the next hedge),
/// or by a deadline it knows on every source's request.
fn ends_lost_try(model: &Model, caller: usize) -> bool {
    let node = &model.nodes[caller];
    if node.caller.timeout.is_some() && node.hedge.is_none() {
        return true;
    }
    !model.sources.is_empty()
        && model.sources.iter().all(|s| {
            s.deadline
                .as_ref()
                .is_some_and(|d| d.propagate || s.entry == caller)
        })
}
