//! Tables as data, for notebooks: what `--format csv` writes and what the
//! Python package turns into `pandas` frames.
//!
//! The text, markdown and HTML reports are for people: every number is
//! rounded to the digits its column asks for. The data forms are for
//! programs:
//!
//! - numbers as computed, in full precision (Rust's shortest text that
//!   reads back to the same `f64`: `22.333333333333332`, `25`);
//! - a mean over replications is three columns: `X` (the mean),
//!   `X half_width` (of its 95 % interval, empty with one value) and `X n`
//!   (the replications that had a value);
//! - a missing value is an empty field;
//! - one table is a plain CSV file; several are one long table whose
//!   first column, `table`, names the table each row belongs to, and whose
//!   other columns are every table's columns in order of first appearance
//!   (a row leaves the columns of other tables empty), so
//!   `pandas.read_csv(path)` reads the whole report and
//!   `df[df.table == "cases"].dropna(axis=1, how="all")` one table of it;
//!   [`csv_files`] gives one plain file per table instead
//!   (`squall run --format csv --out DIR/`).
//!
//! The JSON report ([`crate::render`]) stays the report as printed, each
//! number with its column's digits: `squall diff` reads it back and shows
//! it as the text does. The sweep's JSON (`squall sweep --format json`) is
//! data, in full precision.

use crate::document::{Block, Cell, Report, Table};
use crate::escape;

impl Report {
    /// The report's tables as CSV: one table a plain CSV file, several one
    /// long table with a `table` column (module docs). Lines of text are
    /// left out; a text field a spreadsheet would run as a formula starts
    /// with `'`.
    pub fn to_csv(&self) -> String {
        tables_csv(&self.data_tables())
    }
}

/// A cell of a data table.
#[derive(Debug, Clone, PartialEq)]
pub enum DataCell {
    /// Text.
    Text(String),
    /// A number, exact.
    Number(f64),
    /// A mean over replications with its interval, exact.
    Interval {
        /// The mean.
        mean: f64,
        /// Half the width of its 95 % interval; `None` with one value.
        half_width: Option<f64>,
        /// Replications with a value.
        n: usize,
        /// Replications run.
        replications: usize,
    },
    /// No value.
    Missing,
}

impl DataCell {
    /// A report cell as data: its number as computed, not as printed.
    pub fn from_cell(c: &Cell) -> DataCell {
        match c {
            Cell::Text(t) => DataCell::Text(t.clone()),
            Cell::Number(x, _) => DataCell::Number(*x),
            Cell::Interval(i, _) => DataCell::Interval {
                mean: i.mean,
                half_width: i.half_width,
                n: i.n,
                replications: i.replications,
            },
            Cell::Missing => DataCell::Missing,
        }
    }
}

/// A table as data: a title, headings and rows of cells.
#[derive(Debug, Clone, PartialEq)]
pub struct DataTable {
    /// The table's title.
    pub title: String,
    /// Headings; label columns first.
    pub columns: Vec<String>,
    /// Rows of cells, one per heading.
    pub rows: Vec<Vec<DataCell>>,
}

impl DataTable {
    /// A report table as data.
    pub fn from_table(t: &Table) -> DataTable {
        DataTable {
            title: t.title.clone(),
            columns: t.columns.clone(),
            rows: t
                .rows
                .iter()
                .map(|r| r.iter().map(DataCell::from_cell).collect())
                .collect(),
        }
    }

    /// The table with each interval column spread over three (`X`,
    /// `X half_width`, `X n`): fields that are text, numbers or empty.
    pub fn flat(&self) -> FlatTable {
        let interval: Vec<bool> = (0..self.columns.len())
            .map(|i| {
                self.rows
                    .iter()
                    .any(|r| matches!(r.get(i), Some(DataCell::Interval { .. })))
            })
            .collect();
        let mut columns = Vec::new();
        for (c, wide) in self.columns.iter().zip(&interval) {
            columns.push(c.clone());
            if *wide {
                columns.push(format!("{c} half_width"));
                columns.push(format!("{c} n"));
            }
        }
        let rows = self
            .rows
            .iter()
            .map(|r| {
                let mut fields = Vec::with_capacity(columns.len());
                for (c, wide) in r.iter().zip(&interval) {
                    match c {
                        DataCell::Interval {
                            mean,
                            half_width,
                            n,
                            ..
                        } => {
                            // No replication had a value: no mean.
                            fields.push(if *n == 0 {
                                Field::Missing
                            } else {
                                Field::Number(*mean)
                            });
                            fields.push(half_width.map_or(Field::Missing, Field::Number));
                            fields.push(Field::Number(*n as f64));
                        }
                        other => {
                            fields.push(match other {
                                DataCell::Text(s) => Field::Text(s.clone()),
                                DataCell::Number(x) => Field::Number(*x),
                                _ => Field::Missing,
                            });
                            if *wide {
                                fields.extend([Field::Missing, Field::Missing]);
                            }
                        }
                    }
                }
                fields
            })
            .collect();
        FlatTable { columns, rows }
    }
}

