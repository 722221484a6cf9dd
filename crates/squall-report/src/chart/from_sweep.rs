//! The charts of a sweep's tables: for each numeric column, its values as
//! lines over the first varied param ([`SweepChart`]), and with exactly two
//! params a heat map of both ([`HeatMap`]).
//!
//! Lines: one per group of rows that share their other labels (a variant
//! of `rows variants [a, b] x sweep s` with a label per axis, a window),
//! and with several params one per value of the other params
//! (`spacing=4`). A mean over replications draws its 95 % interval as a
//! band. A table whose point label is joined with another axis's (one label
//! for `variants x sweep`) cannot be split into lines and draws no chart.
//!
//! The charts come from [`SweepRows`] (`squall sweep --charts`, also after
//! `squall merge`) or from a study's sweep tables ([`Study::sweep_charts`],
//! `squall run --charts`); both go through [`table_charts`], so they agree.

use squall_lang::{AxisSpec, ReportItemSpec};

use super::chart_file::{file_name, ChartFile};
use super::heat_map::HeatMap;
use super::sweep_chart::{SweepAxis, SweepChart, SweepLine, SweepValue};
use crate::study::Study;
use crate::sweep::{ParamAxis, ParamValue, StoredCell, SweepRows, TableRows};

impl SweepRows {
    /// Every chart of the sweep's tables, numbered from 1.
    pub fn charts(&self) -> Vec<ChartFile> {
        let mut out = Vec::new();
        let titled = self.tables.len() > 1;
        for t in &self.tables {
            let t = t.on_wall_clock();
            out.extend(table_charts(&self.params, &t, titled, out.len() + 1));
        }
        out
    }
}

impl Study<'_> {
    /// The charts of the report's sweep tables, numbered from `first`,
    /// each with the title of the table it draws.
    pub fn sweep_charts(&self, first: usize) -> Vec<(String, ChartFile)> {
        let tables: Vec<(usize, &squall_lang::TableSpec)> = self
            .scenario
            .report
            .items
            .iter()
            .filter_map(|i| match i {
                ReportItemSpec::Table(t) => t.rows.iter().find_map(|a| match a {
                    AxisSpec::Sweep(s) => Some((*s, t)),
                    _ => None,
                }),
                _ => None,
            })
            .collect();
        let titled = tables.len() > 1;
        let mut out = Vec::new();
        for (s, t) in tables {
            let params = crate::sweep::param_axes(self.scenario, s);
            let rows = crate::sweep::sweep_table(self, t, s, None);
            let charts = table_charts(&params, &rows, titled, first + out.len());
            out.extend(charts.into_iter().map(|c| (t.title.clone(), c)));
        }
        out
    }
}

/// The point's coordinates along each axis (the last varies fastest).
fn coordinates(params: &[ParamAxis], p: usize) -> Vec<usize> {
    let mut rest = p;
    let mut out = vec![0; params.len()];
    for (k, a) in params.iter().enumerate().rev() {
        let n = a.values.len().max(1);
        out[k] = rest % n;
        rest /= n;
    }
    out
}

/// An axis of the chart from a param's values.
fn axis(p: &ParamAxis) -> SweepAxis {
    let numbers: Option<Vec<f64>> = p
        .values
        .iter()
        .map(|v| match v {
            ParamValue::Number(n) => Some(*n),
            ParamValue::Text(_) => None,
        })
        .collect();
    match numbers {
        // Numbers at their place, unless two fall on one spot.
        Some(n) if distinct(&n) => SweepAxis::Numbers(n),
        _ => SweepAxis::Words(
            p.values
                .iter()
                .map(|v| match v {
                    ParamValue::Number(n) => format!("{n}"),
                    ParamValue::Text(t) => t.clone(),
                })
                .collect(),
        ),
    }
}

fn distinct(values: &[f64]) -> bool {
    values
        .iter()
        .enumerate()
        .all(|(i, a)| values[..i].iter().all(|b| a != b))
}

fn axis_label(p: &ParamAxis) -> String {
    match &p.unit {
        Some(u) => format!("{} ({u})", p.name),
        None => p.name.clone(),
    }
}

fn value_of(c: &StoredCell) -> Option<SweepValue> {
    match c {
        StoredCell::Number { value, .. } => Some(SweepValue {
            value: *value,
            half_width: None,
        }),
        StoredCell::Interval {
            mean, half_width, ..
        } => Some(SweepValue {
            value: *mean,
            half_width: *half_width,
        }),
        StoredCell::Text(_) | StoredCell::Missing => None,
    }
}

