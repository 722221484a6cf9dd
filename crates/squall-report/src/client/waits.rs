//! `waits`: one row per retry, one column per backoff policy, the wait
//! before that retry in clock units. Every jittered column draws from one
//! fresh generator, in column order within a row.

use squall_lang::{Backoff, WaitsSpec};

use squall_engine::sample_wait;

use super::generator;
use crate::document::{Cell, Table};
use crate::study::Study;

impl Study<'_> {
    /// `waits`: one row per retry, one column per policy; every jittered
    /// column draws from one fresh generator, in column order within a row.
    pub fn waits(&self, w: &WaitsSpec) -> Option<Table> {
        let model = self.default_model()?;
        let policies: Vec<&(String, Backoff)> = w
            .policies
            .iter()
            .filter_map(|&i| model.backoffs.get(i))
            .collect();
        // Without its own `rng`, the table draws from the generator its
        // jittered policies name (the first that names one).
        let rng = w.rng.or_else(|| policies.iter().find_map(|(_, b)| b.rng()));
        let mut g = generator(model, rng);
        let mut prev = vec![None; policies.len()];
        let mut rows = Vec::new();
        for n in 1..=w.attempts {
            let mut row = vec![Cell::Number(f64::from(n), 0)];
            for (c, (_, b)) in policies.iter().enumerate() {
                row.push(Cell::Number(
                    sample_wait(b, n, &mut g, &mut prev[c]) as f64,
                    0,
                ));
            }
            rows.push(row);
        }
        let unit = self.scenario.clock.unit_name();
        let mut columns = vec!["retry".to_string()];
        columns.extend(
            policies
                .iter()
                .map(|(name, _)| format!("{} ({unit})", name.replace('_', " "))),
        );
        Some(Table {
            title: w.title.clone(),
            columns,
            rows,
        })
    }
}