/// A field of a flat table.
#[derive(Debug, Clone, PartialEq)]
pub enum Field {
    /// Text.
    Text(String),
    /// A number, exact (a count too).
    Number(f64),
    /// No value.
    Missing,
}

/// A table of plain fields: what one CSV file holds, or one `DataFrame`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FlatTable {
    /// Headings.
    pub columns: Vec<String>,
    /// Rows, one field per heading (a row of the long table may be shorter:
    /// the fields it lacks are empty).
    pub rows: Vec<Vec<Field>>,
}

impl FlatTable {
    /// As CSV: a header row, then the rows; numbers in full precision, text
    /// a spreadsheet would run as a formula defused ([`escape::csv_text`]).
    pub fn to_csv(&self) -> String {
        let mut w = crate::csv::writer();
        let _ = w.write_record(self.columns.iter().map(|c| escape::csv_text(c)));
        for r in &self.rows {
            let fields = (0..self.columns.len()).map(|i| match r.get(i) {
                Some(Field::Text(s)) => escape::csv_text(s),
                Some(Field::Number(x)) => full(*x),
                Some(Field::Missing) | None => String::new(),
            });
            let _ = w.write_record(fields);
        }
        crate::csv::finish(w)
    }
}

/// Several tables as one long table: a `table` column, then every table's
/// columns in order of first appearance (the k-th column of a name in a
/// table is the k-th column of that name in the long table).
pub fn long_table(tables: &[DataTable]) -> FlatTable {
    let mut columns = vec!["table".to_string()];
    let mut rows = Vec::new();
    for t in tables {
        let flat = t.flat();
        // Where each of this table's columns goes.
        let mut seen: Vec<&str> = vec!["table"];
        let places: Vec<usize> = flat
            .columns
            .iter()
            .map(|c| {
                let k = seen.iter().filter(|s| **s == c.as_str()).count();
                seen.push(c);
                match columns.iter().enumerate().filter(|(_, x)| *x == c).nth(k) {
                    Some((i, _)) => i,
                    None => {
                        columns.push(c.clone());
                        columns.len() - 1
                    }
                }
            })
            .collect();
        for r in flat.rows {
            let mut row = vec![Field::Text(t.title.clone())];
            for (field, &at) in r.into_iter().zip(&places) {
                if row.len() <= at {
                    row.resize(at + 1, Field::Missing);
                }
                row[at] = field;
            }
            rows.push(row);
        }
    }
    FlatTable { columns, rows }
}

/// Tables as CSV: one table as a plain file, several as one long table
/// ([`long_table`]); no table, an empty text.
pub fn tables_csv(tables: &[DataTable]) -> String {
    match tables {
        [] => String::new(),
        [one] => one.flat().to_csv(),
        several => long_table(several).to_csv(),
    }
}

/// One plain CSV file per table, named after its title
/// ([`file_stem`], `-2`, `-3`... after a name taken before): `(file name,
/// contents)` in the report's order.
pub fn csv_files(tables: &[DataTable]) -> Vec<(String, String)> {
    let mut taken: Vec<String> = Vec::new();
    tables
        .iter()
        .map(|t| {
            let stem = file_stem(&t.title);
            let mut name = format!("{stem}.csv");
            let mut k = 2;
            while taken.contains(&name) {
                name = format!("{stem}-{k}.csv");
                k += 1;
            }
            taken.push(name.clone());
            (name, t.flat().to_csv())
        })
        .collect()
}

/// A file name for a title: lowercase ASCII letters and digits, every other
/// run of characters one `-`, at most 60 characters; `table` when nothing
/// is left.
pub fn file_stem(title: &str) -> String {
    let mut out = String::new();
    for ch in title.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.truncate(60);
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        "table".to_string()
    } else {
        out.to_string()
    }
}

/// A number in full precision (the shortest text that reads back to the
/// same `f64`); empty when not finite.
pub fn full(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        String::new()
    }
}

/// A number in full precision as JSON: a whole number as an integer (exact
/// below 2^53), `null` when not finite.
pub fn json_number(x: f64) -> serde_json::Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        return serde_json::Value::from(x as i64);
    }
    serde_json::Number::from_f64(x).map_or(serde_json::Value::Null, Into::into)
}

