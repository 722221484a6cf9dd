//! Where a report reads distinct request ids ([`distinct_reads`]): a run
//! whose only reader is its report ([`Keep::Report`](super::Keep::Report))
//! counts them at those nodes alone
//! ([`SimulationBuilder::distinct_ids_at`](squall_engine::SimulationBuilder::distinct_ids_at)),
//! which on a round model is a tenth of the walk's work (issue 23).
//!
//! Distinct ids are read by the metrics `unique`, `unique_rate` and
//! `amplification` at a node, and by a `diagnose` item at its node
//! (`crate::diagnose`: its unique ids per window); nothing else a report
//! evaluates reads them (no function does, a chart is drawn only from runs
//! kept whole). A metric's node is its own, or else its table's `at` (a
//! measure named in a table row is evaluated there, in the row's
//! context); a metric with neither reads nothing (n/a), so asks for no
//! node.

use squall_lang::{Metric, RExpr, ReportItemSpec, Scenario};

use super::reads::window_exprs;

/// The nodes at which the report of `s` reads distinct ids, in order,
/// each once.
pub fn distinct_reads(s: &Scenario) -> Vec<usize> {
    let mut at = Vec::new();
    for (e, node) in window_exprs(s) {
        reads(s, e, node, 0, &mut at);
    }
    for item in &s.report.items {
        match item {
            // Read through `window_exprs` above.
            ReportItemSpec::Table(_) | ReportItemSpec::Line(..) => {}
            ReportItemSpec::Diagnose(d) => at.push(d.node),
            // Answers, sizes and last answers (`isolation.rs`); records,
            // traces and charts, no metric of a window.
            ReportItemSpec::Isolation(_)
            | ReportItemSpec::Chart(_)
            | ReportItemSpec::Waits(_)
            | ReportItemSpec::Herd(_)
            | ReportItemSpec::Operations { .. }
            | ReportItemSpec::Trace { .. } => {}
        }
    }
    at.sort_unstable();
    at.dedup();
    at
}

/// Adds to `at` the nodes where `e`, evaluated with `node` as its
/// context's node, reads distinct ids; `depth` guards a measure that
/// names itself, as evaluation does (`crate::eval::DEPTH`).
fn reads(s: &Scenario, e: &RExpr, node: Option<usize>, depth: usize, at: &mut Vec<usize>) {
    if depth > crate::eval::DEPTH {
        return;
    }
    match e {
        RExpr::Metric {
            node: own, metric, ..
        } => {
            if matches!(
                metric,
                Metric::Unique | Metric::UniqueRate | Metric::Amplification
            ) {
                at.extend(own.or(node));
            }
        }
        RExpr::Measure { measure, .. } => {
            if let Some(m) = s.report.measures.get(*measure) {
                reads(s, &m.expr, node, depth + 1, at);
            }
        }
        RExpr::Call(_, args) => {
            for a in args {
                reads(s, a, node, depth + 1, at);
            }
        }
        RExpr::Neg(x) => reads(s, x, node, depth + 1, at),
        RExpr::Binary(_, a, b) => {
            reads(s, a, node, depth + 1, at);
            reads(s, b, node, depth + 1, at);
        }
        RExpr::Number(_) | RExpr::Param(_) | RExpr::Sending { .. } => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use squall_lang::RunKey;

    fn load(text: &str) -> Scenario {
        squall_lang::load("distinct.squall", text).unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// A round chain of four nodes whose report is `report`.
    fn chain(report: &str) -> Scenario {
        load(&format!(
            r#"scenario "chain" {{
  clock round
  run 20 rounds
  source users {{ rate 2/round  enters edge }}
  chain edge -> api -> worker -> db
  service edge, api, worker {{ retry {{ attempts 2  backoff fixed 1 round }} }}
  service db {{ capacity 3/round }}
  window early 1..10
  window late 11..20
  {report}
}}"#
        ))
    }

    /// The retry storm's report reads distinct ids at `db` alone: its
    /// tables are `at db`, its diagnosis is of `db`, its `expect` lines
    /// name `db`.
    #[test]
    fn the_storm_reads_them_at_db() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenarios/retry-storm.squall"
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        let s = load(&text);
        let db = s.model_for(RunKey::Variant(0), &[]).map_or_else(
            |e| panic!("{e:?}"),
            |m| m.nodes.iter().position(|n| n.name == "db"),
        );
        assert_eq!(distinct_reads(&s), Vec::from_iter(db));
    }

    /// Each way a report names a node: a table's `at` (also for a
    /// measure its column names), a metric's own node (in a line, an
    /// `expect` or a measure), a diagnosis; metrics other than the three
    /// read none. (A line's metric with no node is refused by the
    /// language.)
    #[test]
    fn every_way_of_naming_a_node() {
        let cases: [(&str, &[usize]); 6] = [
            (
                r#"report { table "t" { rows windows  at api  column "u" = unique_rate } }"#,
                &[1],
            ),
            (
                r#"report {
    measure m = late.amplification
    table "t" { rows windows  at worker  column "u" = m }
  }"#,
                &[2],
            ),
            (r#"report { line "x {late.edge.unique:.0}" }"#, &[0]),
            (
                r#"report { measure m = early.api.unique }
  expect late.db.amplification > 0"#,
                &[1, 3],
            ),
            (r#"report { diagnose worker in late vs early }"#, &[2]),
            (
                r#"report { table "t" { rows windows  at db  column "c" = calls / edge_rate } }"#,
                &[],
            ),
        ];
        for (report, want) in cases {
            assert_eq!(distinct_reads(&chain(report)), want, "{report}");
        }
    }
}
