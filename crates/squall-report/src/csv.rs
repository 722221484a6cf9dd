//! CSV renderings of a report's tables, as data ([`crate::data`]).
//!
//! A report with one table becomes a plain CSV file: a header row, then one
//! row per table row. A report with several tables becomes one long table
//! whose first column, `table`, names each row's table
//! ([`crate::data::long_table`]). Lines of text are left out. Numbers are
//! the numbers as computed, in full precision (the text report rounds
//! them); a mean over replications is three columns (`X`, `X half_width`,
//! `X n`); a missing value is an empty field. Written with the `csv` crate:
//! fields holding `,`, `"`, a carriage return or a line break are quoted
//! (RFC 4180); a text field a spreadsheet would run as a formula starts
//! with `'`.

use crate::document::Report;

impl Report {
    /// The report's tables as CSV (module docs).
    pub fn to_csv(&self) -> String {
        crate::data::tables_csv(&self.data_tables())
    }
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
    use crate::document::{Block, Cell, Table};

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
        let out = crate::data::DataTable::from_table(&t).flat().to_csv();
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
        // 2.5 as computed (the text report prints `2.50`).
        assert_eq!(r.to_csv(), "case,\"calls, per round\"\na,2.5\nb,\n");
    }
}
