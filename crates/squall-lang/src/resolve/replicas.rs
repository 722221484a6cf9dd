//! Replicas behind a balancer: a service's `replicas N` and `balance ...`
//! settings, a fault's `on api[1]`, a report's `api[1].calls`, and the
//! balancers that need calls that take time.
//!
//! Refused, each where it is written: `replicas 0`, more than
//! [`MAX_REPLICAS`], an unknown balancer (with the nearest one
//! suggested), a `balance` without `replicas`, a replica index (in a
//! fault's `on` or a report's path) past the last replica of the run (or
//! on a service without `replicas`), `optimistic` on a
//! service with more than one replica (each would keep its own item), and
//! `least_outstanding` or `p2c` in a run where no call takes time (every
//! call answers in the instant it arrives there, so no replica ever has a
//! call outstanding to compare).

use crate::ast::Timed;
use crate::decl::Scenario;
use crate::diagnostic::Diagnostic;
use crate::model::{Balance, FaultSpec, Model, NodeSpec, ReplicaSpec, MAX_REPLICAS};
use crate::needs::{Need, Needs};
use crate::span::Span;
use crate::unknown::Unknown;

use super::{Cx, RunKey};

impl Scenario {
    /// A service's `replicas N` and `balance WORD` (none without
    /// `replicas`).
    pub(super) fn replicas(&self, timed: &[Timed], cx: &mut Cx<'_>) -> Option<ReplicaSpec> {
        let find = |key: &str| timed.iter().find(|t| t.key.name == key);
        let balance_line = find("balance");
        let balance = balance_line
            .and_then(|t| balance(t, cx))
            .unwrap_or_default();
        let Some(line) = find("replicas") else {
            if let Some(t) = balance_line {
                cx.errs.push(
                    Needs::new("a `balance`", Need::Key("replicas"))
                        .because("it spreads calls over a service's replicas")
                        .help("add e.g. `replicas 3`")
                        .at(t.span),
                );
            }
            return None;
        };
        let count = self.whole(line, "", "a number of replicas", cx)?;
        if count == 0 {
            cx.errs.push(
                Needs::new(
                    "a service",
                    Need::AtLeastOne {
                        one: "replica",
                        many: "replicas",
                    },
                )
                .at(line.span),
            );
            return None;
        }
        if count > u64::from(MAX_REPLICAS) {
            cx.errs.push(
                Diagnostic::new(
                    format!("{count} replicas are more than the {MAX_REPLICAS} a service may have"),
                    line.span,
                )
                .label("too many replicas"),
            );
            return None;
        }
        if let (Some(t), 2..) = (find("optimistic"), count) {
            // Each replica is a server side of its own, and an optimistic
            // node's item is its server side's: N replicas would be N items,
            // which no one writing `optimistic` on a replicated service means.
            cx.errs.push(
                Diagnostic::new(
                    format!("`optimistic` on a service with {count} replicas"),
                    t.span,
                )
                .label("each replica would keep an item of its own")
                .help("model the shared item as a service of its own that the replicas call, e.g. `chain api -> store` with `replicas` on `api` and `optimistic` on `store`"),
            );
            return None;
        }
        Some(ReplicaSpec {
            count: count as u32,
            balance,
        })
    }

    /// Each fault's replica (`on api[1]`), checked against its node's
    /// replicas: `faults` holds one entry per node each fault names, in
    /// declaration order, as [`Scenario::faults`] made them.
    pub(super) fn fault_replicas(
        &self,
        faults: &mut [FaultSpec],
        nodes: &[NodeSpec],
        cx: &mut Cx<'_>,
    ) {
        let o = cx.o;
        let targets = self
            .faults
            .iter()
            .enumerate()
            .filter(|(i, _)| !o.without.contains(i))
            .flat_map(|(_, f)| f.nodes.iter().zip(&f.replicas));
        for (spec, (&node, replica)) in faults.iter_mut().zip(targets) {
            let Some((r, span)) = *replica else {
                continue;
            };
            let n = &nodes[node];
            match n.replicas {
                Some(rs) if r < u64::from(rs.count) => spec.replica = Some(r as u32),
                Some(rs) => cx.errs.push(out_of_range(&n.name, rs.count, r, span)),
                // A `replicas` line that did not resolve was refused already.
                None if self.nodes[node]
                    .timed
                    .iter()
                    .any(|t| t.key.name == "replicas") => {}
                None => cx.errs.push(
                    Needs::new("a replica index", Need::Key("replicas"))
                        .because("it names one of a service's replicas")
                        .help(format!(
                            "add e.g. `replicas 3` to `{}`, or write `on {}`",
                            n.name, n.name
                        ))
                        .at(span),
                ),
            }
        }
    }

