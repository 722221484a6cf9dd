//! Helpers shared by the integration tests.

use std::path::PathBuf;

use squall_engine::Observations;
use squall_lang::{Metric, RExpr, RunKey, Scenario, Setting};
use squall_report::eval::Ctx;
use squall_report::{Block, Report, Study, StudyOptions, Table};

/// A test's result: any error fails the test with its message.
pub type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The retry-storm scenario, relative to the package root (as the reports
/// print it).
pub const RETRY_STORM: &str = "scenarios/retry-storm.squall";

/// The package root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Loads a scenario file of the package, named by its relative path.
pub fn load_file(rel: &str) -> Result<Scenario, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(root().join(rel))?;
    Ok(squall_lang::load(rel, &text)?)
}

/// Loads scenario text written by a test.
pub fn load_text(name: &str, text: &str) -> Result<Scenario, Box<dyn std::error::Error>> {
    squall_lang::load(name, text).map_err(|d| format!("{d}\n--- scenario ---\n{text}").into())
}

/// A `--set name=value` setting, as the CLI builds it.
pub fn setting(name: &str, value: &str) -> Setting {
    Setting {
        name: name.to_string(),
        value: squall_lang::parse::parse_value(value)
            .unwrap_or_else(|d| panic!("`{value}` is not a value: {}", d.message)),
        origin: Some(format!("--set {name}={value}")),
    }
}

/// Runs a study and checks every run's accounting.
pub fn run_study<'s>(
    scenario: &'s Scenario,
    cli: Vec<Setting>,
    variants: Option<Vec<usize>>,
) -> Result<Study<'s>, Box<dyn std::error::Error>> {
    let study = Study::run(scenario, StudyOptions { cli, variants })?;
    for run in study.runs.values() {
        assert_accounts(&run.obs, &format!("{} {:?}", scenario.file, run.key));
    }
    Ok(study)
}

/// Nothing is lost: every request that entered is completed, dropped or in
/// flight, and the entries are the sum of the arrivals.
pub fn assert_accounts(obs: &Observations, what: &str) {
    let a = obs.accounting;
    assert!(a.balances(), "{what}: accounting does not balance: {a:?}");
    let arrivals: u64 = obs.arrivals.iter().map(|&x| u64::from(x)).sum();
    assert_eq!(a.entered, arrivals, "{what}: entered vs sum of arrivals");
    let completed: u64 = obs.completed.iter().map(|&x| u64::from(x)).sum();
    let dropped: u64 = obs.dropped.iter().map(|&x| u64::from(x)).sum();
    assert_eq!(a.completed, completed, "{what}: completed vs its series");
    assert_eq!(a.dropped, dropped, "{what}: dropped vs its series");
}

/// The index of a variant by name.
pub fn variant(s: &Scenario, name: &str) -> usize {
    s.variants
        .iter()
        .position(|v| v.name == name)
        .unwrap_or_else(|| panic!("no variant `{name}`"))
}

/// The index of a node by name.
pub fn node(s: &Scenario, name: &str) -> usize {
    s.nodes
        .iter()
        .position(|n| n.name == name)
        .unwrap_or_else(|| panic!("no node `{name}`"))
}

/// The index of a window by name.
pub fn window(s: &Scenario, name: &str) -> usize {
    s.windows
        .iter()
        .position(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no window `{name}`"))
}

/// A measure of the report, by name.
pub fn measure(s: &Scenario, name: &str) -> usize {
    s.report
        .measures
        .iter()
        .position(|m| m.name == name)
        .unwrap_or_else(|| panic!("no measure `{name}`"))
}

/// The value of measure `name` in `run`.
pub fn eval_measure(study: &Study, run: RunKey, name: &str) -> Option<f64> {
    let e = RExpr::Measure {
        variant: None,
        measure: measure(study.scenario, name),
    };
    study.eval(
        &e,
        Ctx {
            run,
            window: None,
            node: None,
        },
    )
}

/// The value of `metric` over window `w` (at `node` for node metrics).
pub fn eval_metric(
    study: &Study,
    run: RunKey,
    w: usize,
    node: Option<usize>,
    metric: Metric,
) -> Option<f64> {
    let e = RExpr::Metric {
        variant: None,
        window: Some(w),
        node,
        metric,
    };
    study.eval(
        &e,
        Ctx {
            run,
            window: None,
            node: None,
        },
    )
}

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
