//! Faults: the ticks a fault covers, its periodic strikes, and one fault
//! per node it names.

use super::Cx;
use crate::ast::Value;
use crate::decl::Scenario;
use crate::diagnostic::Diagnostic;
use crate::model::{FaultSpec, Periodic};
use crate::units;

impl Scenario {
    /// The run's faults, those its overrides remove left out.
    pub(super) fn faults(&self, cx: &mut Cx<'_>) -> Vec<FaultSpec> {
        let o = cx.o;
        let mut faults = Vec::new();
        for (i, f) in self.faults.iter().enumerate() {
            if o.without.contains(&i) {
                continue;
            }
            let span = self.range(&f.during, cx, "the fault's range");
            let capacity = f.capacity.as_ref().and_then(|v| {
                cx.keep(self.conv(v, o, |v| units::whole_per_tick(v, self.clock, "a capacity")))
            });
            let fail = f.fail.as_ref().and_then(|r| self.response(r, cx));
            let timed = self.timed_fault(&f.timed, cx);
            // A workers fault holds for a stretch (the pool changes at its
            // first tick and back after its last); a periodic one would
            // strike single ticks, which a pool's size cannot follow.
            let workers = f.timed.iter().find(|t| t.key.name == "workers");
            if let (Some(_), Some(w)) = (&f.every, workers) {
                cx.errs.push(
                    Diagnostic::new(
                        format!("fault `{}` changes `workers` and strikes periodically", f.name),
                        w.span,
                    )
                    .label("holds from the fault's first tick to the end of its last")
                    .help(
                        "a periodic fault strikes single ticks, and a pool's workers change for a stretch: give this fault `during` and no `every`",
                    ),
                );
            }
            if let Some((from, to)) = span {
                let periodic = f.every.as_ref().and_then(|x| {
                    let t = |cx: &mut Cx<'_>, v: &Value, what: &str| {
                        cx.keep(self.conv(v, o, |v| units::ticks(v, self.clock, what)))
                    };
                    let every = t(cx, &x.every, "a period")?;
                    if every == 0 {
                        cx.errs.push(
                            Diagnostic::new("a period of 0 ticks strikes never", x.every.span)
                                .label("zero period"),
                        );
                        return None;
                    }
                    let phase = match &x.phase {
                        Some(v) => t(cx, v, "a phase")?,
                        None => 0,
                    };
                    let step = match &x.step {
                        Some(v) => t(cx, v, "a phase step")?,
                        None => 0,
                    };
                    Some(Periodic { every, phase, step })
                });
                // A fault on several nodes strikes each of them alike.
                for (k, &node) in f.nodes.iter().enumerate() {
                    faults.push(FaultSpec {
                        periodic,
                        name: f.name.clone(),
                        node,
                        replica: None,
                        link: f.callers.get(k).copied().flatten(),
                        from,
                        to,
                        capacity,
                        fail: fail.clone(),
                        timed: timed.clone(),
                    });
                }
            }
        }
        faults
    }
}
