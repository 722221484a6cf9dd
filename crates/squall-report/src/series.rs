//! Per-tick series as CSV, and a chart of one node's calls as SVG.
//!
//! Both are plain text built by hand, so the same study always gives the
//! same bytes.

use std::fmt::Write as _;

use squall_lang::RunKey;

use crate::number::to_fixed;
use crate::study::Study;

/// Colours of the chart's lines, one per run in order.
const PALETTE: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
];

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

impl Study<'_> {
    /// The variant runs of the study, in order (sweep points are left out).
    fn variant_runs(&self) -> Vec<RunKey> {
        self.runs
            .keys()
            .copied()
            .filter(|k| matches!(k, RunKey::Variant(v) if self.includes_variant(*v)))
            .collect()
    }

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

    /// A line chart of the calls `node` sees per tick, one line per variant,
    /// with every fault window of the runs shaded.
    pub fn chart_svg(&self, node: usize) -> String {
        const W: f64 = 860.0;
        const H: f64 = 380.0;
        const LEFT: f64 = 60.0;
        const RIGHT: f64 = 180.0;
        const TOP: f64 = 40.0;
        const BOTTOM: f64 = 50.0;
        let runs: Vec<RunKey> = self.variant_runs();
        let Some(first) = runs.first().and_then(|k| self.runs.get(k)) else {
            return String::new();
        };
        let (start, end) = (
            first.model.start,
            first.model.ticks.max(first.model.start + 1),
        );
        let max = runs
            .iter()
            .filter_map(|k| self.runs.get(k))
            .flat_map(|r| {
                r.obs.nodes.get(node).map(|s| {
                    s.calls[r.model.start as usize..=r.model.ticks as usize]
                        .iter()
                        .copied()
                        .max()
                        .unwrap_or(0)
                })
            })
            .max()
            .unwrap_or(0)
            .max(1) as f64;
        // Round the top of the axis up to 1, 2 or 5 times a power of ten.
        let max = {
            let p = 10f64.powf(max.log10().floor());
            [1.0, 2.0, 5.0, 10.0]
                .iter()
                .map(|m| m * p)
                .find(|v| *v >= max)
                .unwrap_or(max)
        };
        let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
        let x = |t: u64| LEFT + (t - start) as f64 / (end - start) as f64 * pw;
        let y = |v: f64| TOP + ph - v / max * ph;
        let f1 = |v: f64| to_fixed(v, 1);
        let unit = self.scenario.clock.unit_name();
        let name = &self.scenario.nodes[node].name;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" font-family=\"sans-serif\" font-size=\"12\">"
        );
        let _ = writeln!(
            s,
            "<rect width=\"{W}\" height=\"{H}\" fill=\"white\" stroke=\"none\"/>"
        );
        let _ = writeln!(
            s,
            "<text x=\"{LEFT}\" y=\"22\" font-size=\"15\">{}: calls per {unit} at `{}`</text>",
            xml(&self.scenario.name),
            xml(name)
        );
        // Fault windows, once each.
        let mut shaded: Vec<(u64, u64, String)> = Vec::new();
        for k in &runs {
            if let Some(r) = self.runs.get(k) {
                for f in &r.model.faults {
                    let w = (f.from, f.to, f.name.clone());
                    if f.periodic.is_none() && !shaded.contains(&w) {
                        shaded.push(w);
                    }
                }
            }
        }
        for (from, to, fname) in &shaded {
            let (x0, x1) = (x((*from).max(start)), x((*to).min(end)));
            let _ = writeln!(
                s,
                "<rect x=\"{}\" y=\"{TOP}\" width=\"{}\" height=\"{ph}\" fill=\"#f4cccc\" stroke=\"none\" opacity=\"0.6\"><title>fault {} {from}..{to}</title></rect>",
                f1(x0),
                f1((x1 - x0).max(1.0)),
                xml(fname)
            );
            let _ = writeln!(
                s,
                "<text x=\"{}\" y=\"{}\" fill=\"#a33\">{}</text>",
                f1(x0 + 3.0),
                TOP + 14.0,
                xml(fname)
            );
        }
        // Axes with five ticks each.
        let _ = writeln!(
            s,
            "<path d=\"M{LEFT} {TOP} V{} H{}\" stroke=\"black\" fill=\"none\"/>",
            TOP + ph,
            LEFT + pw
        );
        let digits = if max >= 5.0 { 0 } else { 1 };
        for i in 0..=5u64 {
            let t = start + (end - start) * i / 5;
            let v = max * i as f64 / 5.0;
            let _ = writeln!(
                s,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{t}</text>",
                f1(x(t)),
                TOP + ph + 18.0
            );
            let _ = writeln!(
                s,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                LEFT - 6.0,
                f1(y(v) + 4.0),
                to_fixed(v, digits)
            );
        }
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{unit}</text>",
            LEFT + pw / 2.0,
            H - 10.0
        );
        // One line per run.
        for (i, k) in runs.iter().enumerate() {
            let Some(r) = self.runs.get(k) else { continue };
            let Some(series) = r.obs.nodes.get(node) else {
                continue;
            };
            let colour = PALETTE[i % PALETTE.len()];
            let mut d = String::new();
            for t in r.model.start..=r.model.ticks {
                let _ = write!(
                    d,
                    "{}{} {}",
                    if d.is_empty() { "M" } else { " L" },
                    f1(x(t)),
                    f1(y(f64::from(series.calls[t as usize])))
                );
            }
            let _ = writeln!(
                s,
                "<path d=\"{d}\" stroke=\"{colour}\" fill=\"none\" stroke-width=\"1.5\"/>"
            );
            let ly = TOP + 10.0 + 18.0 * i as f64;
            let _ = writeln!(
                s,
                "<line x1=\"{}\" y1=\"{ly}\" x2=\"{}\" y2=\"{ly}\" stroke=\"{colour}\" stroke-width=\"3\"/><text x=\"{}\" y=\"{}\">{}</text>",
                W - RIGHT + 15.0,
                W - RIGHT + 35.0,
                W - RIGHT + 40.0,
                ly + 4.0,
                xml(&self.run_label(*k))
            );
        }
        s.push_str("</svg>\n");
        s
    }
}
