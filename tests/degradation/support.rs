//! Helpers: run scenario text, read the report as JSON, find runs and
//! locate diagnostics.

use std::path::PathBuf;

use serde_json::Value;
use squall_engine::{CompositeSeries, Observations};
use squall_lang::RunKey;
use squall_report::{Run, Study, StudyOptions};

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Reads a file under the workspace root.
pub fn read(relative: &str) -> String {
    let path = root().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A finished study: the report as JSON and as text, and every run.
pub struct Ran {
    pub name: String,
    pub json: Value,
    pub text: String,
    pub runs: Vec<Run>,
}

/// Loads and runs scenario text; every run's accounting must balance.
pub fn run(name: &str, text: &str) -> Ran {
    let scenario = squall_lang::load(name, text)
        .unwrap_or_else(|d| panic!("{name} does not load:\n{}\n{text}", d.to_plain()));
    let study = Study::run(&scenario, StudyOptions::default())
        .unwrap_or_else(|e| panic!("{name} does not run: {e}"));
    for run in study.runs.values() {
        let a = run.obs.accounting;
        assert!(
            a.balances(),
            "{name}: run {:?} does not account for every request: {a:?}",
            run.key
        );
    }
    for e in study.expectations() {
        assert!(
            e.passed,
            "{name}: `{}` does not hold ({:?})",
            e.text, e.actual
        );
    }
    let report = study.report();
    let json: Value = serde_json::from_str(&report.to_json()).expect("the report's JSON parses");
    Ran {
        name: name.to_string(),
        json,
        text: report.to_text(),
        runs: study.runs.values().cloned().collect(),
    }
}

/// Runs a scenario file of `scenarios/`.
pub fn run_file(relative: &str) -> Ran {
    run(relative, &read(relative))
}

/// A JSON cell as text (a number in its shortest form).
fn cell(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Null => "—".to_string(),
        other => other.to_string(),
    }
}

/// Rows of strings, for comparing with a table.
pub fn rows(want: &[&[&str]]) -> Vec<Vec<String>> {
    want.iter()
        .map(|r| r.iter().map(|c| c.to_string()).collect())
        .collect()
}

impl Ran {
    fn block(&self, title: &str) -> &Value {
        let blocks = self.json["blocks"].as_array().expect("blocks");
        blocks
            .iter()
            .find(|b| b["kind"] == "table" && b["title"] == title)
            .unwrap_or_else(|| {
                let titles: Vec<&Value> = blocks.iter().map(|b| &b["title"]).collect();
                panic!(
                    "{}: no table titled {title:?}; tables: {titles:?}",
                    self.name
                )
            })
    }

    /// The rows of the table titled `title`, each cell as printed.
    pub fn table(&self, title: &str) -> Vec<Vec<String>> {
        self.block(title)["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|r| r.as_array().expect("a row").iter().map(cell).collect())
            .collect()
    }

    /// The rows of the table titled `title` as the text report prints them
    /// (cells are separated by two spaces or more).
    pub fn printed(&self, title: &str) -> Vec<Vec<String>> {
        let mut lines = self.text.lines().skip_while(|l| *l != title);
        assert!(
            lines.next().is_some(),
            "{}: no table {title:?} in the text",
            self.name
        );
        lines
            .skip(2)
            .take_while(|l| !l.trim().is_empty())
            .map(|l| {
                l.split("  ")
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .map(String::from)
                    .collect()
            })
            .collect()
    }

    /// Checks the table titled `title` twice: its cells as the text report
    /// prints them, and as data in the JSON report (a number there equals
    /// the printed number).
    pub fn assert_table(&self, title: &str, columns: &[&str], want: &[&[&str]]) {
        assert_eq!(self.columns(title), columns, "{title}: columns");
        assert_eq!(self.printed(title), rows(want), "{title}: as printed");
        let data = self.block(title)["rows"].as_array().expect("rows").clone();
        assert_eq!(data.len(), want.len(), "{title}: rows");
        for (got, want) in data.iter().zip(want) {
            let got = got.as_array().expect("a row");
            assert_eq!(got.len(), want.len(), "{title}: {got:?}");
            for (g, w) in got.iter().zip(want.iter()) {
                match g {
                    Value::Number(n) => assert_eq!(
                        n.as_f64(),
                        w.parse::<f64>().ok(),
                        "{title}: JSON {n} for printed {w}"
                    ),
                    other => assert_eq!(cell(other), *w, "{title}"),
                }
            }
        }
    }

    /// The column headings of the table titled `title`.
    pub fn columns(&self, title: &str) -> Vec<String> {
        self.block(title)["columns"]
            .as_array()
            .expect("columns")
            .iter()
            .map(cell)
            .collect()
    }

    /// Every `line` block's text, in order.
    pub fn lines(&self) -> Vec<String> {
        self.json["blocks"]
            .as_array()
            .expect("blocks")
            .iter()
            .filter(|b| b["kind"] == "line")
            .map(|b| b["text"].as_str().expect("a line's text").to_string())
            .collect()
    }

    /// The run with this key.
    pub fn run_of(&self, key: RunKey) -> &Run {
        self.runs
            .iter()
            .find(|r| r.key == key)
            .unwrap_or_else(|| panic!("{}: no run {key:?}", self.name))
    }
}

/// The composite series and the per-tick answers of node `node` in `obs`.
pub fn composite<'o>(obs: &'o Observations, node: &str) -> (&'o CompositeSeries, &'o [u32]) {
    let n = obs
        .nodes
        .iter()
        .find(|n| n.name == node)
        .unwrap_or_else(|| panic!("no node `{node}`"));
    let c = n
        .composite
        .as_ref()
        .unwrap_or_else(|| panic!("`{node}` has no composite series"));
    (c, &n.ok)
}

/// `(line, column)`, both 1-based, of byte offset `at` in `text`.
pub fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}
