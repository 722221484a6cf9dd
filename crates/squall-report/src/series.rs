//! Per-tick series as CSV, and a chart of one node's calls as SVG (drawn
//! by [`crate::chart`]). Same study, same bytes.

use std::fmt::Write as _;

use squall_lang::Metric;

use crate::chart::MAX_BINS;
use crate::study::Study;

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

impl Study<'_> {
    /// Every variant's per-tick counters: one row per run and tick, with the
    /// system's arrivals, completions and drops, then each node's calls,
    /// served, failed, refused and blocked calls.
    pub fn series_csv(&self) -> String {
        let mut out = String::from("run,tick,arrivals,completed,dropped,first_try_ok");
        for n in &self.scenario.nodes {
            for what in ["calls", "served", "failed", "refused", "blocked"] {
                let _ = write!(out, ",{}", csv_field(&format!("{}.{what}", n.name)));
            }
        }
        out.push('\n');
        for key in self.variant_runs() {
            let Some(run) = self.runs.get(&key) else {
                continue;
            };
            let label = csv_field(&self.run_label(key));
            let o = &run.obs;
            for t in run.model.start..=run.model.ticks {
                let i = t as usize;
                let _ = write!(
                    out,
                    "{label},{t},{},{},{},{}",
                    o.arrivals[i], o.completed[i], o.dropped[i], o.first_try[i]
                );
                for s in &o.nodes {
                    let _ = write!(
                        out,
                        ",{},{},{},{},{}",
                        s.calls[i], s.ok[i], s.failed[i], s.refused[i], s.blocked[i]
                    );
                }
                out.push('\n');
            }
        }
        out
    }

    /// A line chart of the calls per tick `node` sees, one line per
    /// variant, binned to at most [`MAX_BINS`] bins, every one-off fault
    /// window shaded (what `squall run --chart` writes).
    pub fn chart_svg(&self, node: usize) -> String {
        self.binned(Metric::CallRate, node, MAX_BINS).to_svg()
    }
}
