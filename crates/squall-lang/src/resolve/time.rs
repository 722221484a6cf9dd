//! Time: the run's first and last tick, ranges inside it, and windows.

use super::Cx;
use crate::ast::{Mark, Range, Value, ValueKind};
use crate::decl::{Overrides, Scenario};
use crate::diagnostic::Diagnostic;
use crate::model::WindowSpec;
use crate::units;

impl Scenario {
    /// The run's first and last tick.
    pub(super) fn run_span(&self, o: &Overrides, errs: &mut Vec<Diagnostic>) -> (u64, u64) {
        if let Some(r) = &self.run_range {
            let a = self.conv(&r.start, o, |v| {
                units::ticks(v, self.clock, "the run's start")
            });
            let b = self.conv(&r.end, o, |v| units::ticks(v, self.clock, "the run's end"));
            return match (a, b) {
                (Ok(a), Ok(b)) if a <= b => (a, b),
                (Ok(a), Ok(b)) => {
                    errs.push(
                        Diagnostic::new(
                            format!("the run starts at {a} after it ends at {b}"),
                            r.span,
                        )
                        .label("empty run")
                        .help("write `run first..last`, both inclusive"),
                    );
                    (1, 0)
                }
                (a, b) => {
                    errs.extend(a.err());
                    errs.extend(b.err());
                    (1, 0)
                }
            };
        }
        let warmup = match &self.warmup {
            None => 0,
            Some(v) => match self.conv(v, o, |v| units::ticks(v, self.clock, "the warm-up")) {
                Ok(w) => w,
                Err(d) => {
                    errs.push(d);
                    0
                }
            },
        };
        match &self.run {
            None => (1, 0),
            Some(v) => match self
                .conv(v, o, |v| units::ticks(v, self.clock, "the run length"))
                .map(|t| {
                    // The measured ticks come after the warm-up.
                    if t == 0 {
                        0
                    } else {
                        t + warmup
                    }
                }) {
                Ok(0) => {
                    errs.push(
                        Diagnostic::new("the run is 0 ticks long", v.span)
                            .label("nothing to simulate"),
                    );
                    (1, 0)
                }
                Ok(t) => (1, t),
                Err(d) => {
                    errs.push(d);
                    (1, 0)
                }
            },
        }
    }

    /// A range in ticks, checked to lie inside the run.
    pub(super) fn range(&self, r: &Range, cx: &mut Cx<'_>, what: &str) -> Option<(u64, u64)> {
        let (start, end, warmup) = (cx.start, cx.ticks, cx.warmup);
        let bound = |v: &Value| match v.kind {
            ValueKind::Mark(Mark::Start) => Ok(start),
            ValueKind::Mark(Mark::End) => Ok(end),
            ValueKind::Mark(Mark::AfterWarmup) => {
                if warmup == 0 {
                    Err(
                        Diagnostic::new("`after warmup`, but the scenario has no `warmup`", v.span)
                            .label("no warm-up")
                            .help("add e.g. `warmup 2min`, or write the range out"),
                    )
                } else {
                    Ok(start + warmup)
                }
            }
            _ => self.conv(v, cx.o, |v| units::ticks(v, self.clock, what)),
        };
        let a = bound(&r.start);
        let b = bound(&r.end);
        let (a, b) = match (a, b) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                cx.errs.extend(a.err());
                cx.errs.extend(b.err());
                return None;
            }
        };
        if a > b {
            cx.errs.push(
                Diagnostic::new(format!("{what} starts at {a} after it ends at {b}"), r.span)
                    .label("empty range")
                    .help("a range is `first..last`, both inclusive"),
            );
            return None;
        }
        if cx.start > cx.ticks {
            return None; // the run itself is already reported
        }
        if a < cx.start || b > cx.ticks {
            cx.errs.push(
                Diagnostic::new(
                    format!(
                        "{what} {a}..{b} is outside the run, which covers ticks {}..{}",
                        cx.start, cx.ticks
                    ),
                    r.span,
                )
                .label("outside the run")
                .help("ticks are numbered from the first tick of `run` to its last"),
            );
            return None;
        }
        Some((a, b))
    }

    /// The file's windows, in ticks.
    pub(super) fn windows(&self, cx: &mut Cx<'_>) -> Vec<WindowSpec> {
        let mut windows = Vec::new();
        for (name, r) in &self.windows {
            if let Some((from, to)) = self.range(r, cx, &format!("window `{name}`")) {
                windows.push(WindowSpec {
                    name: name.clone(),
                    from,
                    to,
                });
            }
        }
        windows
    }
}
