//! `table` report items: rows from the table's axes (variants, windows,
//! sweep points, crossed), one column per expression.
//!
//! [`Study::plan_rows`] lays the rows out (their label cells, run and
//! window) and is shared by reports and sweeps; which run a row reads is the
//! run planner's rule ([`crate::plan::row_run`]), so every row reads a run
//! the planner ran. [`Study::run_label`] names a run the way tables and the
//! accounting show it.

use squall_lang::{AxisSpec, RunKey, TableSpec};

use crate::document::{Cell, Table};
use crate::eval::Ctx;
use crate::plan::row_run;
use crate::study::Study;

/// One row of a table, before its values: its label cells, its run and its
/// window.
#[derive(Debug, Clone, PartialEq)]
pub struct RowPlan {
    /// Label cells (one, or one per row axis).
    pub labels: Vec<Cell>,
    /// The run its values come from.
    pub run: RunKey,
    /// The window, when an axis gives one.
    pub window: Option<usize>,
}

impl Study<'_> {
    /// The label of a run in tables.
    pub fn run_label(&self, key: RunKey) -> String {
        let s = self.scenario;
        match key {
            RunKey::Variant(v) => s.variants[v].label.clone(),
            RunKey::Cross(v, i, p) => {
                format!(
                    "{}: {}",
                    s.variants[v].label,
                    self.run_label(RunKey::Point(i, p))
                )
            }
            RunKey::Point(i, p) => {
                let sweep = &s.sweeps[i];
                let Some(point) = sweep.point(p) else {
                    return format!("{}#{p}", sweep.name);
                };
                let text = |v: &squall_lang::ast::Value| squall_lang::format::value_text(v);
                if point.len() == 1 && !sweep.from_cli {
                    text(&point[0].1)
                } else {
                    point
                        .iter()
                        .map(|(n, v)| format!("{n}={}", text(v)))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            }
        }
    }

    /// The rows of a table: the label headings, and for each row its label
    /// cells, its run and its window. Shared by reports and sweeps.
    pub fn plan_rows(&self, t: &TableSpec) -> (Vec<String>, Vec<RowPlan>) {
        // Each axis gives a list of (label, run?, window?); a row gathers one
        // entry per axis, its labels kept apart.
        type Entry = (String, Option<RunKey>, Option<usize>);
        type Row = (Vec<String>, Option<RunKey>, Option<usize>);
        let mut axes: Vec<Vec<Entry>> = Vec::new();
        for axis in &t.rows {
            axes.push(match axis {
                AxisSpec::Variants(vs) => vs
                    .iter()
                    .filter(|&&v| self.includes_variant(v))
                    .map(|&v| {
                        (
                            self.run_label(RunKey::Variant(v)),
                            Some(RunKey::Variant(v)),
                            None,
                        )
                    })
                    .collect(),
                AxisSpec::Windows(ws) => ws
                    .iter()
                    .map(|&w| (self.scenario.windows[w].0.clone(), None, Some(w)))
                    .collect(),
                AxisSpec::Sweep(i) => (0..self.scenario.sweeps[*i].point_count())
                    .map(|p| {
                        let k = RunKey::Point(*i, p);
                        (self.run_label(k), Some(k), None)
                    })
                    .collect(),
            });
        }
        let mut rows_ctx: Vec<Row> = vec![(Vec::new(), None, None)];
        for axis in &axes {
            let mut next = Vec::new();
            for (labels, run, window) in &rows_ctx {
                for (l2, r2, w2) in axis {
                    let mut labels = labels.clone();
                    labels.push(l2.clone());
                    // The same rule the run planner uses.
                    next.push((labels, row_run(*run, *r2), w2.or(*window)));
                }
            }
            rows_ctx = next;
        }
        // One label column per axis when the table names one per axis;
        // otherwise one column, leaving out an axis with a single entry.
        let split = t.labels.len() == axes.len() && axes.len() > 1;
        // Declared with one entry (not narrowed to one by `--variant`).
        let single: Vec<bool> = t
            .rows
            .iter()
            .map(|a| {
                let n = match a {
                    AxisSpec::Variants(vs) => vs.len(),
                    AxisSpec::Windows(ws) => ws.len(),
                    AxisSpec::Sweep(i) => self.scenario.sweeps[*i].len(),
                };
                n == 1 && t.rows.len() > 1
            })
            .collect();
        let default_run = self.default_key();
        let headings = if split {
            t.labels.clone()
        } else {
            vec![t.labels.join(", ")]
        };
        let rows = rows_ctx
            .into_iter()
            .map(|(labels, run, window)| {
                let labels: Vec<Cell> = if split {
                    labels.into_iter().map(Cell::Text).collect()
                } else {
                    let kept: Vec<String> = labels
                        .into_iter()
                        .zip(&single)
                        .filter(|(_, s)| !**s)
                        .map(|(l, _)| l)
                        .collect();
                    vec![Cell::Text(kept.join(": "))]
                };
                RowPlan {
                    labels,
                    run: run.unwrap_or(default_run),
                    window,
                }
            })
            .collect();
        (headings, rows)
    }

    pub(crate) fn table(&self, t: &TableSpec) -> Option<Table> {
        let (mut columns, plan) = self.plan_rows(t);
        columns.extend(t.columns.iter().map(|c| c.title.clone()));
        let rows = plan
            .into_iter()
            .map(|r| {
                let ctx = Ctx {
                    run: r.run,
                    window: r.window,
                    node: t.at,
                };
                let mut row = r.labels;
                row.extend(
                    t.columns
                        .iter()
                        .map(|c| self.value_cell(&c.expr, ctx, c.digits)),
                );
                row
            })
            .collect();
        Some(Table {
            title: t.title.clone(),
            columns,
            rows,
        })
    }
}
