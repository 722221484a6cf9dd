//! Report items about client-side retry: backoff waits per retry, the
//! wake-up histogram of a herd, each operation of a sequential client, and
//! a circuit breaker's decisions.

use squall_engine::rng::Generator;
use squall_engine::sample_wait;
use squall_lang::{Backoff, HerdSpec, Model, RunKey, WaitsSpec};

use crate::document::{Block, Cell, Table};
use crate::number::to_fixed;
use crate::study::Study;
use crate::words;

/// A fresh generator for a report item: the named one (from its seed), or
/// the run's default stream.
fn generator(model: &Model, rng: Option<usize>) -> Generator {
    match rng.and_then(|i| model.rngs.get(i)) {
        Some(spec) => Generator::from_spec(spec, model.seed),
        None => Generator::default_for(model.seed),
    }
}

impl Study<'_> {
    fn default_model(&self) -> Option<&Model> {
        let key = self.default_key();
        self.runs.get(&key).map(|r| &r.model)
    }

    /// The run items without a row axis describe: the first selected variant.
    pub fn default_key(&self) -> RunKey {
        (0..self.scenario.variants.len())
            .find(|&v| self.includes_variant(v))
            .map_or(RunKey::Variant(0), RunKey::Variant)
    }

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

    /// `herd`: the wake-up times of clients failing at once, bucketed.
    pub fn herd(&self, h: &HerdSpec) -> Vec<Block> {
        let Some(model) = self.default_model() else {
            return Vec::new();
        };
        let Some((name, b)) = model.backoffs.get(h.policy) else {
            return Vec::new();
        };
        let mut g = generator(model, h.rng.or_else(|| b.rng()));
        let mut buckets: std::collections::BTreeMap<u64, u64> = std::collections::BTreeMap::new();
        for _ in 0..h.clients {
            let wait = if matches!(b, Backoff::Decorrelated { .. }) {
                // Its wait depends on the client's earlier ones.
                let mut prev = None;
                let mut w = 0;
                for n in 1..=h.attempt {
                    w = sample_wait(b, n, &mut g, &mut prev);
                }
                w
            } else {
                sample_wait(b, h.attempt, &mut g, &mut None)
            };
            *buckets.entry(wait / h.bucket * h.bucket).or_insert(0) += 1;
        }
        let unit = self.scenario.clock.unit_name();
        let rows = buckets
            .iter()
            .map(|(&start, &count)| {
                vec![
                    Cell::Text(format!("{start} {unit}")),
                    Cell::Number(count as f64, 0),
                    Cell::Text("#".repeat(count as usize)),
                ]
            })
            .collect();
        let peak = buckets.values().max().copied().unwrap_or(0);
        vec![
            Block::Table(Table {
                title: h.title.clone(),
                columns: vec!["wakes at".into(), "clients".into(), "histogram".into()],
                rows,
            }),
            Block::Line {
                text: format!(
                    "{}: {} clients, retry {}, busiest {} {unit} bucket holds {} ({}% of the herd)",
                    name.replace('_', " "),
                    h.clients,
                    h.attempt,
                    h.bucket,
                    peak,
                    to_fixed(100.0 * peak as f64 / f64::from(h.clients.max(1)), 1)
                ),
            },
        ]
    }

    fn per_variant_runs(&self) -> Vec<RunKey> {
        (0..self.scenario.variants.len())
            .filter(|&v| self.includes_variant(v))
            .map(RunKey::Variant)
            .collect()
    }

    fn titled(&self, title: &str, key: RunKey, many: bool) -> String {
        if many {
            format!("{title}: {}", self.run_label(key))
        } else {
            title.to_string()
        }
    }

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
            out.push(Block::Line { text });
        }
        out
    }

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
            out.push(Block::Line { text });
        }
        out
    }
}

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
            let w = run.model.windows.get(iso.window)?;
            let down: Vec<usize> = run
                .model
                .faults
                .iter()
                .filter(|f| {
                    f.fail.is_some()
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
            let m = |metric| {
                crate::eval::window_metric(
                    &run.obs,
                    metric,
                    w.from,
                    w.to,
                    iso.window,
                    Some(iso.node),
                )
            };
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