    /// The replicas report expressions read (`api[1].calls`), checked
    /// against run `key`'s (`m`): an index past the last replica, or on a
    /// service without `replicas`, is refused at the index. A variant may
    /// change a service's replicas, and an expression may be read in any
    /// run, so an index must hold in every run; the help names the run
    /// where it does not, unless it is the only one.
    pub(crate) fn report_replicas(&self, m: &Model, key: RunKey) -> Vec<Diagnostic> {
        let run = match key {
            RunKey::Variant(_) if self.implicit_variant => None,
            RunKey::Variant(v) => self
                .variants
                .get(v)
                .map(|d| format!("variant `{}`", d.name)),
            RunKey::Point(s, _) | RunKey::Cross(_, s, _) => self
                .sweeps
                .get(s)
                .map(|d| format!("a point of sweep `{}`", d.name)),
        };
        let within = |d: Diagnostic| match &run {
            Some(r) => d.help(format!(
                "in {r}: an index must name a replica in every run of the file"
            )),
            None => d,
        };
        let mut out = Vec::new();
        for &(node, r, span, _) in &self.replica_reads {
            let Some(n) = m.nodes.get(node) else {
                continue;
            };
            match n.replicas {
                Some(rs) if r < u64::from(rs.count) => {}
                Some(rs) => out.push(within(out_of_range(&n.name, rs.count, r, span))),
                None => out.push(
                    Needs::new("a replica index", Need::Key("replicas"))
                        .because("it names one of a service's replicas")
                        .help(format!(
                            "add e.g. `replicas 3` to `{}`, or drop the index to read the whole service",
                            n.name
                        ))
                        .at(span),
                ),
            }
        }
        out
    }

    /// `least_outstanding` and `p2c` read the calls outstanding at each
    /// replica: refused in a run where no call takes time.
    pub(super) fn check_balancers(&self, model: &Model, cx: &mut Cx<'_>) {
        if model.takes_time() {
            return;
        }
        for (i, n) in model.nodes.iter().enumerate() {
            let Some(rs) = n.replicas.filter(|r| r.balance.reads_load()) else {
                continue;
            };
            let decl = self.changed_node(i, &self.nodes[i], cx.o);
            let timed = decl.as_ref().map_or(&self.nodes[i].timed, |d| &d.timed);
            let span = timed
                .iter()
                .find(|t| t.key.name == "balance")
                .map_or(self.nodes[i].span, |t| t.span);
            let word = Balance::ALL
                .iter()
                .find(|(_, b)| *b == rs.balance)
                .map_or("", |(w, _)| w);
            cx.errs.push(super::untimed::refused(
                format!("`balance {word}` compares the calls outstanding at each replica"),
                span,
                "every call answers in the instant it arrives",
                "give a service `latency` or `workers`, or use `balance round_robin` or `random`"
                    .to_string(),
            ));
        }
    }
}

/// `balance WORD`: one of [`Balance::ALL`], or an unknown word with the
/// nearest one suggested.
fn balance(t: &Timed, cx: &mut Cx<'_>) -> Option<Balance> {
    let word = t.first_word()?;
    let found = Balance::named(&word.name);
    if found.is_none() {
        cx.errs.push(
            Unknown::new("balancer", &word.name)
                .label("expected `round_robin`, `random`, `least_outstanding` or `p2c`")
                .at(word.span, Balance::ALL.iter().map(|&(w, _)| w)),
        );
    }
    found
}

/// Replica `r` of `name`, which has `count` (at least one): past the last.
fn out_of_range(name: &str, count: u32, r: u64, span: Span) -> Diagnostic {
    Diagnostic::new(
        format!(
            "`{name}` has {count} replicas, numbered 0 to {}: there is no replica {r}",
            count - 1
        ),
        span,
    )
    .label("index out of range")
}
