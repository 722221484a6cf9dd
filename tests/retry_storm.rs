//! Document 000 (retry storm in a three-layer chain): every number of
//! PINNED.md section 000 out of `scenarios/retry-storm.squall`, checked
//! explicitly, then the whole report pinned by snapshots.

use squall_lang::{Metric, RunKey};
use squall_report::Study;

use crate::support::*;

/// The document's cases table: row, then edge/round, calls/round,
/// unique/round, amplification, success, as printed.
pub const CASES: [(&str, [&str; 5]); 9] = [
    (
        "demand grew: before",
        ["4.00", "4.00", "4.00", "1.00", "1.0000"],
    ),
    (
        "demand grew: during",
        ["8.00", "8.00", "8.00", "1.00", "1.0000"],
    ),
    (
        "demand grew: after",
        ["4.00", "4.00", "4.00", "1.00", "1.0000"],
    ),
    ("storm: before", ["4.00", "4.00", "4.00", "1.00", "1.0000"]),
    ("storm: during", ["4.00", "25.00", "4.00", "6.25", "0.0400"]),
    ("storm: after", ["4.00", "6.50", "4.75", "1.37", "0.7308"]),
    (
        "no retries: before",
        ["4.00", "4.00", "4.00", "1.00", "1.0000"],
    ),
    (
        "no retries: during",
        ["4.00", "4.00", "4.00", "1.00", "0.2500"],
    ),
    (
        "no retries: after",
        ["4.00", "4.00", "4.00", "1.00", "1.0000"],
    ),
];

/// The scenario's headings of the cases table, in the document's order.
pub const CASE_COLUMNS: [&str; 5] = [
    "edge/round",
    "calls/round",
    "unique/round",
    "amplification",
    "success",
];

/// The metric behind each cases column, per the document's `pencere`.
pub const CASE_METRICS: [Metric; 5] = [
    Metric::EdgeRate,
    Metric::CallRate,
    Metric::UniqueRate,
    Metric::Amplification,
    Metric::SuccessRate,
];

/// The document's allowance table: tries per layer, then calls/round,
/// amplification (both over 101..160), dropped (101..400), recovery, success
/// (101..160), as printed.
pub const ALLOWANCE: [(&str, [&str; 5]); 3] = [
    ("3", ["25.00", "6.25", "0", "25", "0.0400"]),
    ("2", ["22.33", "5.58", "68", "17", "0.0448"]),
    ("1", ["4.00", "1.00", "180", "1", "0.2500"]),
];

/// The scenario's headings of the allowance table.
pub const ALLOWANCE_COLUMNS: [&str; 5] = [
    "calls/round",
    "amplification",
    "dropped",
    "recovery",
    "success",
];

/// The variant and window a cases row refers to.
fn case_of(label: &str) -> (&'static str, &'static str) {
    let (case, win) = label.split_once(": ").expect("row label `case: window`");
    let v = match case {
        "demand grew" => "grew",
        "storm" => "storm",
        "no retries" => "no_retries",
        other => panic!("unknown case `{other}`"),
    };
    let w = match win {
        "before" => "before",
        "during" => "during",
        "after" => "after",
        other => panic!("unknown window `{other}`"),
    };
    (v, w)
}

fn storm_study(s: &squall_lang::Scenario) -> Result<Study<'_>, Box<dyn std::error::Error>> {
    run_study(s, vec![], None)
}

#[test]
fn cases_table_from_the_json_report() -> TestResult {
    let s = load_file(RETRY_STORM)?;
    let study = storm_study(&s)?;
    let json: serde_json::Value = serde_json::from_str(&study.report().to_json())?;
    let table = json_table(&json, "cases");
    let labels: Vec<&str> = table["rows"]
        .as_array()
        .ok_or("rows")?
        .iter()
        .filter_map(|r| r[0].as_str())
        .collect();
    let want: Vec<&str> = CASES.iter().map(|(l, _)| *l).collect();
    assert_eq!(
        labels, want,
        "the cases table's rows, in the document's order"
    );
    for (row, values) in CASES {
        for (col, expected) in CASE_COLUMNS.iter().zip(values) {
            let cell = json_cell(table, row, col);
            let x = cell
                .as_f64()
                .ok_or_else(|| format!("{row} / {col}: {cell} is not a number"))?;
            assert_eq!(fixed(x, digits_of(expected)), expected, "{row} / {col}");
        }
    }
    Ok(())
}

#[test]
fn cases_table_from_study_eval() -> TestResult {
    let s = load_file(RETRY_STORM)?;
    let study = storm_study(&s)?;
    let db = node(&s, "db");
    for (row, values) in CASES {
        let (v, w) = case_of(row);
        let run = RunKey::Variant(variant(&s, v));
        for ((col, metric), expected) in CASE_COLUMNS.iter().zip(CASE_METRICS).zip(values) {
            let x = eval_metric(&study, run, window(&s, w), Some(db), metric)
                .ok_or_else(|| format!("{row} / {col}: no value"))?;
            assert_eq!(fixed(x, digits_of(expected)), expected, "{row} / {col}");
        }
    }
    // The printed text agrees with the data cell for cell.
    let report = study.report();
    let table = report_table(&report, "cases");
    for (row, values) in CASES {
        for (col, expected) in CASE_COLUMNS.iter().zip(values) {
            assert_eq!(report_cell(table, row, col), expected, "{row} / {col}");
        }
    }
    Ok(())
}

