//! `expect` lines: each evaluated in the report's first run, with a result
//! the report lists and `squall test` checks. With `replications N`, each
//! side of a line is the mean over the replications (the same mean the
//! tables print), so a line checks the mean, not one seed's draw.
//!
//! An [`ExpectOutcome`] keeps the actual value, the value it is compared
//! with and what the line wants in words with numbers (`> 6`, `in 6..6.5`,
//! `== 6.25 ± 0.1`), so a failure says what went wrong without a second
//! look at the file.

use squall_lang::{CheckSpec, RunKey, ToleranceSpec};

use crate::eval::Ctx;
use crate::number::to_fixed;
use crate::study::Study;

/// The result of one `expect` line.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectOutcome {
    /// The line as written.
    pub text: String,
    /// Its line in the file.
    pub line: usize,
    /// The left side's value.
    pub actual: Option<f64>,
    /// The value it is compared with (the bound, or the expected value of
    /// `== x within tol`; `None` for a range or a value that is n/a).
    pub expected: Option<f64>,
    /// What the line wants, in words with numbers: `> 6`, `in 6..6.5`,
    /// `== 6.25 ± 0.1`.
    pub wanted: String,
    /// True when it holds.
    pub passed: bool,
    /// True when it names a variant this study did not run (`--variant`
    /// left it out): the line is neither passed nor failed.
    pub not_run: bool,
}

impl ExpectOutcome {
    /// A one-line account of a failure: the line as written, the actual
    /// value and what was wanted.
    pub fn failure(&self) -> String {
        if self.not_run {
            return format!(
                "`{}` not run: it names a variant this run left out",
                self.text
            );
        }
        // n/a: the left side has no number (a latency of nothing served,
        // a ratio over zero); such a line fails, whatever it compares.
        let actual = self.actual.map_or(
            "n/a (no number: a latency where nothing was served, a share of no calls)".to_string(),
            short_number,
        );
        format!(
            "`{}` failed: the value is {actual}, wanted {}",
            self.text, self.wanted
        )
    }
}

/// A number for messages: as short as it can be while telling values apart
/// (at most 6 digits after the point).
pub fn short_number(x: f64) -> String {
    let plain = format!("{x}");
    if plain.len() <= 12 {
        return plain;
    }
    let fixed = to_fixed(x, 6);
    let trimmed = fixed.trim_end_matches('0').trim_end_matches('.');
    trimmed.to_string()
}

impl Study<'_> {
    /// Evaluates every `expect` line.
    pub fn expectations(&self) -> Vec<ExpectOutcome> {
        let first = self
            .runs
            .keys()
            .next()
            .copied()
            .unwrap_or(RunKey::Variant(0));
        let ctx = Ctx {
            run: first,
            window: None,
            node: None,
        };
        self.scenario
            .report
            .expects
            .iter()
            .map(|e| {
                let actual = self.eval_mean(&e.lhs, ctx);
                let n = |x: Option<f64>| x.map_or("n/a".to_string(), short_number);
                let (expected, wanted, passed) = match &e.check {
                    CheckSpec::Compare(op, b) => {
                        let b = self.eval_mean(b, ctx);
                        let ok = matches!((actual, b), (Some(a), Some(b)) if op.eval(a, b));
                        (b, format!("{} {}", op.as_str(), n(b)), ok)
                    }
                    CheckSpec::Range(lo, hi) => {
                        let (lo, hi) = (self.eval_mean(lo, ctx), self.eval_mean(hi, ctx));
                        let ok = matches!((actual, lo, hi), (Some(a), Some(l), Some(h)) if l <= a && a <= h);
                        (None, format!("in {}..{}", n(lo), n(hi)), ok)
                    }
                    CheckSpec::Near(x, tol) => {
                        let x = self.eval_mean(x, ctx);
                        let (tol, tol_text) = match tol {
                            ToleranceSpec::Percent(p) => (
                                x.map(|x| x.abs() * p / 100.0),
                                format!("{}%", short_number(*p)),
                            ),
                            ToleranceSpec::Absolute(t) => {
                                let t = self.eval_mean(t, ctx);
                                (t, n(t))
                            }
                        };
                        let ok = matches!((actual, x, tol), (Some(a), Some(x), Some(t)) if (a - x).abs() <= t);
                        (x, format!("{} ± {tol_text}", n(x)), ok)
                    }
                };
                let not_run = self.names_a_run_left_out(e);
                ExpectOutcome {
                    text: e.text.clone(),
                    line: e.line,
                    actual: if not_run { None } else { actual },
                    expected,
                    wanted,
                    passed: passed && !not_run,
                    not_run,
                }
            })
            .collect()
    }

    /// True when an `expect` line (or a measure it uses) names a variant
    /// that has no run in this study.
    fn names_a_run_left_out(&self, e: &squall_lang::ExpectSpec) -> bool {
        let mut exprs = crate::plan::expect_exprs(e);
        let measures = &self.scenario.report.measures;
        let mut seen = vec![false; measures.len()];
        let mut named = Vec::new();
        while let Some(x) = exprs.pop() {
            crate::plan::variants_named(x, &mut named);
            measures_used(x, &mut |m| {
                if let Some(false) = seen.get(m).copied() {
                    seen[m] = true;
                    exprs.push(&measures[m].expr);
                }
            });
        }
        named
            .into_iter()
            .any(|v| !self.runs.contains_key(&RunKey::Variant(v)))
    }
}

/// Calls `f` with every measure `e` uses.
fn measures_used(e: &squall_lang::RExpr, f: &mut impl FnMut(usize)) {
    use squall_lang::RExpr;
    match e {
        RExpr::Measure { measure, .. } => f(*measure),
        RExpr::Call(_, args) => args.iter().for_each(|a| measures_used(a, f)),
        RExpr::Neg(x) => measures_used(x, f),
        RExpr::Binary(_, a, b) => {
            measures_used(a, f);
            measures_used(b, f);
        }
        RExpr::Number(_) | RExpr::Param(_) | RExpr::Metric { .. } | RExpr::Sending { .. } => {}
    }
}
