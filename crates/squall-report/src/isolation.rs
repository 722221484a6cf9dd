//! `isolation`: graceful degradation of a composite response. For each
//! variant: which field sources are down (a `fail` fault that is not
//! periodic on a node a field comes from), the fields that leaves without
//! fresh values, whether one of them is core, and what the responses held
//! over the window (answered, average bytes, last answered).

use squall_lang::RunKey;

use crate::document::{Cell, Table};
use crate::study::Study;

impl Study<'_> {
    /// `isolation`: for each variant, which field sources are down (a
    /// `fail` fault that is not periodic on a node a field comes from), the
    /// fields that leaves without fresh values, whether one is core, and
    /// what the responses held over the window.
    pub fn isolation(&self, iso: &squall_lang::IsolationSpec) -> Option<Table> {
        use squall_lang::Metric;
        let s = self.scenario;
        let mut rows = Vec::new();
        for &v in &iso.variants {
            let Some(run) = self.runs.get(&RunKey::Variant(v)) else {
                continue;
            };
            let Some(c) = run
                .model
                .nodes
                .get(iso.node)
                .and_then(|n| n.composite.as_ref())
            else {
                continue;
            };
            run.model.windows.get(iso.window)?;
            let down: Vec<usize> = run
                .model
                .faults
                .iter()
                .filter(|f| {
                    f.fail.is_some()
                        && f.link.is_none()
                        && f.periodic.is_none()
                        && c.fields.iter().any(|x| x.source == f.node)
                })
                .map(|f| f.node)
                .collect();
            let mut sources: Vec<&str> = Vec::new();
            for &n in &down {
                let name = run.model.nodes[n].name.as_str();
                if !sources.contains(&name) {
                    sources.push(name);
                }
            }
            let hit: Vec<&squall_lang::FieldSpec> = c
                .fields
                .iter()
                .filter(|f| down.contains(&f.source))
                .collect();
            let m =
                |metric| crate::eval::run_window_metric(run, metric, iso.window, Some(iso.node));
            rows.push(vec![
                Cell::Text(s.variants[v].label.clone()),
                Cell::Text(if sources.is_empty() {
                    "none".into()
                } else {
                    sources.join("+")
                }),
                Cell::Text(if hit.is_empty() {
                    "—".into()
                } else {
                    hit.iter()
                        .map(|f| f.name.as_str())
                        .collect::<Vec<_>>()
                        .join("+")
                }),
                Cell::Text(
                    if hit.is_empty() {
                        "—"
                    } else if hit.iter().any(|f| f.core) {
                        "core"
                    } else {
                        "optional"
                    }
                    .into(),
                ),
                Cell::number(m(Metric::Answered), 0),
                Cell::number(m(Metric::AvgBytes), 1),
                Cell::number(m(Metric::LastAnswered), 0),
            ]);
        }
        Some(Table {
            title: iso.title.clone(),
            columns: vec![
                "case".into(),
                "source down".into(),
                "fields hit".into(),
                "class".into(),
                "answered".into(),
                "avg bytes".into(),
                "last answered".into(),
            ],
            rows,
        })
    }
}
