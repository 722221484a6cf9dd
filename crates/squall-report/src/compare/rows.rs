//! One table against another, row by row.
//!
//! A row is keyed by all its label cells: the leading columns that hold text
//! in every row of both tables (every `rows` dimension when the table labels
//! one column per axis, the sweep's point label). An expectation's label
//! `line N: expect ...` is keyed without its line number, so a line moved by
//! an edit above it is the same expectation. A key that appears twice in a
//! table is told apart by its order. Columns after the labels are matched
//! by heading. Every row of either table lands in the diff exactly once:
//! unchanged, changed, added or removed.

use indexmap::IndexMap;

use super::cells::{changed_cell, same_cell, Noise};
use super::paired;
use crate::document::{Cell, Table};

/// What happened to a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowChange {
    /// The same cells on both sides.
    Unchanged,
    /// A cell changed; how much the largest change weighs.
    Changed(Noise),
    /// Only in the new table.
    Added,
    /// Only in the old table.
    Removed,
}

/// One row of the diff.
#[derive(Debug, Clone, PartialEq)]
pub struct RowDiff {
    /// What happened to it.
    pub change: RowChange,
    /// Its index in the old table, if there.
    pub old: Option<usize>,
    /// Its index in the new table, if there.
    pub new: Option<usize>,
    /// The cells to print under [`TableDiff::columns`], each with whether
    /// it is highlighted.
    pub cells: Vec<(String, bool)>,
}

/// Two tables compared.
#[derive(Debug, Clone, PartialEq)]
pub struct TableDiff {
    /// The headings: the label columns, then the union of the others (the
    /// new table's order, then columns only the old one has).
    pub columns: Vec<String>,
    /// How many leading columns are labels.
    pub labels: usize,
    /// Every row of either table, once.
    pub rows: Vec<RowDiff>,
    /// True when the headings differ.
    pub columns_changed: bool,
}

impl TableDiff {
    /// True when nothing differs.
    pub fn is_same(&self) -> bool {
        !self.columns_changed && self.rows.iter().all(|r| r.change == RowChange::Unchanged)
    }

    /// How much the largest change weighs, if anything changed.
    pub fn noise(&self) -> Option<Noise> {
        let rows = self.rows.iter().filter_map(|r| match r.change {
            RowChange::Unchanged => None,
            RowChange::Changed(n) => Some(n),
            RowChange::Added | RowChange::Removed => Some(Noise::Beyond),
        });
        let columns = self.columns_changed.then_some(Noise::Beyond);
        rows.chain(columns).max()
    }
}

/// How many leading columns hold text in every row (`None`: no rows).
fn leading_text(t: &Table) -> Option<usize> {
    let first = t.rows.first()?;
    let n = (0..first.len().max(t.columns.len()))
        .take_while(|&i| {
            t.rows
                .iter()
                .all(|r| matches!(r.get(i), Some(Cell::Text(_))))
        })
        .count();
    Some(n)
}

/// The label columns two tables share: at least one.
fn label_columns(a: &Table, b: &Table) -> usize {
    let n = match (leading_text(a), leading_text(b)) {
        (Some(x), Some(y)) => x.min(y),
        (Some(x), None) | (None, Some(x)) => x,
        (None, None) => 1,
    };
    n.max(1)
}

/// A label cell as a key: `line 72: expect X` keys as `expect X`.
fn key_text(label: String) -> String {
    let rest = label
        .strip_prefix("line ")
        .and_then(|r| r.split_once(": "))
        .filter(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    match rest {
        Some((_, r)) => r.to_string(),
        None => label,
    }
}

/// A table's rows by key (the label cells, then the key's occurrence), each
/// with its index and its other cells by heading.
type Keyed = IndexMap<(Vec<String>, usize), (usize, IndexMap<String, Cell>)>;

fn keyed(t: &Table, labels: usize, headings: &[String]) -> Keyed {
    let mut seen: IndexMap<Vec<String>, usize> = IndexMap::new();
    let mut out = IndexMap::new();
    for (i, r) in t.rows.iter().enumerate() {
        let key: Vec<String> = (0..labels)
            .map(|c| key_text(r.get(c).map(Cell::display).unwrap_or_default()))
            .collect();
        let nth = seen.entry(key.clone()).or_insert(0);
        *nth += 1;
        let cells = headings
            .iter()
            .zip(r.iter())
            .skip(labels)
            .map(|(h, c)| (h.clone(), c.clone()))
            .collect();
        out.insert((key, *nth), (i, cells));
    }
    out
}

/// The headings of a table, a repeated one numbered (`x`, `x (2)`) so no
/// column hides another.
fn unique_headings(t: &Table) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in &t.columns {
        let mut h = c.clone();
        let mut n = 2;
        while out.contains(&h) {
            h = format!("{c} ({n})");
            n += 1;
        }
        out.push(h);
    }
    out
}