#[test]
fn served_calls_normal_rate_recovery_peak_and_bound() -> TestResult {
    let s = load_file(RETRY_STORM)?;
    let study = storm_study(&s)?;
    let db = node(&s, "db");
    let during = window(&s, "during");
    let storm = RunKey::Variant(variant(&s, "storm"));
    let no_retries = RunKey::Variant(variant(&s, "no_retries"));
    let value = |run, name: &str| {
        eval_measure(&study, run, name).unwrap_or_else(|| panic!("{name} in {run:?}: no value"))
    };

    // Served calls/round during the fault = call rate x success.
    for (v, expected) in [("grew", "8.00"), ("storm", "1.00"), ("no_retries", "1.00")] {
        let run = RunKey::Variant(variant(&s, v));
        assert_eq!(fixed(value(run, "served_calls"), 2), expected, "{v}");
        let rate = eval_metric(&study, run, during, Some(db), Metric::CallRate).ok_or("rate")?;
        let success =
            eval_metric(&study, run, during, Some(db), Metric::SuccessRate).ok_or("success")?;
        assert_eq!(
            fixed(rate * success, 2),
            expected,
            "{v}: call rate x success"
        );
    }

    let normal = value(storm, "normal");
    assert_eq!(fixed(normal, 2), "4.00", "normal call rate");
    assert_eq!(fixed(value(storm, "recovery"), 0), "25", "storm recovery");
    assert_eq!(
        fixed(value(no_retries, "recovery"), 0),
        "1",
        "no-retries recovery"
    );
    let peak = value(storm, "peak");
    assert_eq!(fixed(peak, 0), "49", "storm peak");
    assert_eq!(fixed(peak / normal, 2), "12.25", "peak / normal");
    assert_eq!(
        fixed(value(storm, "bound"), 0),
        "27",
        "3^3 calls per request"
    );

    // The same numbers, as the report's lines print them.
    let json: serde_json::Value = serde_json::from_str(&study.report().to_json())?;
    let lines = json_lines(&json).join("\n");
    for piece in [
        "demand grew 8.00, storm 1.00, no retries 1.00",
        "normal call rate 4.00/round",
        "recovery 25 rounds;",
        "without retries, recovery takes 1 round",
        "storm peak 49 calls/round = 12.25 x normal",
        "arithmetic upper bound: 27 calls per request",
    ] {
        assert!(
            lines.contains(piece),
            "`{piece}` not in the report's lines:\n{lines}"
        );
    }
    Ok(())
}

#[test]
fn allowance_table() -> TestResult {
    let s = load_file(RETRY_STORM)?;
    let study = storm_study(&s)?;
    let report = study.report();
    let json: serde_json::Value = serde_json::from_str(&report.to_json())?;
    let table = json_table(&json, "what cutting the allowance buys");
    let text_table = report_table(&report, "what cutting the allowance buys");
    let want: Vec<&str> = ALLOWANCE.iter().map(|(l, _)| *l).collect();
    assert_eq!(row_labels(text_table), want, "one row per tries per layer");
    for (row, values) in ALLOWANCE {
        for (col, expected) in ALLOWANCE_COLUMNS.iter().zip(values) {
            let cell = json_cell(table, row, col);
            let x = cell
                .as_f64()
                .ok_or_else(|| format!("{row} / {col}: {cell} is not a number"))?;
            assert_eq!(fixed(x, digits_of(expected)), expected, "{row} / {col}");
            assert_eq!(report_cell(text_table, row, col), expected, "{row} / {col}");
        }
    }

    // Each row through `Study::eval`, straight from the sweep's runs.
    let db = node(&s, "db");
    let (during, aftermath) = (window(&s, "during"), window(&s, "aftermath"));
    for (p, (row, values)) in ALLOWANCE.iter().enumerate() {
        let run = RunKey::Point(0, p);
        assert_eq!(study.run_label(run), *row);
        let got = [
            eval_metric(&study, run, during, Some(db), Metric::CallRate),
            eval_metric(&study, run, during, Some(db), Metric::Amplification),
            eval_metric(&study, run, aftermath, None, Metric::Dropped),
            eval_measure(&study, run, "recovery"),
            eval_metric(&study, run, during, Some(db), Metric::SuccessRate),
        ];
        for ((col, expected), x) in ALLOWANCE_COLUMNS.iter().zip(values).zip(got) {
            let x = x.ok_or_else(|| format!("{row} / {col}: no value"))?;
            assert_eq!(fixed(x, digits_of(expected)), *expected, "{row} / {col}");
        }
    }
    Ok(())
}

#[test]
fn expectations_hold_and_accounts_balance() -> TestResult {
    let s = load_file(RETRY_STORM)?;
    let study = storm_study(&s)?;
    let outcomes = study.expectations();
    assert!(!outcomes.is_empty(), "the scenario has expect lines");
    for e in &outcomes {
        assert!(
            e.passed,
            "line {}: {} (actual {:?})",
            e.line, e.text, e.actual
        );
    }
    // Every run of the study is in the accounting table, and balances.
    let report = study.report();
    let table = report_table(&report, "accounting");
    assert_eq!(table.rows.len(), study.runs.len());
    for label in row_labels(table) {
        assert_eq!(report_cell(table, &label, "balances"), "yes", "{label}");
    }
    Ok(())
}

#[test]
fn report_snapshots() -> TestResult {
    let s = load_file(RETRY_STORM)?;
    let report = storm_study(&s)?.report();
    insta::assert_snapshot!("retry_storm_text", report.to_text());
    insta::assert_snapshot!("retry_storm_markdown", report.to_markdown());
    insta::assert_snapshot!("retry_storm_json", report.to_json());
    Ok(())
}
