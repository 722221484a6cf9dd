//! The shard file format: a sweep's rows (all of them, or one shard's),
//! stored without loss so that [`merge`](super::merge) can put them back in
//! place and a merged sweep renders byte for byte like a single run.
//!
//! A file is pretty JSON: `"format": "squall-sweep"`, a version
//! ([`SHARD_VERSION`]), what identifies the study ([`StudyId`]), the report's
//! title and facts, and each table's rows with their place in the full
//! table ([`TableRows`], [`RowEntry`]). Numbers keep every bit
//! ([`StoredCell`]).

use serde::{Deserialize, Serialize};

use super::MergeError;
use crate::args::{ArgError, Input};
use crate::document::{Block, Cell, Report, Table};
use crate::interval::Interval;

/// The version of the shard file format (2: each row knows its point, the
/// file the varied params' values, for the data outputs).
pub const SHARD_VERSION: u32 = 2;

/// One slice of a sweep's points: `index` of `count`, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which slice, from 1.
    pub index: usize,
    /// How many slices.
    pub count: usize,
}

impl Shard {
    /// Reads `K/N`.
    pub fn parse(text: &str) -> Result<Shard, ArgError> {
        let bad = || ArgError::Form {
            input: Input::Shard,
            text: text.to_string(),
        };
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let index: usize = k.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// True when point `p` belongs to this slice.
    pub fn holds(self, p: usize) -> bool {
        p % self.count == self.index - 1
    }
}

/// What identifies a study, so shards of different studies are not merged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StudyId {
    /// The scenario's name.
    pub scenario: String,
    /// FNV-1a hash of the scenario file's text, in hex.
    pub source_hash: String,
    /// The scenario seed.
    pub seed: u64,
    /// The sweep's name.
    pub sweep: String,
    /// The variant every point starts from.
    pub base: String,
    /// `--set` settings, as given.
    pub settings: Vec<String>,
    /// Every point's label, in order.
    pub points: Vec<String>,
}

/// A table cell, stored without loss.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StoredCell {
    /// A number with its digits after the point.
    Number {
        /// The exact value.
        value: f64,
        /// Digits printed after the point.
        digits: usize,
    },
    /// A mean over replications with its interval (see [`Interval`]).
    Interval {
        /// The exact mean.
        mean: f64,
        /// The exact half-width of the 95 % interval.
        half_width: Option<f64>,
        /// Replications with a value.
        n: usize,
        /// Replications run.
        replications: usize,
        /// Replications that never reached the value (left out at 0, so a
        /// shard without any reads the same as before).
        #[serde(default, skip_serializing_if = "is_zero")]
        never: usize,
        /// Digits printed after the point.
        digits: usize,
    },
    /// Text.
    Text(String),
    /// No value.
    Missing,
}

/// For serde: a count of zero is left out.
fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl From<&Cell> for StoredCell {
    fn from(c: &Cell) -> Self {
        match c {
            Cell::Text(t) => StoredCell::Text(t.clone()),
            Cell::Number(value, digits) => StoredCell::Number {
                value: *value,
                digits: *digits,
            },
            Cell::Interval(i, digits) => StoredCell::Interval {
                mean: i.mean,
                half_width: i.half_width,
                n: i.n,
                replications: i.replications,
                never: i.never,
                digits: *digits,
            },
            Cell::Missing => StoredCell::Missing,
        }
    }
}

impl From<&StoredCell> for Cell {
    fn from(c: &StoredCell) -> Self {
        match c {
            StoredCell::Text(t) => Cell::Text(t.clone()),
            StoredCell::Number { value, digits } => Cell::Number(*value, *digits),
            StoredCell::Interval {
                mean,
                half_width,
                n,
                replications,
                never,
                digits,
            } => Cell::Interval(
                Interval {
                    mean: *mean,
                    half_width: *half_width,
                    n: *n,
                    replications: *replications,
                    never: *never,
                    values: Vec::new(),
                },
                *digits,
            ),
            StoredCell::Missing => Cell::Missing,
        }
    }
}

/// A varied param (or the `seed` axis) and its values as data: plain
/// numbers, durations in ticks of the clock, rates per tick, sizes in
/// bytes; words (and anything else) as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParamAxis {
    /// The param's name, as the sweep names it.
    pub name: String,
    /// The values' unit (`round`, `per ms`, `B`); `None` for plain numbers
    /// and words.
    pub unit: Option<String>,
    /// The values, in the sweep's order.
    pub values: Vec<ParamValue>,
}