impl Report {
    /// The report's tables as data, in order (lines are left out).
    pub fn data_tables(&self) -> Vec<DataTable> {
        self.blocks
            .iter()
            .filter_map(|b| match b {
                Block::Table(t) => Some(DataTable::from_table(t)),
                Block::Line { .. } => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interval::Interval;

    #[test]
    fn formulas_are_defused_numbers_are_not() {
        let t = Table {
            title: "t".into(),
            columns: vec!["=cmd".into(), "n".into()],
            rows: vec![vec![Cell::Text("@SUM(A1)".into()), Cell::Number(-1.5, 1)]],
        };
        let out = DataTable::from_table(&t).flat().to_csv();
        assert_eq!(out, "'=cmd,n\n'@SUM(A1),-1.5\n");
    }

    #[test]
    fn one_table_is_plain_csv() {
        let r = Report {
            title: "t".into(),
            meta: vec![],
            blocks: vec![
                Block::text("x".into()),
                Block::Table(Table {
                    title: "load".into(),
                    columns: vec!["case".into(), "calls, per round".into()],
                    rows: vec![
                        vec![Cell::Text("a".into()), Cell::Number(2.5, 2)],
                        vec![Cell::Text("b".into()), Cell::Missing],
                    ],
                }),
            ],
            pairing: None,
        };
        // 2.5 as computed (the text report prints `2.50`).
        assert_eq!(r.to_csv(), "case,\"calls, per round\"\na,2.5\nb,\n");
    }

    fn table(title: &str, columns: &[&str], rows: Vec<Vec<Cell>>) -> Table {
        Table {
            title: title.into(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows,
        }
    }

    #[test]
    fn numbers_are_as_computed_and_intervals_are_three_columns() {
        // 67/3 prints `22.33` in a report; as data it is the f64 itself,
        // whose shortest round-trip text is Rust's `{}` of it.
        let t = table(
            "t",
            &["case", "calls", "rate"],
            vec![
                vec![
                    Cell::Text("a".into()),
                    Cell::Number(67.0 / 3.0, 2),
                    Cell::Interval(
                        Interval {
                            mean: 3.95,
                            half_width: Some(0.08),
                            n: 10,
                            replications: 10,
                            never: 0,
                            values: Vec::new(),
                        },
                        2,
                    ),
                ],
                vec![Cell::Text("b".into()), Cell::Missing, Cell::Missing],
            ],
        );
        let csv = DataTable::from_table(&t).flat().to_csv();
        assert_eq!(
            csv,
            "case,calls,rate,rate half_width,rate n\n\
             a,22.333333333333332,3.95,0.08,10\n\
             b,,,,\n"
        );
    }

    #[test]
    fn several_tables_are_one_long_table_with_a_table_column() {
        let one = table(
            "cases",
            &["case", "calls"],
            vec![vec![Cell::Text("a".into()), Cell::Number(2.0, 2)]],
        );
        let two = table(
            "allowance",
            &["tries", "calls", "dropped"],
            vec![vec![
                Cell::Text("3".into()),
                Cell::Number(25.0, 2),
                Cell::Number(0.0, 0),
            ]],
        );
        let csv = tables_csv(&[DataTable::from_table(&one), DataTable::from_table(&two)]);
        // `calls` is one column for both tables; the others are each
        // table's own, empty in the other's rows.
        assert_eq!(
            csv,
            "table,case,calls,tries,dropped\n\
             cases,a,2,,\n\
             allowance,,25,3,0\n"
        );
    }

    #[test]
    fn a_repeated_heading_keeps_its_own_column() {
        let t = table(
            "t",
            &["x", "v", "v"],
            vec![vec![
                Cell::Text("a".into()),
                Cell::Number(1.0, 0),
                Cell::Number(2.0, 0),
            ]],
        );
        let long = long_table(&[DataTable::from_table(&t), DataTable::from_table(&t)]);
        assert_eq!(long.columns, ["table", "x", "v", "v"]);
        assert_eq!(long.rows[1][3], Field::Number(2.0));
    }

    #[test]
    fn file_names_come_from_titles_and_stay_unique() {
        assert_eq!(
            file_stem("accounting: every request ends completed"),
            "accounting-every-request-ends-completed"
        );
        assert_eq!(file_stem("→ ←"), "table");
        let t = |title: &str| DataTable {
            title: title.into(),
            columns: vec!["x".into()],
            rows: vec![],
        };
        let names: Vec<String> = csv_files(&[t("Load"), t("load"), t("load!")])
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names, ["load.csv", "load-2.csv", "load-3.csv"]);
    }
}
