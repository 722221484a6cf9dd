//! `operations`: each operation of a sequential source (`sequential { op
//! ... }`), one table per selected variant: its tries, its outcome and the
//! waits between its tries, then a line with every wait recorded and how
//! many operations had not finished when the run ended.

use crate::document::{Block, Cell, Table};
use crate::study::Study;
use crate::words;

impl Study<'_> {
    /// `operations`: each operation of a sequential source, per variant.
    pub fn operations(&self, title: &str, source: usize) -> Vec<Block> {
        let keys = self.per_variant_runs();
        let many = keys.len() > 1;
        let unit = self.scenario.clock.unit_name();
        let mut out = Vec::new();
        for key in keys {
            let Some(run) = self.runs.get(&key) else {
                continue;
            };
            let Some(ops) = run.obs.ops.get(source) else {
                continue;
            };
            let tick_unit = run.model.clock.unit_name();
            let rows = ops
                .iter()
                .map(|op| {
                    vec![
                        Cell::Text(op.label.clone()),
                        Cell::Number(f64::from(op.tries), 0),
                        Cell::Text(words::answer(op.answer, tick_unit)),
                        Cell::Text(if op.waits.is_empty() {
                            "—".into()
                        } else {
                            op.waits
                                .iter()
                                .map(u64::to_string)
                                .collect::<Vec<_>>()
                                .join(", ")
                        }),
                    ]
                })
                .collect();
            out.push(Block::Table(Table {
                title: self.titled(title, key, many),
                columns: vec![
                    "operation".into(),
                    "tries".into(),
                    "outcome".into(),
                    format!("waits ({unit})"),
                ],
                rows,
            }));
            let all: Vec<String> = ops
                .iter()
                .flat_map(|o| o.waits.iter().map(u64::to_string))
                .collect();
            let planned = match &run.model.sources.get(source).map(|s| &s.schedule) {
                Some(squall_lang::Schedule::Sequential(list)) => list.len(),
                _ => ops.len(),
            };
            let mut text = format!(
                "all waits recorded ({unit}): {}",
                if all.is_empty() {
                    "none".to_string()
                } else {
                    all.join(", ")
                }
            );
            if ops.len() < planned {
                text.push_str(&format!(
                    "; {} of {planned} operations had not finished when the run ended",
                    planned - ops.len()
                ));
            }
            out.push(Block::text(text));
        }
        out
    }
}
