//! Series per tick (per bin on a run that takes time) as CSV (written with the `csv` crate), and a chart of one node's calls as SVG (drawn
//! by [`crate::chart`]). Same study, same bytes.

use squall_lang::Metric;

use crate::chart::MAX_BINS;
use crate::study::Study;
use crate::{csv, escape};

impl Study<'_> {
    /// Every variant's counters: one row per run and tick, with the
    /// system's arrivals, completions and drops, then each node's calls,
    /// served, failed, refused and blocked calls. A run that takes time
    /// counts in the bins of its series: its rows are its bins, and the
    /// `tick` column gives way to each bin's first and last tick.
    pub fn series_csv(&self) -> String {
        let keys = self.variant_runs();
        let binned = keys
            .iter()
            .filter_map(|k| self.runs.get(k))
            .any(|r| !r.obs.slots.is_per_tick());
        let mut w = csv::writer();
        let ticks: &[&str] = if binned {
            &["first_tick", "last_tick"]
        } else {
            &["tick"]
        };
        let mut header: Vec<String> = vec!["run".to_string()];
        header.extend(ticks.iter().map(|t| t.to_string()));
        header.extend(
            ["arrivals", "completed", "dropped", "first_try_ok"]
                .iter()
                .map(|t| t.to_string()),
        );
        for n in &self.scenario.nodes {
            for what in ["calls", "served", "failed", "refused", "blocked"] {
                header.push(escape::csv_text(&format!("{}.{what}", n.name)));
            }
        }
        let _ = w.write_record(&header);
        let mut row: Vec<String> = Vec::with_capacity(header.len());
        for key in keys {
            let Some(run) = self.runs.get(&key) else {
                continue;
            };
            let label = escape::csv_text(&self.run_label(key));
            let o = &run.obs;
            let rows: Vec<(u64, u64)> = if o.slots.is_per_tick() {
                (run.model.start..=run.model.ticks)
                    .map(|t| (t, t))
                    .collect()
            } else {
                (0..o.slots.bins()).map(|b| o.slots.bin_ticks(b)).collect()
            };
            for (from, to) in rows {
                let sum = |s: &[u32]| o.total(s, from, to);
                row.clear();
                row.push(label.clone());
                row.push(from.to_string());
                if binned {
                    row.push(to.to_string());
                }
                for v in [&o.arrivals, &o.completed, &o.dropped, &o.first_try] {
                    row.push(sum(v).to_string());
                }
                for s in &o.nodes {
                    for v in [&s.calls, &s.ok, &s.failed, &s.refused, &s.blocked] {
                        row.push(sum(v).to_string());
                    }
                }
                let _ = w.write_record(&row);
            }
        }
        csv::finish(w)
    }

    /// A line chart of the calls per tick `node` sees, one line per
    /// variant, binned to at most [`MAX_BINS`] bins, every one-off fault
    /// window shaded (what `squall run --chart` writes).
    pub fn chart_svg(&self, node: usize) -> String {
        self.binned(Metric::CallRate, node, MAX_BINS).to_svg()
    }
}
