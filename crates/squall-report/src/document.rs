//! The report as data: a title, facts about the run, and blocks.
//!
//! Every renderer (text, markdown, JSON) works from this one structure, so
//! the formats never disagree.

use serde::Serialize;

use crate::interval::Interval;
use crate::number::to_fixed;

/// A rendered report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// The scenario's name.
    pub title: String,
    /// Facts about the run: file, clock, length, seed, settings.
    pub meta: Vec<(String, String)>,
    /// Tables and lines in order.
    pub blocks: Vec<Block>,
}

/// One block of a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Block {
    /// A table.
    Table(Table),
    /// A sentence.
    Line {
        /// The text.
        text: String,
    },
}

/// A table: a title, column headings, rows of cells.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Table {
    /// Title.
    pub title: String,
    /// Headings; the first is the row label's.
    pub columns: Vec<String>,
    /// Rows; the first cell is the row label.
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// True for a column of text, which reads from the left; numbers line up
    /// on the right. The first column (row labels) is always text; another
    /// column takes the kind of its first cell.
    pub fn is_text_column(&self, i: usize) -> bool {
        i == 0
            || self
                .rows
                .first()
                .and_then(|r| r.get(i))
                .is_some_and(|c| matches!(c, Cell::Text(_)))
    }
}

/// A table cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// Text, left-aligned in the first column.
    Text(String),
    /// A number printed with so many digits after the point.
    Number(f64, usize),
    /// A mean over replications with its 95 % interval, printed with so
    /// many digits after the point: `12.30 ± 0.45`, and `(9 of 10)` after
    /// it when some replications had no value.
    Interval(Interval, usize),
    /// No value (printed `—`, `null` in JSON).
    Missing,
}

impl Cell {
    /// The cell as printed.
    pub fn display(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Number(x, d) => to_fixed(*x, *d),
            Cell::Interval(i, d) => interval_text(i, *d),
            Cell::Missing => "—".to_string(),
        }
    }

    /// A number or missing.
    pub fn number(v: Option<f64>, digits: usize) -> Cell {
        v.map_or(Cell::Missing, |x| Cell::Number(x, digits))
    }
}

impl Serialize for Cell {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Cell::Text(t) => s.serialize_str(t),
            // The number as printed, so JSON and text agree digit for digit.
            Cell::Number(x, d) => printed_number(*x, *d).serialize(s),
            // `{"mean": .., "half_width": .., "n": .., "replications": ..}`,
            // numbers as printed.
            Cell::Interval(i, d) => {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(Some(4))?;
                m.serialize_entry("mean", &printed_number(i.mean, *d))?;
                m.serialize_entry("half_width", &i.half_width.map(|h| printed_number(h, *d)))?;
                m.serialize_entry("n", &i.n)?;
                m.serialize_entry("replications", &i.replications)?;
                m.end()
            }
            Cell::Missing => s.serialize_none(),
        }
    }
}

/// A number as printed, as JSON: an integer with no digits after the
/// point, `null` for what does not print as a number.
fn printed_number(x: f64, d: usize) -> serde_json::Value {
    match to_fixed(x, d).parse::<f64>() {
        Ok(v) if d == 0 && v.abs() < 9.0e15 => serde_json::Value::from(v as i64),
        Ok(v) => serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, Into::into),
        Err(_) => serde_json::Value::Null,
    }
}

/// `12.30 ± 0.45`; `12.30` alone when one replication had a value; then
/// `(9 of 10)` when some replications had none.
pub fn interval_text(i: &Interval, digits: usize) -> String {
    let mut out = to_fixed(i.mean, digits);
    if let Some(h) = i.half_width {
        out.push_str(" ± ");
        out.push_str(&to_fixed(h, digits));
    }
    if i.n < i.replications {
        out.push_str(&format!(" ({} of {})", i.n, i.replications));
    }
    out
}