/// One value of a varied param, as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    /// A number, exact.
    Number(f64),
    /// A word, or a value with no number.
    Text(String),
}

/// One row with its place in the full table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowEntry {
    /// Index of the row in the full table.
    pub row: usize,
    /// The sweep point the row reads (`None` for a row of no point, e.g. a
    /// variant's own row): the params' values in the data outputs.
    pub point: Option<usize>,
    /// The cells; the first is the row's label.
    pub cells: Vec<StoredCell>,
}

/// A table of a sweep, possibly missing the rows of other shards.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableRows {
    /// Title.
    pub title: String,
    /// Headings.
    pub columns: Vec<String>,
    /// Rows in the full table.
    pub row_count: usize,
    /// How many of the first columns are row labels.
    pub label_columns: usize,
    /// The label column that names only the sweep point (the data outputs
    /// put one column per varied param in its place); `None` when the
    /// point's label is joined with another axis's.
    pub point_label: Option<usize>,
    /// The rows this part holds, by row index.
    pub rows: Vec<RowEntry>,
    /// The columns in ticks or per tick of a wall clock, scaled when shown
    /// ([`TableRows::on_wall_clock`]); left out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wall: Vec<WallColumn>,
}

/// A column whose values are ticks, or per tick, of a wall clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WallColumn {
    /// The column's index.
    pub column: usize,
    /// True for a rate (per tick), false for a duration (ticks).
    pub per_tick: bool,
    /// Milliseconds in one tick.
    pub tick_ms: u64,
}

/// The rows of a sweep (all of them, or one shard's): what a shard file
/// holds and what [`merge`](super::merge) joins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepRows {
    /// Always `"squall-sweep"`.
    pub format: String,
    /// [`SHARD_VERSION`].
    pub version: u32,
    /// The study.
    pub study: StudyId,
    /// The report's title.
    pub title: String,
    /// The report's facts (file, clock, run, seed, sweep, ...).
    pub meta: Vec<(String, String)>,
    /// The varied params and their values, as data (first axis outermost).
    pub params: Vec<ParamAxis>,
    /// The slice this part holds; `None` for a whole sweep.
    pub shard: Option<Shard>,
    /// The points this part ran.
    pub points_run: Vec<usize>,
    /// Stopped early (Ctrl-C): how many of its points did not finish; their
    /// rows are missing. `None` when every point ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<usize>,
    /// Points whose run failed (past its work budget), in order: their
    /// rows are missing, the other points' are here. Empty when none did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<FailedPoint>,
    /// The tables.
    pub tables: Vec<TableRows>,
}

/// A point of a sweep whose run failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailedPoint {
    /// The point (0-based).
    pub point: usize,
    /// Its settings: `name=value, ...`.
    pub settings: String,
    /// Why it failed, in words.
    pub error: String,
    /// It ran past its work budget.
    #[serde(default)]
    pub work_budget: bool,
}

impl SweepRows {
    /// True when every row of every table is present.
    pub fn is_complete(&self) -> bool {
        self.tables.iter().all(|t| t.rows.len() == t.row_count)
    }

    /// The result as a report: the sweep's tables, rows in order.
    pub fn report(&self) -> Report {
        let blocks = self
            .tables
            .iter()
            .map(|t| {
                let t = t.on_wall_clock();
                let mut rows: Vec<&RowEntry> = t.rows.iter().collect();
                rows.sort_by_key(|r| r.row);
                Block::Table(Table {
                    title: t.title.clone(),
                    columns: t.columns.clone(),
                    rows: rows
                        .iter()
                        .map(|r| r.cells.iter().map(Cell::from).collect())
                        .collect(),
                })
            })
            .collect();
        Report {
            title: self.title.clone(),
            meta: self.meta.clone(),
            blocks,
            // A sweep's stored cells keep no per-replication values.
            pairing: None,
        }
    }

    /// The shard file: pretty JSON with a trailing newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self)
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
        s.push('\n');
        s
    }
}

