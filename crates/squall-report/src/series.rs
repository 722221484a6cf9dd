//! Per-tick series as CSV (written with the `csv` crate), and a chart of one node's calls as SVG (drawn
//! by [`crate::chart`]). Same study, same bytes.

use squall_lang::Metric;

use crate::chart::MAX_BINS;
use crate::study::Study;
use crate::{csv, escape};

impl Study<'_> {
    /// Every variant's per-tick counters: one row per run and tick, with the
    /// system's arrivals, completions and drops, then each node's calls,
    /// served, failed, refused and blocked calls.
    pub fn series_csv(&self) -> String {
        let mut w = csv::writer();
        let mut header: Vec<String> = [
            "run",
            "tick",
            "arrivals",
            "completed",
            "dropped",
            "first_try_ok",
        ]
        .map(String::from)
        .to_vec();
        for n in &self.scenario.nodes {
            for what in ["calls", "served", "failed", "refused", "blocked"] {
                header.push(escape::csv_text(&format!("{}.{what}", n.name)));
            }
        }
        let _ = w.write_record(&header);
        let mut row: Vec<String> = Vec::with_capacity(header.len());
        for key in self.variant_runs() {
            let Some(run) = self.runs.get(&key) else {
                continue;
            };
            let label = escape::csv_text(&self.run_label(key));
            let o = &run.obs;
            for t in run.model.start..=run.model.ticks {
                let i = t as usize;
                row.clear();
                row.push(label.clone());
                row.push(t.to_string());
                for v in [o.arrivals[i], o.completed[i], o.dropped[i], o.first_try[i]] {
                    row.push(v.to_string());
                }
                for s in &o.nodes {
                    for v in [s.calls[i], s.ok[i], s.failed[i], s.refused[i], s.blocked[i]] {
                        row.push(v.to_string());
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
