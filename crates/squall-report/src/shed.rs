//! Load shed before the callee: tries a caller did not send, because its
//! concurrency limiter was at its limit (`limited`) or its client-side
//! throttle rejected them (`rejected_locally`). Neither reached the node
//! below, so neither is a refusal of that node's capacity: a storm a
//! limiter stops shows up here, not in the callee's capacity verdict
//! ([`saturation`](crate::saturation) counts only the callee's own
//! refusals). `diagnose` names them after its capacity clause.

use squall_lang::Metric;

use crate::eval::run_window_metric;
use crate::study::Run;

/// What one caller shed toward its callee in a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shed {
    /// The caller.
    pub caller: usize,
    /// Its callee.
    pub callee: usize,
    /// Tries its concurrency limiter did not send.
    pub limited: u64,
    /// Tries its throttle rejected locally.
    pub rejected_locally: u64,
}

impl Shed {
    /// Both kinds.
    pub fn total(&self) -> u64 {
        self.limited + self.rejected_locally
    }
}

/// The tries shed in window `window` on the way into `node` (by the nodes
/// that call it) and out of it (by `node` itself, toward its callee), the
/// callers in node order, `node` last; only those that shed something.
pub fn shed_around(run: &Run, window: usize, node: usize) -> Vec<Shed> {
    let nodes = &run.model.nodes;
    let count = |m: Metric, n: usize| {
        // n/a (a round run has no limiter count) is none shed.
        run_window_metric(run, m, window, Some(n)).map_or(0, |x| x.max(0.0) as u64)
    };
    (0..nodes.len())
        .filter(|&n| n != node && nodes[n].downstream == Some(node))
        .chain(std::iter::once(node))
        .filter_map(|n| {
            let callee = nodes[n].downstream?;
            let s = Shed {
                caller: n,
                callee,
                limited: count(Metric::Limited, n),
                rejected_locally: count(Metric::RejectedLocally, n),
            };
            (s.total() > 0).then_some(s)
        })
        .collect()
}

/// The clause `diagnose` adds for `node` (empty when nothing was shed
/// around it): `; load shed before the callee: `api` did not send 1234
/// tries to `db` (1234 limited by its concurrency limit)`, and for tries
/// shed before `node` while `node` is not at its capacity limit, `: load
/// that never reached `db`, not a capacity problem of `db``.
pub fn shed_clause(run: &Run, window: usize, node: usize, saturated: bool) -> String {
    let name = |n: usize| run.model.nodes.get(n).map_or("?", |s| s.name.as_str());
    let mut parts = Vec::new();
    let mut before_node = false;
    for s in shed_around(run, window, node) {
        let mut why = Vec::new();
        if s.limited > 0 {
            why.push(format!("{} limited by its concurrency limit", s.limited));
        }
        if s.rejected_locally > 0 {
            why.push(format!(
                "{} rejected locally by its throttle",
                s.rejected_locally
            ));
        }
        let tries = if s.total() == 1 { "try" } else { "tries" };
        parts.push(format!(
            "`{}` did not send {} {tries} to `{}` ({})",
            name(s.caller),
            s.total(),
            name(s.callee),
            why.join(", ")
        ));
        before_node |= s.callee == node;
    }
    if parts.is_empty() {
        return String::new();
    }
    let mut out = format!("; load shed before the callee: {}", parts.join("; "));
    if before_node && !saturated {
        out.push_str(&format!(
            ": load that never reached `{}`, not a capacity problem of `{}`",
            name(node),
            name(node)
        ));
    }
    out
}
