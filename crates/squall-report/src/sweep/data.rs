//! A sweep's result as data for notebooks: CSV and JSON with one column
//! per varied param and every number in full precision.
//!
//! The text and markdown renderings of a sweep are the report's
//! ([`SweepRows::report`]): labels like `attempts=2, spacing=4` and numbers
//! rounded as the table asks. The data renderings are for
//! `pandas.read_csv` and `json.load`:
//!
//! - the label column that names only the point is replaced by one column
//!   per varied param, holding its value ([`ParamAxis`]): a plain number, a
//!   duration in ticks of the clock (`4 rounds` is `4`, `1s` under
//!   `clock ms` is `1000`), a rate per tick, a size in bytes, a word as
//!   written; when the point's label is joined with another axis's
//!   (`storm: attempts=2`) the label stays and the param columns follow it;
//! - numbers are printed in full precision (Rust's shortest text that
//!   reads back to the same `f64`: `22.333333333333332`, `25`; in JSON a
//!   whole number is an integer);
//! - a mean over replications is three CSV columns, `X`, `X half_width`
//!   (of the 95 % interval) and `X n` (replications with a value), and in
//!   JSON an object `{"mean", "half_width", "n", "replications"}`.
//!
//! CSV: one table is a plain file; several are one long table with a
//! `table` column, as in [`crate::csv`] ([`crate::data`]). JSON: the
//! report's shape (`title`, `meta`, `blocks` of tables with `columns` and
//! `rows`), plus `params` (each varied param's name, unit and values).

use squall_lang::ast::ValueKind;
use squall_lang::{Scenario, SEED_AXIS};

use super::{ParamAxis, ParamValue, StoredCell, SweepRows, TableRows};
use crate::data::{json_number, DataCell, DataTable};
use crate::render::Format;

/// The varied params of sweep `s` and their values, as data.
pub fn param_axes(scenario: &Scenario, s: usize) -> Vec<ParamAxis> {
    let clock = scenario.clock;
    scenario.sweeps[s]
        .axes
        .iter()
        .map(|(name, values)| {
            let unit_of = |k: &ValueKind| match k {
                ValueKind::Duration { .. } => Some(clock.unit_name().to_string()),
                ValueKind::Rate { .. } => Some(format!("per {}", clock.unit_name())),
                ValueKind::Size { .. } => Some("B".to_string()),
                _ => None,
            };
            let numeric = |k: &ValueKind| {
                matches!(
                    k,
                    ValueKind::Number(_)
                        | ValueKind::Duration { .. }
                        | ValueKind::Rate { .. }
                        | ValueKind::Size { .. }
                )
            };
            // One kind of value per column: numbers (in one unit) or text.
            let units: Vec<Option<String>> = values.iter().map(|v| unit_of(&v.kind)).collect();
            let same_unit = units.windows(2).all(|w| w[0] == w[1]);
            let as_numbers = same_unit && values.iter().all(|v| numeric(&v.kind));
            let data: Vec<ParamValue> = values
                .iter()
                .map(|v| {
                    let number = as_numbers
                        .then(|| squall_lang::units::quantity(v, clock).ok())
                        .flatten();
                    match number {
                        Some(n) => ParamValue::Number(n),
                        None => ParamValue::Text(squall_lang::format::value_text(v)),
                    }
                })
                .collect();
            let all_numbers = data.iter().all(|d| matches!(d, ParamValue::Number(_)));
            ParamAxis {
                name: name.clone(),
                unit: if all_numbers && name != SEED_AXIS {
                    units.first().cloned().flatten()
                } else {
                    None
                },
                values: data,
            }
        })
        .collect()
}

