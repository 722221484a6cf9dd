//! What a report reads of its runs: whether it reads them per tick, whether
//! it draws breaker state, and the expressions and variants its items name.

use squall_lang::{
    ChartSeries, CheckSpec, Func, LinePart, Metric, RExpr, ReportItemSpec, Scenario, ToleranceSpec,
};

/// True when the report reads a run per tick, not only by window: a
/// `diagnose` item (its recovery reads bins of calls), or an expression
/// with `recovery`, `peak`, `peak_tick` or the metric `peak_to_mean`. Such a
/// study keeps every run's series.
pub fn reads_ticks(s: &Scenario) -> bool {
    fn uses(e: &RExpr) -> bool {
        match e {
            RExpr::Call(f, args) => {
                matches!(
                    f,
                    Func::Recovery { .. } | Func::Peak { .. } | Func::PeakTick { .. }
                ) || args.iter().any(uses)
            }
            RExpr::Neg(x) => uses(x),
            RExpr::Binary(_, a, b) => uses(a) || uses(b),
            RExpr::Metric { metric, .. } => *metric == Metric::PeakToMean,
            RExpr::Measure { .. } | RExpr::Number(_) | RExpr::Param(_) | RExpr::Sending { .. } => {
                false
            }
        }
    }
    let mut exprs: Vec<&RExpr> = Vec::new();
    for item in &s.report.items {
        match item {
            ReportItemSpec::Table(t) => exprs.extend(t.columns.iter().map(|c| &c.expr)),
            ReportItemSpec::Line(parts, _) => exprs.extend(parts.iter().filter_map(|p| match p {
                LinePart::Value(e, _) => Some(e),
                _ => None,
            })),
            ReportItemSpec::Diagnose(_) => return true,
            _ => {}
        }
    }
    exprs.extend(s.report.measures.iter().map(|m| &m.expr));
    for e in &s.report.expects {
        exprs.extend(expect_exprs(e));
    }
    exprs.into_iter().any(uses)
}

/// Whether a `chart` item of `s` draws a node's breaker state over time,
/// which only the engine's breaker log
/// ([`SimulationBuilder::breaker_log`]) can tell: a run keeps that log only
/// then.
pub(super) fn draws_breaker_state(s: &Scenario) -> bool {
    s.report.items.iter().any(|i| {
        matches!(
            i,
            ReportItemSpec::Chart(c) if matches!(
                c.series,
                Some(ChartSeries::BreakerState | ChartSeries::BreakerOpen | ChartSeries::BreakerHalfOpen)
            )
        )
    })
}

/// Every expression a report evaluates per named window, with the node
/// its bare metrics refer to: its tables' columns (their `at`), its
/// lines' values, its measures and its `expect` lines (no node). What a
/// run must record or count for its report is read from these, and from
/// the items that read a run otherwise (`diagnose`, `isolation`), which
/// each planner treats on its own.
pub(super) fn window_exprs(s: &Scenario) -> Vec<(&RExpr, Option<usize>)> {
    let mut exprs = Vec::new();
    for item in &s.report.items {
        match item {
            ReportItemSpec::Table(t) => exprs.extend(t.columns.iter().map(|c| (&c.expr, t.at))),
            ReportItemSpec::Line(parts, _) => exprs.extend(parts.iter().filter_map(|p| match p {
                LinePart::Value(e, _) => Some((e, None)),
                _ => None,
            })),
            _ => {}
        }
    }
    exprs.extend(s.report.measures.iter().map(|m| (&m.expr, None)));
    for e in &s.report.expects {
        exprs.extend(expect_exprs(e).into_iter().map(|x| (x, None)));
    }
    exprs
}

/// The expressions of an `expect` line: its left side, and its bound,
/// range or target and tolerance.
pub(crate) fn expect_exprs(e: &squall_lang::ExpectSpec) -> Vec<&RExpr> {
    let mut exprs = vec![&e.lhs];
    match &e.check {
        CheckSpec::Compare(_, b) => exprs.push(b),
        CheckSpec::Range(lo, hi) => exprs.extend([lo, hi]),
        CheckSpec::Near(x, tol) => {
            exprs.push(x);
            if let ToleranceSpec::Absolute(t) = tol {
                exprs.push(t);
            }
        }
    }
    exprs
}

/// Every variant `e` names explicitly (`storm.during.db.calls`).
pub(crate) fn variants_named(e: &RExpr, out: &mut Vec<usize>) {
    match e {
        RExpr::Metric { variant, .. }
        | RExpr::Measure { variant, .. }
        | RExpr::Sending { variant, .. } => out.extend(*variant),
        RExpr::Call(_, args) => args.iter().for_each(|a| variants_named(a, out)),
        RExpr::Neg(x) => variants_named(x, out),
        RExpr::Binary(_, a, b) => {
            variants_named(a, out);
            variants_named(b, out);
        }
        RExpr::Number(_) | RExpr::Param(_) => {}
    }
}
