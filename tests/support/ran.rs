//! A finished study as the tests read it ([`Ran`]): the report as JSON and
//! as text, and every run; and operation records in the terms tests compare.

use serde_json::Value;
use squall_engine::{CompositeSeries, Observations};
use squall_lang::RunKey;
use squall_report::words;
use squall_report::{Run, Study, StudyOptions};

use super::{assert_accounts, read};

/// A finished study: the report as JSON and as text, and every run.
pub struct Ran {
    pub name: String,
    pub json: Value,
    pub text: String,
    pub runs: Vec<Run>,
}

/// Loads and runs scenario text: every run's accounting must balance and
/// every `expect` line must hold.
pub fn run(name: &str, text: &str) -> Ran {
    let scenario = squall_lang::load(name, text)
        .unwrap_or_else(|d| panic!("{name} does not load:\n{}\n{text}", d.to_plain()));
    let study = Study::run(&scenario, StudyOptions::default())
        .unwrap_or_else(|e| panic!("{name} does not run: {e}"));
    for run in study.runs.values() {
        assert_accounts(&run.obs, &format!("{name}: run {:?}", run.key));
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

    /// True when some line reads exactly `text`.
    pub fn has_line(&self, text: &str) -> bool {
        self.lines().iter().any(|l| l == text)
    }

    /// The observations of the only run.
    pub fn obs(&self) -> &Observations {
        assert_eq!(self.runs.len(), 1, "{}: expected one run", self.name);
        &self.runs[0].obs
    }

    /// The operations of the first sequential source.
    pub fn ops(&self) -> Vec<Op> {
        let obs = self.obs();
        let ops = obs
            .ops
            .iter()
            .find(|o| !o.is_empty())
            .unwrap_or_else(|| panic!("{}: no operations ran", self.name));
        let unit = self.runs[0].model.clock.unit_name();
        ops.iter()
            .map(|r| Op {
                label: r.label.clone(),
                tries: r.tries,
                outcome: words::answer(r.answer, unit),
                waits: r.waits.clone(),
                start: r.start,
                end: r.end,
            })
            .collect()
    }

    /// The breaker trace of the node called `node`, in the report's words.
    pub fn trace(&self, node: &str) -> Vec<Traced> {
        let obs = self.obs();
        let i = obs
            .nodes
            .iter()
            .position(|n| n.name == node)
            .unwrap_or_else(|| panic!("{}: no node `{node}`", self.name));
        let unit = self.runs[0].model.clock.unit_name();
        obs.traces[i]
            .iter()
            .map(|r| Traced {
                time: r.time,
                sent: r.sent,
                scope: words::trace_scope(r, &obs.paths).to_string(),
                before: words::state(r.before),
                outcome: words::trace_outcome(r, unit),
                after: words::state(r.after),
            })
            .collect()
    }

    /// Calls the node called `node` saw over the whole run.
    pub fn calls(&self, node: &str) -> u64 {
        let obs = self.obs();
        let n = obs
            .nodes
            .iter()
            .find(|n| n.name == node)
            .unwrap_or_else(|| panic!("{}: no node `{node}`", self.name));
        n.calls.iter().map(|&c| u64::from(c)).sum()
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

/// One operation, in the terms tests compare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Op {
    pub label: String,
    pub tries: u32,
    pub outcome: String,
    pub waits: Vec<u64>,
    pub start: u64,
    pub end: u64,
}

/// One breaker decision, in the words the trace prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Traced {
    pub time: u64,
    pub sent: bool,
    pub scope: String,
    pub before: &'static str,
    pub outcome: String,
    pub after: &'static str,
}

/// `(label, tries, outcome, waits)` of each operation.
pub fn summary(ops: &[Op]) -> Vec<(String, u32, String, Vec<u64>)> {
    ops.iter()
        .map(|o| (o.label.clone(), o.tries, o.outcome.clone(), o.waits.clone()))
        .collect()
}

/// Builds an expected operation summary row.
pub fn op(
    label: &str,
    tries: u32,
    outcome: &str,
    waits: &[u64],
) -> (String, u32, String, Vec<u64>) {
    (
        label.to_string(),
        tries,
        outcome.to_string(),
        waits.to_vec(),
    )
}
