//! CSV renderings of a report's tables.
//!
//! A report with one table becomes a plain CSV file: a header row, then one
//! row per table row. A report with several tables becomes one such block
//! per table, each after a `# title` line and separated by an empty line
//! (`pandas.read_csv(..., comment="#")` reads one block at a time).
//! Lines of text are left out. Numbers are printed as in the text report;
//! a missing value is an empty field. Written with the `csv` crate: fields
//! holding `,`, `"`, a carriage return or a line break are quoted (RFC
//! 4180); a text field a spreadsheet would run as a formula starts with `'`.

use crate::document::{Block, Cell, Report, Table};
use crate::escape;

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

/// One table as CSV: a header row and its rows. Text cells that a
/// spreadsheet would run as a formula are defused ([`escape::csv_text`]).
pub fn table_csv(t: &Table, out: &mut String) {
    let mut w = writer();
    let text = |s: &str| escape::csv_text(s);
    let _ = w.write_record(t.columns.iter().map(|c| text(c)));
    for row in &t.rows {
        let _ = w.write_record(row.iter().map(|c| match c {
            Cell::Missing => String::new(),
            Cell::Text(s) => text(s),
            other => other.display(),
        }));
    }
    out.push_str(&finish(w));
}

/// A CSV writer into memory: RFC 4180 quoting (a field holding `,`, `"`,
/// a carriage return or a line break is quoted), `\n` line ends, rows of
/// any length.
pub fn writer() -> ::csv::Writer<Vec<u8>> {
    ::csv::WriterBuilder::new()
        .terminator(::csv::Terminator::Any(b'\n'))
        .flexible(true)
        .from_writer(Vec::new())
}

/// What `w` wrote, as text.
pub fn finish(w: ::csv::Writer<Vec<u8>>) -> String {
    let bytes = w
        .into_inner()
        .unwrap_or_else(|e| e.into_inner().get_ref().clone());
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A field, quoted when it must be.
pub fn field(s: &str) -> String {
    let mut w = writer();
    let _ = w.write_record([s]);
    let mut f = finish(w);
    f.pop();
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a, b"), "\"a, b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("carriage\rreturn"), "\"carriage\rreturn\"");
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
    }

    #[test]
    fn formulas_are_defused_numbers_are_not() {
        let t = Table {
            title: "t".into(),
            columns: vec!["=cmd".into(), "n".into()],
            rows: vec![vec![Cell::Text("@SUM(A1)".into()), Cell::Number(-1.5, 1)]],
        };
        let mut out = String::new();
        table_csv(&t, &mut out);
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
        };
        assert_eq!(r.to_csv(), "case,\"calls, per round\"\na,2.50\nb,\n");
    }
}
