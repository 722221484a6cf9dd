//! A recovery's verdict in one replication, and whether a value is n/a
//! because a recovery in it never came (a replicated cell's
//! `never (k of n)`).

use squall_lang::{Func, RExpr, RunKey};

use crate::eval::{goodput, Ctx, DEPTH};
use crate::study::Study;

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
        let calls = &run.obs.nodes.get(node)?.calls;
        Some(crate::bins::recovery_verdict(
            &run.obs.slots,
            calls,
            Some(&goodput(&run.obs)),
            (spec.from, spec.to),
            threshold,
        ))
    }
}