/// The charts of one sweep table, numbered from `first`; `titled` adds the
/// table's title to each chart's.
pub fn table_charts(
    params: &[ParamAxis],
    t: &TableRows,
    titled: bool,
    first: usize,
) -> Vec<ChartFile> {
    let mut out = Vec::new();
    let (Some(point_label), Some(x_param)) = (t.point_label, params.first()) else {
        return out;
    };
    let labels = t.label_columns.min(t.columns.len());
    let mut rows: Vec<_> = t.rows.iter().filter(|r| r.point.is_some()).collect();
    rows.sort_by_key(|r| r.row);
    // The group of a row: its other labels.
    let group = |cells: &[StoredCell]| -> String {
        cells
            .iter()
            .take(labels)
            .enumerate()
            .filter(|(i, _)| *i != point_label)
            .map(|(_, c)| match c {
                StoredCell::Text(s) => s.clone(),
                other => crate::document::Cell::from(other).display(),
            })
            .collect::<Vec<_>>()
            .join(": ")
    };
    let mut groups: Vec<String> = Vec::new();
    for r in &rows {
        let g = group(&r.cells);
        if !groups.contains(&g) {
            groups.push(g);
        }
    }
    // Lines: a group and the coordinates of the params after the first.
    let rest = &params[1..];
    let rest_count: usize = rest.iter().map(|a| a.values.len().max(1)).product();
    let x = axis(x_param);
    let nx = x.len();
    for column in labels..t.columns.len() {
        let numeric = rows
            .iter()
            .any(|r| r.cells.get(column).and_then(value_of).is_some());
        if !numeric {
            continue;
        }
        let name = &t.columns[column];
        let mut lines = Vec::new();
        for g in &groups {
            for k in 0..rest_count {
                let mut values = vec![None; nx];
                for r in rows.iter().filter(|r| group(&r.cells) == *g) {
                    let Some(p) = r.point else { continue };
                    let c = coordinates(params, p);
                    let inner = rest
                        .iter()
                        .zip(&c[1..])
                        .fold(0, |acc, (a, ci)| acc * a.values.len().max(1) + ci);
                    if inner == k && c[0] < nx {
                        values[c[0]] = r.cells.get(column).and_then(value_of);
                    }
                }
                let mut rest_text: Vec<String> = Vec::new();
                let mut left = k;
                for a in rest.iter().rev() {
                    let n = a.values.len().max(1);
                    let v = a.values.get(left % n).map_or(String::new(), |v| match v {
                        ParamValue::Number(x) => format!("{x}"),
                        ParamValue::Text(s) => s.clone(),
                    });
                    rest_text.push(format!("{}={v}", a.name));
                    left /= n;
                }
                rest_text.reverse();
                let mut label: Vec<String> = Vec::new();
                if !g.is_empty() {
                    label.push(g.clone());
                }
                label.extend(rest_text);
                lines.push(SweepLine {
                    label: if label.is_empty() {
                        name.clone()
                    } else {
                        label.join(", ")
                    },
                    values,
                });
            }
        }
        let title = if titled {
            format!("{name} by {}: {}", x_param.name, t.title)
        } else {
            format!("{name} by {}", x_param.name)
        };
        let chart = SweepChart {
            title: title.clone(),
            x_label: axis_label(x_param),
            value_label: name.clone(),
            x: x.clone(),
            lines,
        };
        out.push(ChartFile {
            file: file_name(first + out.len(), &format!("{name} by {}", x_param.name)),
            title,
            svg: chart.to_svg(),
            csv: chart.to_csv(),
        });
        if let ([y_param], [_]) = (rest, groups.as_slice()) {
            let y = axis(y_param);
            let mut cells = vec![vec![None; nx]; y.len()];
            for r in &rows {
                let Some(p) = r.point else { continue };
                let c = coordinates(params, p);
                if let Some(cell) = cells.get_mut(c[1]).and_then(|row| row.get_mut(c[0])) {
                    *cell = r.cells.get(column).and_then(value_of).map(|v| v.value);
                }
            }
            let title = format!("{name} over {} and {}", x_param.name, y_param.name);
            let map = HeatMap {
                title: title.clone(),
                x_label: axis_label(x_param),
                y_label: axis_label(y_param),
                value_label: name.clone(),
                x: x.clone(),
                y,
                cells,
            };
            out.push(ChartFile {
                file: file_name(first + out.len(), &format!("{name} heat map")),
                title,
                svg: map.to_svg(),
                csv: map.to_csv(),
            });
        }
    }
    out
}
