//! The checks of `expect` lines: comparisons, ranges and `near` with a
//! tolerance, quantities with units converted to ticks of the file's clock.

use crate::ast::*;
use crate::diagnostic::Diagnostic;
use crate::model::*;
use crate::span::Span;

use super::{Context, Names, Needs, Validator};
use crate::decl::Scenario;

impl Validator {
    /// Resolves the check of an `expect` line; quantities with units become
    /// numbers in ticks of the file's clock.
    pub(super) fn expect_check(
        &mut self,
        names: &Names<'_>,
        ctx: Context,
        clock: Clock,
        check: &ExpectCheck,
    ) -> Option<CheckSpec> {
        match check {
            ExpectCheck::Compare(op, b) => {
                let b = self.bound(names, ctx, clock, b)?;
                Some(CheckSpec::Compare(*op, b))
            }
            ExpectCheck::Range(lo, hi) => {
                let lo = self.bound(names, ctx, clock, lo);
                let hi = self.bound(names, ctx, clock, hi);
                let (lo, hi) = (lo?, hi?);
                if let (RExpr::Number(a), RExpr::Number(b)) = (&lo, &hi) {
                    if a > b {
                        let span = match check {
                            ExpectCheck::Range(l, h) => bound_span(l).join(bound_span(h)),
                            _ => Span::DETACHED,
                        };
                        self.err(
                            Diagnostic::new(
                                format!("the range {a}..{b} is empty: it starts above its end"),
                                span,
                            )
                            .label("empty range")
                            .help("write the lower bound first, as in `in 6.0..6.5`"),
                        );
                        return None;
                    }
                }
                Some(CheckSpec::Range(lo, hi))
            }
            ExpectCheck::Near(expected, tol) => {
                let expected = self.bound(names, ctx, clock, expected);
                let tol = match tol {
                    Tolerance::Percent(p, span) if *p < 0.0 => {
                        self.err(negative_tolerance(
                            *span,
                            "write it without the sign, e.g. `within 5%`",
                        ));
                        None
                    }
                    Tolerance::Percent(p, span) => {
                        if !p.is_finite() || *p > 100.0 {
                            self.err(
                                Diagnostic::new(
                                    format!("a tolerance of {p}% is more than the whole value"),
                                    *span,
                                )
                                .label("at most 100%"),
                            );
                            None
                        } else {
                            Some(ToleranceSpec::Percent(*p))
                        }
                    }
                    Tolerance::Absolute(b) => {
                        let t = self.bound(names, ctx, clock, b);
                        if t.as_ref().and_then(constant).is_some_and(|x| x < 0.0) {
                            self.err(negative_tolerance(
                                bound_span(b),
                                "write it without the sign, e.g. `within 0.5`",
                            ));
                            None
                        } else {
                            t.map(ToleranceSpec::Absolute)
                        }
                    }
                };
                Some(CheckSpec::Near(expected?, tol?))
            }
        }
    }

    pub(super) fn bound(
        &mut self,
        names: &Names<'_>,
        ctx: Context,
        clock: Clock,
        b: &Bound,
    ) -> Option<RExpr> {
        match b {
            Bound::Expr(e) => {
                let (r, needs) = self.expr(names, e)?;
                self.check_context(needs, ctx, e.span);
                Some(r)
            }
            Bound::Quantity(v) => match crate::units::quantity(v, clock) {
                Ok(x) => Some(RExpr::Number(x)),
                Err(d) => {
                    self.err(d);
                    None
                }
            },
        }
    }
}

/// The value of a tolerance written as a number (`0.5`, `-0.5`), if it is one.
fn constant(e: &RExpr) -> Option<f64> {
    match e {
        RExpr::Number(x) => Some(*x),
        RExpr::Neg(inner) => constant(inner).map(|x| -x),
        _ => None,
    }
}

/// A tolerance below zero: `==` within it could never hold.
fn negative_tolerance(span: Span, help: &str) -> Diagnostic {
    Diagnostic::new(
        "a tolerance is a distance from the expected value, never negative: `== x within -t` could never hold",
        span,
    )
    .label("negative tolerance")
    .help(help.to_string())
}

/// The span of a bound as written.
fn bound_span(b: &Bound) -> Span {
    match b {
        Bound::Expr(e) => e.span,
        Bound::Quantity(v) => v.span,
    }
}

impl Validator {
    /// Resolves the `expect` lines into `report`.
    pub(super) fn expects(
        &mut self,
        ast: &ScenarioAst,
        s: &Scenario,
        measures: &[(String, RExpr, Needs)],
        report: &mut ReportSpec,
    ) {
        let Scenario {
            variants,
            windows,
            nodes,
            faults,
            params,
            sweeps,
            ..
        } = s;
        let clock = s.clock;
        for item in &ast.items {
            if let Item::Expect(e) = item {
                let names = Names {
                    variants,
                    windows,
                    nodes,
                    faults,
                    measures,
                    params,
                    sweeps,
                    senders: &s.senders,
                    clock,
                };
                let ctx = Context {
                    variant: variants.len() == 1,
                    window: false,
                    node: false,
                    what: "an `expect` line",
                };
                let lhs = self.expr(&names, &e.lhs);
                let check = self.expect_check(&names, ctx, clock, &e.check);
                if let (Some((l, ln)), Some(check)) = (lhs, check) {
                    self.check_context(ln, ctx, e.lhs.span);
                    report.expects.push(ExpectSpec {
                        lhs: l,
                        check,
                        text: expect_text(self.source.get(e.span.start..e.span.end).unwrap_or("")),
                        line: e.span.line_col(&self.source).0,
                    });
                }
            }
        }
    }
}

/// The text of an `expect` line as written: the span of a check that ends
/// in a plain number runs on over the comments after it, which are not
/// part of it.
fn expect_text(span: &str) -> String {
    let mut lines = span.lines();
    let mut out = lines.next().unwrap_or("").trim_end().to_string();
    for l in lines.take_while(|l| !l.trim_start().starts_with('#')) {
        out.push('\n');
        out.push_str(l.trim_end());
    }
    out.trim().to_string()
}
