//! Reading report tables: by title, row and column, in the report itself
//! and in its JSON; and numbers as the documents print them.

use squall_report::{Block, Report, Table};

/// A report's table whose title starts with `prefix`.
pub fn report_table<'r>(report: &'r Report, prefix: &str) -> &'r Table {
    report
        .blocks
        .iter()
        .find_map(|b| match b {
            Block::Table(t) if t.title.starts_with(prefix) => Some(t),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no table `{prefix}...`"))
}

/// The printed cell of a report table, by row label and column heading.
pub fn report_cell(table: &Table, row: &str, column: &str) -> String {
    let c = table
        .columns
        .iter()
        .position(|h| h == column)
        .unwrap_or_else(|| panic!("table `{}` has no column `{column}`", table.title));
    let r = table
        .rows
        .iter()
        .find(|r| r.first().map(|c| c.display()).as_deref() == Some(row))
        .unwrap_or_else(|| panic!("table `{}` has no row `{row}`", table.title));
    r[c].display()
}

/// The row labels of a report table.
pub fn row_labels(table: &Table) -> Vec<String> {
    table
        .rows
        .iter()
        .filter_map(|r| r.first().map(|c| c.display()))
        .collect()
}

/// A JSON report's table whose title starts with `prefix`.
pub fn json_table<'j>(json: &'j serde_json::Value, prefix: &str) -> &'j serde_json::Value {
    json["blocks"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|b| {
            b["kind"] == "table" && b["title"].as_str().is_some_and(|t| t.starts_with(prefix))
        })
        .unwrap_or_else(|| panic!("no JSON table `{prefix}...`"))
}

/// A JSON table's cell, by row label and column heading.
pub fn json_cell<'j>(
    table: &'j serde_json::Value,
    row: &str,
    column: &str,
) -> &'j serde_json::Value {
    let c = table["columns"]
        .as_array()
        .and_then(|cols| cols.iter().position(|h| h == column))
        .unwrap_or_else(|| panic!("JSON table has no column `{column}`"));
    let r = table["rows"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r[0] == row))
        .unwrap_or_else(|| panic!("JSON table has no row `{row}`"));
    &r[c]
}

/// The JSON report's lines of text.
pub fn json_lines(json: &serde_json::Value) -> Vec<String> {
    json["blocks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["kind"] == "line")
        .filter_map(|b| b["text"].as_str().map(str::to_string))
        .collect()
}

/// Digits after the point in a number as printed (`"0.7308"` has 4).
pub fn digits_of(printed: &str) -> usize {
    printed.split_once('.').map_or(0, |(_, f)| f.len())
}

/// `x` printed as the documents print it (JavaScript `toFixed`).
pub fn fixed(x: f64, digits: usize) -> String {
    squall_report::number::to_fixed(x, digits)
}