impl SweepRows {
    /// Renders in `format`: text and markdown as the report
    /// ([`SweepRows::report`]), CSV and JSON as data (see this module).
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Text | Format::Markdown => self.report().render(format),
            Format::Csv => self.to_data_csv(),
            Format::Json => self.to_data_json(),
        }
    }

    /// The tables as CSV, one column per varied param, full precision
    /// (one table a plain file, several one long table: [`crate::data`]).
    pub fn to_data_csv(&self) -> String {
        crate::data::tables_csv(&self.data_tables())
    }

    /// The result as JSON: the report's shape plus `params`, numbers in
    /// full precision; pretty, with a trailing newline.
    pub fn to_data_json(&self) -> String {
        use serde_json::{json, Map, Value};
        let meta: Map<String, Value> = self
            .meta
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        let params: Vec<Value> = self
            .params
            .iter()
            .map(|p| {
                json!({
                    "name": p.name,
                    "unit": p.unit,
                    "values": p.values.iter().map(param_json).collect::<Vec<_>>(),
                })
            })
            .collect();
        let blocks: Vec<Value> = self
            .data_tables()
            .iter()
            .map(|t| {
                json!({
                    "kind": "table",
                    "title": t.title,
                    "columns": t.columns,
                    "rows": t.rows.iter().map(|r| r.iter().map(cell_json).collect::<Vec<_>>()).collect::<Vec<_>>(),
                })
            })
            .collect();
        let value = json!({
            "title": self.title,
            "meta": meta,
            "params": params,
            "blocks": blocks,
        });
        let mut s = serde_json::to_string_pretty(&value)
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
        s.push('\n');
        s
    }

    /// Every table as data, rows in order.
    pub fn data_tables(&self) -> Vec<DataTable> {
        self.tables
            .iter()
            .map(|t| self.data_table(&t.on_wall_clock()))
            .collect()
    }

    fn data_table(&self, t: &TableRows) -> DataTable {
        let labels = t.label_columns.min(t.columns.len());
        // Where the param columns go: in place of the point's own label,
        // or after the labels.
        let at = t.point_label.filter(|&i| i < labels).unwrap_or(labels);
        let replaced = t.point_label.is_some_and(|i| i < labels);
        let kept_label = |i: usize| !(replaced && i == at);
        let others: Vec<String> = t
            .columns
            .iter()
            .enumerate()
            .filter(|(i, _)| *i >= labels || kept_label(*i))
            .map(|(_, c)| c.clone())
            .collect();
        let headings = self.param_headings(&others);
        let mut columns: Vec<String> = Vec::new();
        for (i, c) in t.columns[..labels].iter().enumerate() {
            if i == at {
                columns.extend(headings.iter().cloned());
            }
            if kept_label(i) {
                columns.push(c.clone());
            }
        }
        if at == labels {
            columns.extend(headings.iter().cloned());
        }
        columns.extend(t.columns[labels..].iter().cloned());

        let mut rows: Vec<_> = t.rows.iter().collect();
        rows.sort_by_key(|r| r.row);
        let rows = rows
            .iter()
            .map(|r| {
                let params: Vec<DataCell> = self
                    .params
                    .iter()
                    .enumerate()
                    .map(|(axis, _)| {
                        r.point.and_then(|pt| self.param_value(axis, pt)).map_or(
                            DataCell::Missing,
                            |v| match v {
                                ParamValue::Number(n) => DataCell::Number(*n),
                                ParamValue::Text(s) => DataCell::Text(s.clone()),
                            },
                        )
                    })
                    .collect();
                let mut out = Vec::with_capacity(columns.len());
                for (i, c) in r.cells.iter().take(labels).enumerate() {
                    if i == at {
                        out.extend(params.iter().cloned());
                    }
                    if kept_label(i) {
                        out.push(data_cell(c));
                    }
                }
                if at == labels {
                    out.extend(params.iter().cloned());
                }
                out.extend(r.cells.iter().skip(labels).map(data_cell));
                out
            })
            .collect();
        DataTable {
            title: t.title.clone(),
            columns,
            rows,
        }
    }

    /// The headings of the param columns: each param's name, or
    /// `NAME (param)` when another column of the table has that name.
    fn param_headings(&self, columns: &[String]) -> Vec<String> {
        self.params
            .iter()
            .map(|p| {
                if columns.contains(&p.name) {
                    format!("{} (param)", p.name)
                } else {
                    p.name.clone()
                }
            })
            .collect()
    }

    /// The value of axis `axis` at point `p` (the last axis varies fastest).
    fn param_value(&self, axis: usize, p: usize) -> Option<&ParamValue> {
        let inner: usize = self.params[axis + 1..]
            .iter()
            .map(|a| a.values.len().max(1))
            .product();
        let values = &self.params[axis].values;
        if values.is_empty() {
            return None;
        }
        values.get((p / inner) % values.len())
    }
}

fn data_cell(c: &StoredCell) -> DataCell {
    match c {
        StoredCell::Text(t) => DataCell::Text(t.clone()),
        StoredCell::Number { value, .. } => DataCell::Number(*value),
        StoredCell::Interval {
            mean,
            half_width,
            n,
            replications,
            ..
        } => DataCell::Interval {
            mean: *mean,
            half_width: *half_width,
            n: *n,
            replications: *replications,
        },
        StoredCell::Missing => DataCell::Missing,
    }
}

fn param_json(v: &ParamValue) -> serde_json::Value {
    match v {
        ParamValue::Number(n) => json_number(*n),
        ParamValue::Text(t) => serde_json::Value::String(t.clone()),
    }
}

fn cell_json(c: &DataCell) -> serde_json::Value {
    match c {
        DataCell::Text(t) => serde_json::Value::String(t.clone()),
        DataCell::Number(x) => json_number(*x),
        DataCell::Interval {
            mean,
            half_width,
            n,
            replications,
        } => serde_json::json!({
            // No replication had a value (each never reached it): no mean.
            "mean": (*n > 0).then(|| json_number(*mean)),
            "half_width": half_width.map(json_number),
            "n": n,
            "replications": replications,
        }),
        DataCell::Missing => serde_json::Value::Null,
    }
}
