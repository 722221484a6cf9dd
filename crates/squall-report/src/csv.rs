//! CSV renderings of a report's tables.
//!
//! A report with one table becomes a plain CSV file: a header row, then one
//! row per table row. A report with several tables becomes one such block
//! per table, each after a `# title` line and separated by an empty line
//! (`pandas.read_csv(..., comment="#")` reads one block at a time).
//! Lines of text are left out. Numbers are printed as in the text report;
//! a missing value is an empty field. Fields holding `,`, `"` or a line
//! break are quoted (RFC 4180).

use crate::document::{Block, Cell, Report, Table};

impl Report {
    /// The report's tables as CSV.
    pub fn to_csv(&self) -> String {
        let tables: Vec<&Table> = self
            .blocks
            .iter()
            .filter_map(|b| match b {
                Block::Table(t) => Some(t),
                Block::Line { .. } => None,
            })
            .collect();
        let mut out = String::new();
        if let [only] = tables.as_slice() {
            table_csv(only, &mut out);
            return out;
        }
        for (i, t) in tables.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str("# ");
            out.push_str(&t.title.replace('\n', " "));
            out.push('\n');
            table_csv(t, &mut out);
        }
        out
    }
}

/// One table as CSV: a header row and its rows.
pub fn table_csv(t: &Table, out: &mut String) {
    let header: Vec<String> = t.columns.iter().map(|c| field(c)).collect();
    out.push_str(&header.join(","));
    out.push('\n');
    for row in &t.rows {
        let cells: Vec<String> = row
            .iter()
            .map(|c| match c {
                Cell::Missing => String::new(),
                other => field(&other.display()),
            })
            .collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
}

/// A field, quoted when it must be.
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a, b"), "\"a, b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }

    #[test]
    fn one_table_is_plain_csv() {
        let r = Report {
            title: "t".into(),
            meta: vec![],
            blocks: vec![
                Block::Line { text: "x".into() },
                Block::Table(Table {
                    title: "load".into(),
                    columns: vec!["case".into(), "calls, per round".into()],
                    rows: vec![
                        vec![Cell::Text("a".into()), Cell::Number(2.5, 2)],
                        vec![Cell::Text("b".into()), Cell::Missing],
                    ],
                }),
            ],
        };
        assert_eq!(r.to_csv(), "case,\"calls, per round\"\na,2.50\nb,\n");
    }
}
