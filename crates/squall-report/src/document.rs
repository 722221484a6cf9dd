//! The report as data: a title, facts about the run, and blocks.
//!
//! Every renderer (text, markdown, JSON) works from this one structure, so
//! the formats never disagree.

use serde::Serialize;

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
        /// The values a `line` item's template put into the text, in order,
        /// as numbers (JSON `values`; empty, and left out, for other lines).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        values: Vec<Cell>,
    },
}

impl Block {
    /// A sentence with no values of its own.
    pub fn text(text: String) -> Block {
        Block::Line {
            text,
            values: Vec::new(),
        }
    }
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
    /// No value (printed `—`, `null` in JSON).
    Missing,
}

impl Cell {
    /// The cell as printed.
    pub fn display(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Number(x, d) => to_fixed(*x, *d),
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
            Cell::Number(x, d) => match to_fixed(*x, *d).parse::<f64>() {
                Ok(v) if *d == 0 && v.abs() < 9.0e15 => s.serialize_i64(v as i64),
                Ok(v) => s.serialize_f64(v),
                Err(_) => s.serialize_none(),
            },
            Cell::Missing => s.serialize_none(),
        }
    }
}