/// How two reports' cells are judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Judge {
    /// Both reports come from replications (see [`changed_cell`]).
    pub replicated: bool,
    /// Their replications pair (see [`super::paired`]): an interval cell
    /// with per-replication values on both sides is judged by its paired
    /// difference.
    pub paired: bool,
}

/// How a changed cell reads and weighs: by its paired difference when the
/// reports pair and both cells keep their values, else by [`changed_cell`].
pub(super) fn judge_cell(o: &Cell, n: &Cell, judge: Judge) -> (String, Noise) {
    if judge.paired {
        if let Some((d, digits)) = paired::difference(o, n) {
            return paired::paired_change(o, n, &d, digits);
        }
    }
    changed_cell(&o.display(), &n.display(), judge.replicated)
}

/// Compares table `a` (old) with `b` (new), judged by `judge`.
pub fn table_diff(a: &Table, b: &Table, judge: Judge) -> TableDiff {
    let labels = label_columns(a, b);
    let (ha, hb) = (unique_headings(a), unique_headings(b));
    let mut columns: Vec<String> = hb.iter().take(labels).cloned().collect();
    while columns.len() < labels {
        columns.push(ha.get(columns.len()).cloned().unwrap_or_default());
    }
    for h in hb.iter().skip(labels).chain(ha.iter().skip(labels)) {
        if !columns[labels..].contains(h) {
            columns.push(h.clone());
        }
    }
    let (ra, rb) = (keyed(a, labels, &ha), keyed(b, labels, &hb));
    let label_cells = |t: &Table, i: usize| -> Vec<String> {
        (0..labels)
            .map(|c| t.rows[i].get(c).map(Cell::display).unwrap_or_default())
            .collect()
    };
    let others = &columns[labels..];
    let mut rows = Vec::new();
    for (key, (j, y)) in &rb {
        let mut cells: Vec<(String, bool)> =
            label_cells(b, *j).into_iter().map(|l| (l, false)).collect();
        let Some((i, x)) = ra.get(key) else {
            cells[0] = (format!("+ {}", cells[0].0), true);
            cells.extend(
                others
                    .iter()
                    .map(|c| (y.get(c).map(Cell::display).unwrap_or_default(), false)),
            );
            rows.push(RowDiff {
                change: RowChange::Added,
                old: None,
                new: Some(*j),
                cells,
            });
            continue;
        };
        let mut noise = None;
        for c in others {
            let cell = match (x.get(c), y.get(c)) {
                (Some(o), Some(n)) if same_cell(&o.display(), &n.display()) => (n.display(), false),
                (Some(o), Some(n)) => {
                    let (text, weight) = judge_cell(o, n, judge);
                    noise = noise.max(Some(weight));
                    (text, true)
                }
                (None, Some(n)) => {
                    noise = Some(Noise::Beyond);
                    (format!("(new) {}", n.display()), true)
                }
                (Some(o), None) => {
                    noise = Some(Noise::Beyond);
                    (format!("{} (removed)", o.display()), true)
                }
                (None, None) => (String::new(), false),
            };
            cells.push(cell);
        }
        rows.push(RowDiff {
            change: noise.map_or(RowChange::Unchanged, RowChange::Changed),
            old: Some(*i),
            new: Some(*j),
            cells,
        });
    }
    for (key, (i, x)) in &ra {
        if rb.contains_key(key) {
            continue;
        }
        let mut cells: Vec<(String, bool)> =
            label_cells(a, *i).into_iter().map(|l| (l, false)).collect();
        cells[0] = (format!("- {}", cells[0].0), true);
        cells.extend(
            others
                .iter()
                .map(|c| (x.get(c).map(Cell::display).unwrap_or_default(), false)),
        );
        rows.push(RowDiff {
            change: RowChange::Removed,
            old: Some(*i),
            new: None,
            cells,
        });
    }
    TableDiff {
        columns,
        labels,
        rows,
        columns_changed: ha != hb,
    }
}
