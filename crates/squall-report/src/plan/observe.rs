//! What a report reads of a run's timed measures ([`Observe`]): the
//! engine records only that when the run is reduced for the report
//! ([`Keep::Report`](super::Keep::Report)), and everything otherwise.
//!
//! The same idea as [`reads_ticks`], one level deeper: a report whose
//! items are tables and lines (with its measures and `expect` lines) reads
//! each run by named window alone, through the metrics its expressions
//! name; each metric reads one of the timed measures or none
//! ([`needs`](crate::observed::needs)). An `isolation` item reads three metrics; charts are drawn
//! only from runs kept whole; the waits, herd, operations and trace items
//! read no timed measure. A `diagnose` item, or a report that reads per
//! tick, keeps everything.

use squall_engine::Observe;
use squall_lang::{Metric, RExpr, ReportItemSpec, Scenario};

use super::reads::{reads_ticks, window_exprs};
use crate::observed::needs;

/// What the report of `s` reads of each run's timed measures, when runs
/// are reduced to what the report reads.
pub fn observes(s: &Scenario) -> Observe {
    if reads_ticks(s) {
        return Observe::EVERYTHING;
    }
    let mut isolation = Observe::COUNTS;
    for item in &s.report.items {
        match item {
            // Read through `window_exprs` below.
            ReportItemSpec::Table(_) | ReportItemSpec::Line(..) => {}
            // Its verdicts read bins and levels (`saturation`); it makes
            // `reads_ticks` true as well.
            ReportItemSpec::Diagnose(_) => return Observe::EVERYTHING,
            // Its table reads these three metrics of its window.
            ReportItemSpec::Isolation(_) => {
                isolation = [Metric::Answered, Metric::AvgBytes, Metric::LastAnswered]
                    .into_iter()
                    .fold(isolation, |o, m| o.union(needs(m)));
            }
            // Charts are drawn only with `--charts` or `--html`, from runs
            // kept whole (`Keep::Everything`), which record everything;
            // the waits, herd, operations and trace items read the
            // requests' records and breaker traces, no timed measure.
            ReportItemSpec::Chart(_)
            | ReportItemSpec::Waits(_)
            | ReportItemSpec::Herd(_)
            | ReportItemSpec::Operations { .. }
            | ReportItemSpec::Trace { .. } => {}
        }
    }
    window_exprs(s)
        .into_iter()
        .fold(isolation, |o, (e, _)| o.union(expr_needs(e)))
}

/// What expression `e` reads of a run's timed measures.
fn expr_needs(e: &RExpr) -> Observe {
    match e {
        // One replica's metrics are kept apart, on the run's own request
        // (`builder` in `plan/mod.rs`): not the service's measures.
        RExpr::Metric {
            replica: Some(_), ..
        } => Observe::COUNTS,
        RExpr::Metric { metric, .. } => needs(*metric),
        RExpr::Call(_, args) => args
            .iter()
            .fold(Observe::COUNTS, |o, a| o.union(expr_needs(a))),
        RExpr::Neg(x) => expr_needs(x),
        RExpr::Binary(_, a, b) => expr_needs(a).union(expr_needs(b)),
        // A measure's own expression is among the report's measures.
        RExpr::Measure { .. } | RExpr::Number(_) | RExpr::Param(_) | RExpr::Sending { .. } => {
            Observe::COUNTS
        }
    }
}
