//! `trace`: a circuit breaker's decisions at one node, one table per
//! selected variant: for each call, its time, its path (for a `per path`
//! breaker), whether it was sent, the state before, the outcome and the
//! state after; then a line counting sent and blocked calls, noting rows
//! left out past the engine's trace limit.

use crate::document::{Block, Cell, Table};
use crate::study::Study;
use crate::words;

impl Study<'_> {
    /// `trace`: a breaker's decisions, per variant.
    pub fn trace(&self, title: &str, node: usize) -> Vec<Block> {
        let keys = self.per_variant_runs();
        let many = keys.len() > 1;
        let mut out = Vec::new();
        for key in keys {
            let Some(run) = self.runs.get(&key) else {
                continue;
            };
            let Some(rows) = run.obs.traces.get(node) else {
                continue;
            };
            let sent = rows.iter().filter(|r| r.sent).count();
            let blocked = rows.len() - sent;
            let paths = &run.obs.paths;
            let tick_unit = run.model.clock.unit_name();
            let scoped = rows
                .iter()
                .any(|r| !words::trace_scope(r, paths).is_empty());
            out.push(Block::Table(Table {
                title: self.titled(title, key, many),
                columns: std::iter::once(format!("time ({})", self.scenario.clock.unit_name()))
                    .chain(scoped.then(|| "path".to_string()))
                    .chain([
                        "sent".into(),
                        "state before".into(),
                        "outcome".into(),
                        "state after".into(),
                    ])
                    .collect(),
                rows: rows
                    .iter()
                    .map(|r| {
                        let mut row = vec![Cell::Number(r.time as f64, 0)];
                        if scoped {
                            row.push(Cell::Text(words::trace_scope(r, paths).into()));
                        }
                        row.extend([
                            Cell::Text(if r.sent { "yes".into() } else { "no".into() }),
                            Cell::Text(words::state(r.before).into()),
                            Cell::Text(words::trace_outcome(r, tick_unit)),
                            Cell::Text(words::state(r.after).into()),
                        ]);
                        row
                    })
                    .collect(),
            }));
            let mut text = format!(
                "`{}`: sent {sent}, blocked {blocked}",
                self.scenario.nodes[node].name
            );
            if run.obs.trace_dropped.get(node).copied().unwrap_or(0) > 0 {
                text.push_str(&format!(
                    " (only the first rows are listed; {} more were left out)",
                    run.obs.trace_dropped.get(node).copied().unwrap_or(0)
                ));
            }
            out.push(Block::text(text));
        }
        out
    }
}
