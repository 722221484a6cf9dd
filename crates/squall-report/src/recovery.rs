//! A recovery's verdict in one replication, and whether a value is n/a
//! because a recovery in it never came (a replicated cell's
//! `never (k of n)`).
//!
//! A node's verdict reads the requests *through* it ([`goodput_through`]):
//! those of the sources whose paths may pass it. In a model where a second
//! source never reaches the faulted node, its requests completing say
//! nothing about the node's recovery, and would hide a node whose own
//! requests still fail.

use std::borrow::Cow;

use squall_engine::observe::Observations;
use squall_lang::{Func, Model, RExpr, RunKey};

use crate::bins::Goodput;
use crate::eval::{Ctx, DEPTH};
use crate::study::Study;

/// Whether a request of `source` may pass `node`: down the downstream
/// links from its entry, and into the nodes every composite response on
/// the way fetches its fields from (and theirs). A scripted route answers
/// at its own node, so it adds none.
pub fn passes(model: &Model, source: usize, node: usize) -> bool {
    let Some(s) = model.sources.get(source) else {
        return false;
    };
    let mut seen = vec![false; model.nodes.len()];
    let mut todo = vec![s.entry];
    while let Some(n) = todo.pop() {
        if n == node {
            return true;
        }
        match (seen.get_mut(n), model.nodes.get(n)) {
            (Some(seen @ false), Some(spec)) => {
                *seen = true;
                todo.extend(spec.downstream);
                if let Some(c) = &spec.composite {
                    todo.extend(c.fields.iter().map(|f| f.source));
                }
            }
            _ => continue,
        }
    }
    false
}

/// The requests through `node`, completed and dropped per slot: those of
/// the sources whose paths may pass it ([`passes`]). The system's counters
/// when every source passes it (or the model has one source), their sum
/// over those sources otherwise.
pub fn goodput_through<'a>(
    model: &Model,
    obs: &'a Observations,
    node: usize,
) -> (Cow<'a, [u32]>, Cow<'a, [u32]>) {
    let through: Vec<usize> = (0..model.sources.len())
        .filter(|&s| passes(model, s, node))
        .collect();
    if obs.source_ends.len() != model.sources.len() || through.len() == model.sources.len() {
        return (
            Cow::Borrowed(&obs.completed[..]),
            Cow::Borrowed(&obs.dropped[..]),
        );
    }
    let mut done = vec![0u32; obs.completed.len()];
    let mut dropped = vec![0u32; obs.dropped.len()];
    for s in through {
        let (c, d) = &obs.source_ends[s];
        for (sum, x) in done.iter_mut().zip(c) {
            *sum += x;
        }
        for (sum, x) in dropped.iter_mut().zip(d) {
            *sum += x;
        }
    }
    (Cow::Owned(done), Cow::Owned(dropped))
}

/// The verdict on `node` after the fault over ticks `fault`, calls within
/// `threshold`: [`crate::bins::recovery_verdict`] on the node's calls and
/// the requests through it.
pub fn node_verdict(
    model: &Model,
    obs: &Observations,
    node: usize,
    fault: (u64, u64),
    threshold: f64,
) -> Option<crate::bins::Recovery> {
    let calls = &obs.nodes.get(node)?.calls;
    let (completed, dropped) = goodput_through(model, obs, node);
    let g = Goodput {
        completed: &completed,
        dropped: &dropped,
    };
    Some(crate::bins::recovery_verdict(
        &obs.slots,
        calls,
        Some(&g),
        fault,
        threshold,
    ))
}

impl Study<'_> {
    /// True when `e` has no value in replication `r` because a recovery in
    /// it never came (the node stayed overloaded or starved to the run's
    /// end), not because the value means nothing in the run.
    pub(crate) fn never_reached(&self, e: &RExpr, ctx: Ctx, depth: usize, r: usize) -> bool {
        if depth > DEPTH {
            return false;
        }
        match e {
            RExpr::Call(Func::Recovery { node, fault }, args) => self
                .recovery_verdict(*node, *fault, args, ctx, depth, r)
                .is_some_and(|v| !matches!(v, crate::bins::Recovery::After(_))),
            RExpr::Call(_, args) => args
                .iter()
                .any(|a| self.never_reached(a, ctx, depth + 1, r)),
            RExpr::Measure { variant, measure } => self
                .scenario
                .report
                .measures
                .get(*measure)
                .is_some_and(|m| {
                    let run = variant.map_or(ctx.run, RunKey::Variant);
                    self.never_reached(&m.expr, Ctx { run, ..ctx }, depth + 1, r)
                }),
            RExpr::Neg(x) => self.never_reached(x, ctx, depth + 1, r),
            RExpr::Binary(_, a, b) => {
                self.never_reached(a, ctx, depth + 1, r) || self.never_reached(b, ctx, depth + 1, r)
            }
            _ => false,
        }
    }

    /// The verdict on `node` after `fault` in replication `r`, its threshold
    /// the first of `args`; `None` when the run has no such fault or node.
    pub(crate) fn recovery_verdict(
        &self,
        node: usize,
        fault: usize,
        args: &[RExpr],
        ctx: Ctx,
        depth: usize,
        r: usize,
    ) -> Option<crate::bins::Recovery> {
        let run = self.run_of(ctx.run, r)?;
        let threshold = self.eval_depth(args.first()?, ctx, depth + 1, r)?;
        let name = &self.scenario.faults.get(fault)?.name;
        let spec = run.model.faults.iter().find(|x| x.name == *name)?;
        node_verdict(&run.model, &run.obs, node, (spec.from, spec.to), threshold)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use squall_lang::{CompositeSpec, Degradation, FieldSpec, NodeSpec, SourceSpec};

    /// `api` (0) calls `db` (1) and assembles its response from a field of
    /// `profile` (2), which calls `store` (3); `cache` (4) stands alone.
    /// Source 0 enters `api`, source 1 `cache`: source 0 passes 0, 1, 2 and
    /// 3 (2 and 3 through the composite's field), not 4; source 1 passes 4
    /// alone.
    #[test]
    fn a_source_passes_its_chain_and_its_composites_fields() {
        let node = |name: &str, downstream: Option<usize>| NodeSpec {
            name: name.into(),
            downstream,
            ..Default::default()
        };
        let mut api = node("api", Some(1));
        api.composite = Some(CompositeSpec {
            fields: vec![FieldSpec {
                name: "profile".into(),
                source: 2,
                core: true,
                bytes: 1,
                timeout: None,
            }],
            marker: 0,
            policy: Degradation::AllOrNothing,
            ledger: None,
        });
        let source = |entry| SourceSpec {
            entry,
            ..Default::default()
        };
        let m = Model {
            nodes: vec![
                api,
                node("db", None),
                node("profile", Some(3)),
                node("store", None),
                node("cache", None),
            ],
            sources: vec![source(0), source(4)],
            ..Default::default()
        };
        let reached = |s: usize| -> Vec<usize> { (0..5).filter(|&n| passes(&m, s, n)).collect() };
        assert_eq!(reached(0), vec![0, 1, 2, 3]);
        assert_eq!(reached(1), vec![4]);
        // No such source passes nothing.
        assert!(!passes(&m, 2, 0));
    }
}
