//! Which run each table row reads: the rule the planner and the report's
//! table layout share.

use squall_lang::{AxisSpec, ReportItemSpec, RunKey, Scenario, TableSpec};

/// The run of each row of a table, in row order (`None`: no axis gives the
/// row a run; it reads the report's default run). `includes` says which
/// variants a `variants` axis keeps.
pub fn row_runs(
    s: &Scenario,
    t: &TableSpec,
    includes: &dyn Fn(usize) -> bool,
) -> Vec<Option<RunKey>> {
    let mut rows: Vec<Option<RunKey>> = vec![None];
    for axis in &t.rows {
        let entries: Vec<Option<RunKey>> = match axis {
            AxisSpec::Variants(vs) => vs
                .iter()
                .filter(|&&v| includes(v))
                .map(|&v| Some(RunKey::Variant(v)))
                .collect(),
            AxisSpec::Windows(ws) => vec![None; ws.len()],
            AxisSpec::Sweep(i) => (0..s.sweeps[*i].point_count())
                .map(|p| Some(RunKey::Point(*i, p)))
                .collect(),
        };
        rows = rows
            .iter()
            .flat_map(|&run| entries.iter().map(move |&e| row_run(run, e)))
            .collect();
    }
    rows
}

/// The run of a row after one more axis: a sweep point on top of a variant
/// row is a run of its own; otherwise the later axis wins.
pub fn row_run(run: Option<RunKey>, axis: Option<RunKey>) -> Option<RunKey> {
    match (run, axis) {
        (Some(RunKey::Variant(v)), Some(RunKey::Point(s, p)))
        | (Some(RunKey::Point(s, p)), Some(RunKey::Variant(v))) => Some(RunKey::Cross(v, s, p)),
        (a, b) => b.or(a),
    }
}

/// The tables a sweep fills: the report's tables whose rows show sweep `s`.
pub fn sweep_tables(scenario: &Scenario, s: usize) -> Vec<&TableSpec> {
    scenario
        .report
        .items
        .iter()
        .filter_map(|item| match item {
            ReportItemSpec::Table(t) if t.rows.contains(&AxisSpec::Sweep(s)) => Some(t),
            _ => None,
        })
        .collect()
}
