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
//! CSV: one table is a plain file; several are blocks after a `# title`
//! line, separated by an empty line, as in [`crate::csv`]. JSON: the
//! report's shape (`title`, `meta`, `blocks` of tables with `columns` and
//! `rows`), plus `params` (each varied param's name, unit and values).

use squall_lang::ast::ValueKind;
use squall_lang::{Scenario, SEED_AXIS};

use super::{ParamAxis, ParamValue, StoredCell, SweepRows, TableRows};
use crate::escape;
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

/// A cell of a data table.
#[derive(Debug, Clone, PartialEq)]
enum DataCell {
    /// Text.
    Text(String),
    /// A number, exact.
    Number(f64),
    /// A mean over replications with its interval, exact.
    Interval {
        mean: f64,
        half_width: Option<f64>,
        n: usize,
        replications: usize,
    },
    /// No value.
    Missing,
}

/// A table as data: headings and rows.
struct DataTable {
    title: String,
    columns: Vec<String>,
    rows: Vec<Vec<DataCell>>,
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

    /// The tables as CSV, one column per varied param, full precision.
    pub fn to_data_csv(&self) -> String {
        let tables = self.data_tables();
        let mut out = String::new();
        let one = tables.len() == 1;
        for (i, t) in tables.iter().enumerate() {
            if !one {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str("# ");
                out.push_str(&t.title.replace(['\n', '\r'], " "));
                out.push('\n');
            }
            out.push_str(&table_csv(t));
        }
        out
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
    fn data_tables(&self) -> Vec<DataTable> {
        self.tables.iter().map(|t| self.data_table(t)).collect()
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

/// A number in full precision (the shortest text that reads back to the
/// same `f64`); empty when not finite. Shared by the sweep's data and its
/// charts' CSV.
pub fn full(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        String::new()
    }
}

/// A number in full precision as JSON: a whole number as an integer (exact
/// below 2^53), `null` when not finite.
fn json_number(x: f64) -> serde_json::Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        return serde_json::Value::from(x as i64);
    }
    serde_json::Number::from_f64(x).map_or(serde_json::Value::Null, Into::into)
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
            "mean": json_number(*mean),
            "half_width": half_width.map(json_number),
            "n": n,
            "replications": replications,
        }),
        DataCell::Missing => serde_json::Value::Null,
    }
}

/// One data table as CSV: an interval column becomes three.
fn table_csv(t: &DataTable) -> String {
    let interval: Vec<bool> = (0..t.columns.len())
        .map(|i| {
            t.rows
                .iter()
                .any(|r| matches!(r.get(i), Some(DataCell::Interval { .. })))
        })
        .collect();
    let mut w = crate::csv::writer();
    let mut header = Vec::new();
    for (c, wide) in t.columns.iter().zip(&interval) {
        header.push(escape::csv_text(c));
        if *wide {
            header.push(escape::csv_text(&format!("{c} half_width")));
            header.push(escape::csv_text(&format!("{c} n")));
        }
    }
    let _ = w.write_record(&header);
    for r in &t.rows {
        let mut fields = Vec::new();
        for (c, wide) in r.iter().zip(&interval) {
            match c {
                DataCell::Interval {
                    mean,
                    half_width,
                    n,
                    ..
                } => {
                    fields.push(full(*mean));
                    fields.push(half_width.map_or(String::new(), full));
                    fields.push(n.to_string());
                }
                other => {
                    fields.push(match other {
                        DataCell::Text(s) => escape::csv_text(s),
                        DataCell::Number(x) => full(*x),
                        _ => String::new(),
                    });
                    if *wide {
                        fields.push(String::new());
                        fields.push(String::new());
                    }
                }
            }
        }
        let _ = w.write_record(&fields);
    }
    crate::csv::finish(w)
}
