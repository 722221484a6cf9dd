//! Time: the run's first and last tick, ranges inside it, and windows.

use super::Cx;
use crate::ast::{Mark, Range, Term, Value, ValueKind};
use crate::decl::{Overrides, Scenario};
use crate::diagnostic::Diagnostic;
use crate::model::WindowSpec;
use crate::units;

impl Scenario {
    /// The run's first and last tick.
    pub(super) fn run_span(&self, o: &Overrides, errs: &mut Vec<Diagnostic>) -> (u64, u64) {
        if let Some(r) = &self.run_range {
            let a = self.conv(&r.start, o, |v| {
                units::tick(v, self.clock, "the run's start")
            });
            let a = a.and_then(|a| self.add_terms(a, &r.start_terms, o, "the run's start"));
            let b = self.conv(&r.end, o, |v| units::tick(v, self.clock, "the run's end"));
            let b = b
                .and_then(|b| self.add_terms(b, &r.end_terms, o, "the run's end"))
                .and_then(|b| half_open_end(b, r));
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
            Some(v) => match self.conv(v, o, |v| units::tick(v, self.clock, "the warm-up")) {
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
                .conv(v, o, |v| units::tick(v, self.clock, "the run length"))
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
                if warmup == 0 && self.warmup.is_some() {
                    Err(Diagnostic::new(
                        "`after warmup`, but the scenario's `warmup` is 0 ticks, so there is nothing to come after",
                        v.span,
                    )
                    .label("the warm-up is empty")
                    .help("write the range out (`start..end`), or give a warm-up longer than a tick"))
                } else if warmup == 0 {
                    Err(
                        Diagnostic::new("`after warmup`, but the scenario has no `warmup`", v.span)
                            .label("no warm-up")
                            .help("add e.g. `warmup 2min`, or write the range out"),
                    )
                } else {
                    Ok(start + warmup)
                }
            }
            _ => self.conv(v, cx.o, |v| units::tick(v, self.clock, what)),
        };
        let a = bound(&r.start).and_then(|a| self.add_terms(a, &r.start_terms, cx.o, what));
        let b = bound(&r.end)
            .and_then(|b| self.add_terms(b, &r.end_terms, cx.o, what))
            .and_then(|b| half_open_end(b, r));
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

    /// `tick` plus and minus the ticks of `terms` (`$start - 1`, `end - 30s`).
    fn add_terms(
        &self,
        tick: u64,
        terms: &[Term],
        o: &Overrides,
        what: &str,
    ) -> Result<u64, Diagnostic> {
        let mut at = tick;
        for Term { minus, value } in terms {
            let d = self.conv(value, o, |v| units::tick(v, self.clock, what))?;
            at = if *minus {
                at.checked_sub(d).ok_or_else(|| {
                    Diagnostic::new(format!("{what} is {at} - {d}, before tick 0"), value.span)
                        .label("subtracts too much")
                })?
            } else {
                at.saturating_add(d)
            };
        }
        Ok(at)
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

/// The last tick of `r` given its written end `b`: `b` itself, or for
/// `a..<b` the tick before it.
fn half_open_end(b: u64, r: &Range) -> Result<u64, Diagnostic> {
    if !r.half_open {
        return Ok(b);
    }
    b.checked_sub(1).ok_or_else(|| {
        Diagnostic::new("a range `..<0` holds no tick", r.span)
            .label("empty range")
            .help("`a..<b` covers the ticks from `a` up to but not including `b`")
    })
}
