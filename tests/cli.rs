//! The `squall` binary end to end.

use std::path::PathBuf;
use std::process::Output;

use crate::reference::RoundModel;
use crate::retry_storm::{ALLOWANCE, ALLOWANCE_COLUMNS, CASE_COLUMNS};
use crate::support::*;

/// Runs the binary from the package root with `--color never`.
fn squall(args: &[&str]) -> Output {
    squall_in(&root())
        .args(args)
        .output()
        .expect("the squall binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn code(o: &Output) -> Option<i32> {
    o.status.code()
}

/// A file in this test binary's scratch directory.
fn scratch(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// The line and column (1-based) of the first `needle` in `text`.
fn line_col(text: &str, needle: &str) -> (usize, usize) {
    let at = text.find(needle).expect("needle in text");
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = at - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

#[test]
fn run_prints_the_report() -> TestResult {
    let o = squall(&["run", RETRY_STORM]);
    assert_eq!(code(&o), Some(0), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    // The same bytes as the library's report.
    let s = load_file(RETRY_STORM)?;
    assert_eq!(out, run_study(&s, vec![], None)?.report().to_text());
    insta::assert_snapshot!("cli_run_stdout", out);

    // --out writes the same report to a file, and nothing to stdout.
    let path = scratch("retry-storm-report.txt");
    let o = squall(&["run", RETRY_STORM, "--out", path.to_str().ok_or("path")?]);
    assert_eq!(code(&o), Some(0), "stderr: {}", stderr(&o));
    assert!(o.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&path)?, out);

    // Markdown: the cases table as a markdown table.
    let o = squall(&["run", RETRY_STORM, "--format", "markdown"]);
    assert_eq!(code(&o), Some(0));
    let md = stdout(&o);
    assert!(md.starts_with("# retry storm\n"), "{md}");
    assert!(
        md.contains("| storm: during | 4.00 | 25.00 | 4.00 | 6.25 | 0.0400 |"),
        "{md}"
    );
    Ok(())
}

#[test]
fn json_output_has_the_tables_as_data() -> TestResult {
    let o = squall(&["run", RETRY_STORM, "--format", "json"]);
    assert_eq!(code(&o), Some(0), "stderr: {}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o))?;
    assert_eq!(json["title"], "retry storm");
    let cases = json_table(&json, "cases");
    let mut want = vec!["case: window"];
    want.extend(CASE_COLUMNS);
    assert_eq!(cases["columns"], serde_json::json!(want));
    let rows = cases["rows"].as_array().ok_or("rows")?;
    assert_eq!(rows.len(), 9);
    for r in rows {
        assert!(r[0].is_string(), "the label is a string: {r}");
        for c in &r.as_array().ok_or("row")?[1..] {
            assert!(c.is_number(), "values are numbers: {r}");
        }
    }
    let allowance = json_table(&json, "what cutting the allowance buys");
    for (row, values) in ALLOWANCE {
        for (col, expected) in ALLOWANCE_COLUMNS.iter().zip(values) {
            let x = json_cell(allowance, row, col).as_f64().ok_or("number")?;
            assert_eq!(fixed(x, digits_of(expected)), expected, "{row} / {col}");
        }
    }
    Ok(())
}

#[test]
fn set_attempts_2_turns_the_storm_into_the_allowance_row_2() -> TestResult {
    let base = squall(&["run", RETRY_STORM, "--format", "json"]);
    let two = squall(&[
        "run",
        RETRY_STORM,
        "--format",
        "json",
        "--set",
        "attempts=2",
    ]);
    assert_eq!(code(&two), Some(0), "stderr: {}", stderr(&two));
    let base: serde_json::Value = serde_json::from_str(&stdout(&base))?;
    let two: serde_json::Value = serde_json::from_str(&stdout(&two))?;

    // The storm's fault-window row now reads as row 2 of the allowance table.
    let cases = json_table(&two, "cases");
    let allowance = json_table(&two, "what cutting the allowance buys");
    for col in ["calls/round", "amplification", "success"] {
        assert_eq!(
            json_cell(cases, "storm: during", col),
            json_cell(allowance, "2", col),
            "{col}"
        );
    }
    let (row2, values2) = ALLOWANCE[1];
    assert_eq!(row2, "2");
    let calls = json_cell(cases, "storm: during", "calls/round")
        .as_f64()
        .ok_or("calls")?;
    assert_eq!(fixed(calls, 2), values2[0]);
    // Dropped over 101..400: every drop of the run falls in that window.
    let accounting = json_table(&two, "accounting");
    let dropped = json_cell(accounting, "storm", "dropped")
        .as_i64()
        .ok_or("dropped")?;
    assert_eq!(dropped.to_string(), values2[2]);
    let lines = json_lines(&two).join("\n");
    assert!(
        lines.contains(&format!("recovery {} rounds", values2[3])),
        "{lines}"
    );

    // Which cells changed: the storm's rows during and after the fault (the
    // fault rounds and the recovery both change), and nothing else; the
    // variant `no retries` and the sweep set attempts themselves, and
    // `demand grew` has no fault to retry.
    let reference = RoundModel::document(2).run();
    let changed = |table: &str| -> Vec<String> {
        let a = json_table(&base, table)["rows"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let b = json_table(&two, table)["rows"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(a.len(), b.len());
        a.iter()
            .zip(&b)
            .filter(|(x, y)| x != y)
            .map(|(x, _)| x[0].as_str().unwrap_or("?").to_string())
            .collect()
    };
    assert_eq!(changed("cases"), ["storm: during", "storm: after"]);
    assert!(changed("what cutting the allowance buys").is_empty());
    assert_eq!(changed("accounting"), ["storm"]);
    let after = reference.window(161, 400);
    let want_after = [
        fixed(after.edge_rate, 2),
        fixed(after.call_rate, 2),
        fixed(after.unique_rate, 2),
        fixed(after.amplification.ok_or("ids")?, 2),
        fixed(after.success_rate.ok_or("calls")?, 4),
    ];
    for (col, want) in CASE_COLUMNS.iter().zip(&want_after) {
        let x = json_cell(cases, "storm: after", col)
            .as_f64()
            .ok_or("number")?;
        assert_eq!(&fixed(x, digits_of(want)), want, "storm: after / {col}");
    }
    // The lines: recovery, peak and bound follow the storm; the rest not.
    let peak = reference.peak();
    assert!(
        lines.contains(&format!("storm peak {peak} calls/round")),
        "{lines}"
    );
    assert!(
        lines.contains("arithmetic upper bound: 8 calls per request"),
        "{lines}"
    );
    assert!(
        lines.contains("demand grew 8.00, storm 1.00, no retries 1.00"),
        "{lines}"
    );
    // The report names the setting.
    let meta = two["meta"].to_string();
    assert!(meta.contains("attempts=2"), "{meta}");
    Ok(())
}

#[test]
fn an_unknown_param_is_a_usage_error_with_a_suggestion() {
    let o = squall(&["run", RETRY_STORM, "--set", "nope=1"]);
    assert_eq!(code(&o), Some(3));
    let err = stderr(&o);
    assert!(err.contains("unknown param `nope`"), "{err}");
    assert!(
        err.contains("params: demand, attempts, spacing, capacity, fault_capacity"),
        "the message lists the params: {err}"
    );
    assert!(o.stdout.is_empty());

    let o = squall(&["run", RETRY_STORM, "--set", "attemps=1"]);
    assert_eq!(code(&o), Some(3));
    assert!(
        stderr(&o).contains("did you mean `attempts`?"),
        "{}",
        stderr(&o)
    );

    let o = squall(&["run", RETRY_STORM, "--set", "attempts"]);
    assert_eq!(code(&o), Some(3), "NAME=VALUE form: {}", stderr(&o));
}

#[test]
fn attempts_0_is_invalid_and_points_at_the_param_use() -> TestResult {
    let o = squall(&["run", RETRY_STORM, "--set", "attempts=0"]);
    assert_eq!(code(&o), Some(2));
    let err = stderr(&o);
    let text = std::fs::read_to_string(root().join(RETRY_STORM))?;
    let (line, col) = line_col(&text, "$attempts ");
    assert!(
        err.contains(&format!("{RETRY_STORM}:{line}:{col}")),
        "names file, line and column of `$attempts`: {err}"
    );
    assert!(err.contains("at least 1"), "{err}");
    assert!(
        err.contains("--set attempts=0"),
        "names where the value came from: {err}"
    );
    assert!(o.stdout.is_empty());
    Ok(())
}

#[test]
fn attempts_0_is_reported_once() {
    let o = squall(&["run", RETRY_STORM, "--set", "attempts=0"]);
    let err = stderr(&o);
    assert_eq!(err.matches("at least 1").count(), 1, "{err}");
    assert!(err.contains("1 problem\n"), "{err}");
}

#[test]
fn variant_storm_prints_only_its_rows() -> TestResult {
    let o = squall(&["run", RETRY_STORM, "--variant", "storm", "--format", "json"]);
    assert_eq!(code(&o), Some(0), "stderr: {}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o))?;
    let rows: Vec<&str> = json_table(&json, "cases")["rows"]
        .as_array()
        .ok_or("rows")?
        .iter()
        .filter_map(|r| r[0].as_str())
        .collect();
    assert_eq!(rows, ["storm: before", "storm: during", "storm: after"]);
    // By label too, and a misspelt variant is a usage error.
    let o = squall(&["run", RETRY_STORM, "--variant", "no retries"]);
    assert_eq!(code(&o), Some(0));
    let text = stdout(&o);
    assert!(text.contains("no retries: during"), "{text}");
    assert!(!text.contains("storm: during"), "{text}");
    let o = squall(&["run", RETRY_STORM, "--variant", "stom"]);
    assert_eq!(code(&o), Some(3));
    assert!(
        stderr(&o).contains("did you mean `storm`?"),
        "{}",
        stderr(&o)
    );
    Ok(())
}

#[test]
fn check_names_the_line_of_a_misspelt_node() -> TestResult {
    let o = squall(&["check", RETRY_STORM]);
    assert_eq!(code(&o), Some(0), "stderr: {}", stderr(&o));
    assert!(stdout(&o).contains(&format!("{RETRY_STORM}: ok")));

    let text = std::fs::read_to_string(root().join(RETRY_STORM))?;
    let typo = text.replacen("service db {", "service dbb {", 1);
    assert_ne!(typo, text);
    let path = scratch("typo.squall");
    std::fs::write(&path, &typo)?;
    let o = squall(&["check", path.to_str().ok_or("path")?]);
    assert_eq!(code(&o), Some(2));
    let err = stderr(&o);
    let (line, col) = line_col(&typo, "dbb");
    assert!(
        err.contains(&format!("typo.squall:{line}:{col}")),
        "names the line: {err}"
    );
    assert!(err.contains("did you mean `db`?"), "{err}");
    Ok(())
}

#[test]
fn a_missing_file_is_a_usage_error() {
    for cmd in ["run", "check"] {
        let o = squall(&[cmd, "scenarios/no-such-file.squall"]);
        assert_eq!(code(&o), Some(3), "{cmd}");
        assert!(
            stderr(&o).contains("no-such-file.squall"),
            "{cmd}: {}",
            stderr(&o)
        );
    }
    let o = squall(&["frobnicate"]);
    assert_eq!(code(&o), Some(3), "an unknown subcommand");
}

#[test]
fn help_of_each_subcommand_has_an_example() {
    for cmd in ["run", "check"] {
        let o = squall(&[cmd, "--help"]);
        assert_eq!(code(&o), Some(0), "{cmd}");
        let help = stdout(&o);
        assert!(help.contains("Examples:"), "{cmd}: {help}");
        assert!(
            help.contains(&format!("squall {cmd} scenarios/retry-storm.squall")),
            "{cmd}: {help}"
        );
    }
}

#[test]
fn series_and_chart_files() -> TestResult {
    let dir = std::env::temp_dir().join(format!("squall-series-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let (csv, svg) = (dir.join("ticks.csv"), dir.join("db.svg"));
    let args = [
        "run",
        RETRY_STORM,
        "--series",
        csv.to_str().ok_or("path")?,
        "--chart",
        svg.to_str().ok_or("path")?,
        "--chart-node",
        "db",
    ];
    let o = squall(&args);
    assert_eq!(code(&o), Some(0), "stderr: {}", stderr(&o));
    let text = std::fs::read_to_string(&csv)?;
    let lines: Vec<&str> = text.lines().collect();
    // A header, then one row per variant and round: 3 variants x 400 rounds.
    assert_eq!(lines.len(), 1 + 3 * 400);
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or(format!("no column {name}"))
    };
    let (calls, served) = (col("db.calls")?, col("db.served")?);
    // The storm's calls at `db` over 101..160 sum to 25 a round (the
    // document's number) and 1 a round is served (the brownout's capacity).
    let storm: Vec<Vec<&str>> = lines[1..]
        .iter()
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|r| r[0] == "storm")
        .collect();
    assert_eq!(storm.len(), 400);
    let sum = |c: usize| -> Result<u64, std::num::ParseIntError> {
        storm[100..160].iter().map(|r| r[c].parse::<u64>()).sum()
    };
    assert_eq!(sum(calls)?, 25 * 60);
    assert_eq!(sum(served)?, 60);
    // The chart: one line per variant, the brownout shaded, same bytes twice.
    let chart = std::fs::read_to_string(&svg)?;
    let doc = roxmltree::Document::parse(&chart)?;
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    for colour in ["#1F77B4", "#D62728", "#2CA02C"] {
        assert!(
            chart.contains(&format!("stroke=\"{colour}\" stroke-width=\"2\"")),
            "a line in {colour}"
        );
    }
    let texts: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .map(str::trim)
        .collect();
    for label in [
        "brownout",
        "storm",
        "demand grew",
        "no retries",
        "time (rounds)",
    ] {
        assert!(texts.contains(&label), "no text {label:?} in {texts:?}");
    }
    let o = squall(&args);
    assert_eq!(code(&o), Some(0));
    assert_eq!(std::fs::read_to_string(&svg)?, chart);
    // An unknown node is a usage error with a suggestion.
    let o = squall(&[
        "run",
        RETRY_STORM,
        "--chart",
        svg.to_str().ok_or("path")?,
        "--chart-node",
        "dbb",
    ]);
    assert_eq!(code(&o), Some(3));
    assert!(stderr(&o).contains("did you mean `db`?"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

#[test]
fn a_run_too_long_to_count_is_refused_not_attempted() {
    // 1e9 rounds of per-tick counters would take tens of GiB.
    let dir = std::env::temp_dir().join(format!("squall-long-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let file = dir.join("long.squall");
    std::fs::write(&file, "scenario \"long\" {\n  run 1000000000 rounds\n  source s { rate 1/round  enters a }\n  chain a -> b\n}\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let o = squall(&["run", file.to_str().unwrap_or_default()]);
    assert_eq!(code(&o), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("MiB of per-tick counters"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_refuses_a_crossed_run_the_engine_refuses() {
    // Each run alone is fine; only the point on top of `spiky` (a table
    // crosses them) sends more than the engine simulates per tick.
    let file = scratch("crossed.squall");
    std::fs::write(
        &file,
        r#"scenario "crossed" {
  run 100 rounds
  param burst = 1/round
  source users { rate 1/round  enters api }
  chain api -> db
  window all 1..100
  variant calm "calm" { }
  variant spiky "spiky" { source users { rate $burst during 1..10 } }
  sweep bursts "burst size" { burst in [1/round, 2000000/round] }
  report {
    table "grid" {
      rows variants [spiky] x sweep bursts
      at db
      label "case", "burst"
      column "calls/round" = all.call_rate :.2
    }
  }
}
"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let path = file.to_str().unwrap_or_default();
    let o = squall(&["check", path]);
    assert_eq!(code(&o), Some(2), "{}", stdout(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "{path}:9:41: error: point 2 of sweep `bursts` on variant `spiky`: source `users` sends 2000000 requests per tick; squall simulates at most 1000000 per tick per source (scale the scenario down: rates, capacities and counts by the same factor)\n"
        )
    );
    // `run` refuses the same run, so `check` and `run` agree.
    assert_eq!(code(&squall(&["run", path])), Some(2));
}
