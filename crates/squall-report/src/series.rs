//! Series per tick (per bin on a run that takes time) as CSV (written with the `csv` crate), and a chart of one node's calls as SVG (drawn
//! by [`crate::chart`]). Same study, same bytes.
//!
//! A run that takes time also has what its engine kept per bin: each
//! node's latency quantiles, its queue and service levels, its timeouts,
//! refusals and wasted work, and the end-to-end latency of every source's
//! requests, and on a node with a concurrency limiter the tries it did
//! not send (`api.limited`). They follow the counters as columns named
//! after the language's metrics, a duration with the clock's unit
//! (`db.p99_ms`, `e2e_p50_ms`); a study of round models has none of them.
//! A node with a client-side throttle has one more counter,
//! `api.rejected_locally` (the tries it rejected before sending them). A
//! study whose models have no limiter and no throttle has the columns it
//! always had.

use squall_lang::Metric;

use crate::chart::from_study::metric_name;
use crate::chart::MAX_BINS;
use crate::eval::timed_bin;
use crate::study::Study;
use crate::unit::{metric_unit, Unit};
use crate::{csv, escape};

/// End-to-end metrics per bin, in column order.
const E2E: [Metric; 3] = [Metric::E2eP50, Metric::E2eP99, Metric::E2eMean];

/// A node's metrics per engine bin, in column order.
const PER_NODE: [Metric; 21] = [
    Metric::P50,
    Metric::P90,
    Metric::P99,
    Metric::P999,
    Metric::LatencyMax,
    Metric::LatencyMean,
    Metric::QueueMean,
    Metric::QueueMax,
    Metric::QueueEnd,
    Metric::InService,
    Metric::InServiceMax,
    Metric::InFlight,
    Metric::PWait,
    Metric::Wq,
    Metric::Timeouts,
    Metric::Overflow,
    Metric::QueueTimeouts,
    Metric::Throttled,
    Metric::Cancelled,
    Metric::Wasted,
    Metric::WastedBusy,
];

/// A column's name: the metric's, a duration's with the clock's unit.
fn column(prefix: &str, m: Metric, unit: &str) -> String {
    let name = metric_name(m);
    if metric_unit(m) == Unit::Ticks {
        format!("{prefix}{name}_{unit}")
    } else {
        format!("{prefix}{name}")
    }
}

/// `m` in engine bin `b`, empty when the bin has no value (a latency of a
/// bin with no answer).
fn bin_field(o: &squall_engine::Observations, m: Metric, b: usize, node: Option<usize>) -> String {
    let Some(t) = o.timed.as_ref() else {
        return String::new();
    };
    if !crate::observed::recorded(t, m, true) {
        return String::new();
    }
    let answered = match (m, node) {
        (Metric::E2eP50 | Metric::E2eP99 | Metric::E2eMean, _) => {
            t.all.bins.get(b).map(|q| q.count)
        }
        (
            Metric::P50
            | Metric::P90
            | Metric::P99
            | Metric::P999
            | Metric::LatencyMax
            | Metric::LatencyMean,
            Some(n),
        ) => t
            .nodes
            .get(n)
            .and_then(|s| s.bins.get(b))
            .map(|s| s.latency.count),
        _ => Some(1),
    };
    if answered.unwrap_or(0) == 0 {
        return String::new();
    }
    timed_bin(o, m, b, node).map_or_else(String::new, |v| v.to_string())
}

impl Study<'_> {
    /// Every variant's counters: one row per run and tick, with the
    /// system's arrivals, completions and drops, then each node's calls,
    /// served, failed, refused and blocked calls, and on a node with a
    /// throttle the tries it rejected locally. A run that takes time
    /// counts in the bins of its series: its rows are its bins, and the
    /// `tick` column gives way to each bin's first and last tick, and
    /// the engine's per-bin metrics follow the counters (module docs).
    pub fn series_csv(&self) -> String {
        let keys = self.variant_runs();
        let binned = keys
            .iter()
            .filter_map(|k| self.runs.get(k))
            .any(|r| !r.obs.slots.is_per_tick());
        let timed = keys
            .iter()
            .filter_map(|k| self.runs.get(k))
            .any(|r| r.obs.timed.is_some());
        let unit = self.scenario.clock.unit_name();
        // Load shed before the callee, per node that can shed it in some
        // run: tries its throttle rejected locally (a counter, on every
        // run) and tries its concurrency limiter did not send (per bin, on
        // a run that takes time). A node without either has no column.
        let sheds = |has: fn(&squall_lang::NodeSpec) -> bool| -> Vec<bool> {
            (0..self.scenario.nodes.len())
                .map(|n| {
                    keys.iter()
                        .filter_map(|k| self.runs.get(k))
                        .any(|r| r.model.nodes.get(n).is_some_and(has))
                })
                .collect()
        };
        let throttles = sheds(|n| n.throttle.is_some());
        let limiters = sheds(|n| n.limiter.is_some());
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
        for (i, n) in self.scenario.nodes.iter().enumerate() {
            let shed: &[&str] = if throttles[i] {
                &["rejected_locally"]
            } else {
                &[]
            };
            for what in ["calls", "served", "failed", "refused", "blocked"]
                .iter()
                .chain(shed)
            {
                header.push(escape::csv_text(&format!("{}.{what}", n.name)));
            }
        }
        if timed {
            header.extend(E2E.iter().map(|&m| column("", m, unit)));
            for (i, n) in self.scenario.nodes.iter().enumerate() {
                let prefix = format!("{}.", n.name);
                header.extend(
                    PER_NODE
                        .iter()
                        .chain(limiters[i].then_some(&Metric::Limited))
                        .map(|&m| escape::csv_text(&column(&prefix, m, unit))),
                );
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
            for (b, (from, to)) in rows.into_iter().enumerate() {
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
                for (i, s) in o.nodes.iter().enumerate() {
                    for v in [&s.calls, &s.ok, &s.failed, &s.refused, &s.blocked] {
                        row.push(sum(v).to_string());
                    }
                    if throttles.get(i) == Some(&true) {
                        // Empty until the node's first rejection: 0.
                        let v = &s.rejected_locally;
                        row.push(if v.is_empty() { 0 } else { sum(v) }.to_string());
                    }
                }
                if timed {
                    // Row `b` is the engine's bin `b`: the slots and the
                    // engine's bins start at the run's first tick, one bin
                    // per slot row (one tick each under `series every` one tick).
                    row.extend(E2E.iter().map(|&m| bin_field(o, m, b, None)));
                    for (n, &limiter) in limiters.iter().enumerate() {
                        row.extend(
                            PER_NODE
                                .iter()
                                .chain(limiter.then_some(&Metric::Limited))
                                .map(|&m| bin_field(o, m, b, Some(n))),
                        );
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
