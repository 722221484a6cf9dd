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
    /// With `replications` above 1: what decides whether this report's
    /// replications pair with another's in `squall diff` (JSON `pairing`).
    pub pairing: Option<Pairing>,
}

/// What decides whether a report's replications pair with another's: its
/// draws, seed and replication count (JSON `pairing`, written with
/// `replications` above 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pairing {
    /// `common` under `draws common`, `separate` otherwise.
    pub draws: String,
    /// The scenario's root seed.
    pub seed: u64,
    /// How many replications every run has.
    pub replications: usize,
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
    /// A mean over replications with its 95 % interval, printed with so
    /// many digits after the point: `12.30 ± 0.45`, and `(9 of 10)` after
    /// it when some replications had no value, `; never (1 of 10)` when
    /// some never reached it (see [`interval_text`]).
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
            // numbers as printed, and `"never": k` when some replications
            // never reached the value (`mean` is `null` when none had one).
            Cell::Interval(i, d) => {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(None)?;
                let mean = (i.n > 0).then(|| printed_number(i.mean, *d));
                m.serialize_entry("mean", &mean)?;
                m.serialize_entry("half_width", &i.half_width.map(|h| printed_number(h, *d)))?;
                m.serialize_entry("n", &i.n)?;
                m.serialize_entry("replications", &i.replications)?;
                if i.never > 0 {
                    m.serialize_entry("never", &i.never)?;
                }
                // Each replication's value as computed (not rounded: a
                // paired difference in `squall diff` is taken from them),
                // `null` where n/a.
                if !i.values.is_empty() {
                    m.serialize_entry("values", &i.values)?;
                }
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
/// `(9 of 10)` when some replications had none, and `; never (1 of 10)`
/// when some of those never reached the value (a recovery that never
/// came). With no value in any replication and some that never reached it:
/// `never (10 of 10)`.
pub fn interval_text(i: &Interval, digits: usize) -> String {
    let never = format!("never ({} of {})", i.never, i.replications);
    if i.n == 0 {
        return never;
    }
    let mut out = to_fixed(i.mean, digits);
    if let Some(h) = i.half_width {
        out.push_str(" ± ");
        out.push_str(&to_fixed(h, digits));
    }
    if i.n < i.replications {
        out.push_str(&format!(" ({} of {})", i.n, i.replications));
    }
    if i.never > 0 {
        out.push_str("; ");
        out.push_str(&never);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recovery over 10 replications, as the three cases print: every
    /// replication recovered (the interval alone), 3 never did (the
    /// interval of the 7 that did, then how many never did), none did.
    #[test]
    fn a_replicated_recovery_says_how_many_never_came() {
        let i = |n, never| Interval {
            mean: 12.0,
            half_width: Some(0.5),
            n,
            replications: 10,
            never,
            values: Vec::new(),
        };
        assert_eq!(interval_text(&i(10, 0), 1), "12.0 ± 0.5");
        assert_eq!(
            interval_text(&i(7, 3), 1),
            "12.0 ± 0.5 (7 of 10); never (3 of 10)"
        );
        let none = Interval {
            n: 0,
            half_width: None,
            ..i(0, 10)
        };
        assert_eq!(interval_text(&none, 1), "never (10 of 10)");
        // JSON keeps the count and has no mean to give.
        let json = serde_json::to_value(Cell::Interval(none, 1)).unwrap_or_default();
        assert_eq!(json["mean"], serde_json::Value::Null);
        assert_eq!(json["never"], 10);
        // A replication with no value that did not "never" recover (a
        // value with no meaning in it) is only left out of the count.
        assert_eq!(interval_text(&i(9, 0), 1), "12.0 ± 0.5 (9 of 10)");
    }
}