/// FNV-1a over a text, as 16 hex digits.
pub fn text_hash(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Reads a shard file.
pub fn read_shard(name: &str, text: &str) -> Result<SweepRows, MergeError> {
    let not = |why: String| MergeError::NotAShard {
        file: name.to_string(),
        why,
    };
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| not(e.to_string()))?;
    match value.get("format").and_then(|f| f.as_str()) {
        Some("squall-sweep") => {}
        _ => return Err(not("it has no `\"format\": \"squall-sweep\"`".into())),
    }
    match value.get("version").and_then(serde_json::Value::as_u64) {
        Some(v) if v == u64::from(SHARD_VERSION) => {}
        other => {
            return Err(not(format!(
                "it is version {}, this squall reads version {SHARD_VERSION}",
                other.map_or("?".to_string(), |v| v.to_string())
            )))
        }
    }
    let rows: SweepRows = serde_json::from_value(value).map_err(|e| not(e.to_string()))?;
    let points = rows.study.points.len();
    for t in &rows.tables {
        if t.label_columns > t.columns.len() || t.point_label.is_some_and(|i| i >= t.label_columns)
        {
            return Err(not(format!(
                "table \"{}\" has {} label columns for {} columns",
                t.title,
                t.label_columns,
                t.columns.len()
            )));
        }
        for r in &t.rows {
            if r.point.is_some_and(|p| p >= points) {
                return Err(not(format!(
                    "row {} of table \"{}\" reads a point past the {points} points",
                    r.row, t.title
                )));
            }
            if r.row >= t.row_count {
                return Err(not(format!(
                    "table \"{}\" has row {} but only {} rows",
                    t.title, r.row, t.row_count
                )));
            }
            if r.cells.len() != t.columns.len() {
                return Err(not(format!(
                    "row {} of table \"{}\" has {} cells for {} columns",
                    r.row,
                    t.title,
                    r.cells.len(),
                    t.columns.len()
                )));
            }
            let too_precise = r
                .cells
                .iter()
                .any(|c| matches!(c, StoredCell::Number { digits, .. } | StoredCell::Interval { digits, .. } if *digits > 12));
            if too_precise {
                return Err(not(format!(
                    "row {} of table \"{}\" prints more than 12 digits after the point",
                    r.row, t.title
                )));
            }
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_split_round_robin() {
        assert_eq!(Shard::parse("2/3").ok(), Some(Shard { index: 2, count: 3 }));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        let s = Shard::parse("2/3").unwrap_or(Shard { index: 1, count: 1 });
        let held: Vec<usize> = (0..8).filter(|&p| s.holds(p)).collect();
        assert_eq!(held, vec![1, 4, 7]);
    }

    #[test]
    fn shard_files_that_do_not_add_up_are_refused() {
        let file = |row: usize, digits: usize| {
            format!(
                r#"{{"format":"squall-sweep","version":2,
                "study":{{"scenario":"s","source_hash":"0","seed":1,"sweep":"w","base":"b","settings":[],"points":["1"]}},
                "title":"s","meta":[],"params":[{{"name":"p","unit":null,"values":[1.0]}}],
                "shard":{{"index":1,"count":1}},"points_run":[0],
                "tables":[{{"title":"t","columns":["p","x"],"row_count":1,"label_columns":1,"point_label":0,
                  "rows":[{{"row":{row},"point":0,"cells":["1",{{"value":2.0,"digits":{digits}}}]}}]}}]}}"#
            )
        };
        assert!(read_shard("ok.json", &file(0, 2)).is_ok());
        let far = read_shard("far.json", &file(3, 2)).map(|_| ());
        assert!(matches!(far, Err(MergeError::NotAShard { .. })), "{far:?}");
        let digits = read_shard("digits.json", &file(0, 4000)).map(|_| ());
        assert!(
            matches!(digits, Err(MergeError::NotAShard { .. })),
            "{digits:?}"
        );
        let not_json = read_shard("x.json", "{").map(|_| ());
        assert!(matches!(not_json, Err(MergeError::NotAShard { .. })));
    }

    #[test]
    fn stored_cells_keep_every_bit() {
        let cells = vec![
            Cell::Number(0.1 + 0.2, 2),
            Cell::Number(22.333_333_333_333_332, 2),
            Cell::Text("3".into()),
            Cell::Missing,
            Cell::Interval(
                Interval {
                    mean: 0.1 + 0.2,
                    half_width: Some(1.0 / 3.0),
                    n: 9,
                    replications: 10,
                    never: 0,
                    values: Vec::new(),
                },
                3,
            ),
            Cell::Interval(
                Interval {
                    mean: 2.0,
                    half_width: None,
                    n: 1,
                    replications: 2,
                    never: 0,
                    values: Vec::new(),
                },
                0,
            ),
        ];
        let stored: Vec<StoredCell> = cells.iter().map(StoredCell::from).collect();
        let json = serde_json::to_string(&stored).unwrap_or_default();
        let back: Vec<StoredCell> = serde_json::from_str(&json).unwrap_or_default();
        let again: Vec<Cell> = back.iter().map(Cell::from).collect();
        assert_eq!(again, cells);
    }
}
