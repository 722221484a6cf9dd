//! Load shed before the callee: the `limited` and `rejected_locally`
//! series add up to the tables' totals, and `diagnose` names the tries a
//! limiter or a throttle did not send, telling a storm stopped before the
//! callee from a capacity problem of the callee.

use squall_report::{Block, Cell, Study, StudyOptions};

/// A scenario of `scenarios/` with `extra` put at the top of its report
/// block and a window `whole` over the entire run.
fn scenario(file: &str, window_after: &str, extra: &str) -> squall_lang::Scenario {
    let path = format!("{}/../../scenarios/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(text.contains(window_after) && text.contains("  report {\n"));
    let text = text
        .replace(
            window_after,
            &format!("{window_after}  window whole 1..end\n"),
        )
        .replacen("  report {\n", &format!("  report {{\n{extra}"), 1);
    squall_lang::load(file, &text).unwrap_or_else(|e| panic!("{}", e.list[0].message))
}

/// The CSV's column `name` summed over the rows of run `label`.
fn column_sum(csv: &str, label: &str, name: &str) -> u64 {
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let header: Vec<String> = r
        .headers()
        .unwrap_or_else(|e| panic!("{e}"))
        .iter()
        .map(String::from)
        .collect();
    let col = header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no {name} in {header:?}"));
    r.records()
        .map(|rec| rec.unwrap_or_else(|e| panic!("{e}")))
        .filter(|rec| &rec[0] == label)
        .map(|rec| rec[col].parse::<u64>().unwrap_or_else(|e| panic!("{e}")))
        .sum()
}

/// The table a test puts first in the report: at `api`, per variant, the
/// tries it did not send over the whole run.
const SHED_TABLE: &str = r#"    table "shed at api" {
      rows variants
      at api
      label "case"
      column "limited" = whole.limited :.0
      column "rejected locally" = whole.rejected_locally :.0
    }
"#;

/// The first table's rows: the label, then each number.
fn table_rows(study: &Study) -> Vec<(String, Vec<u64>)> {
    let report = study.report();
    let Some(Block::Table(t)) = report.blocks.first() else {
        panic!("a table first");
    };
    t.rows
        .iter()
        .map(|r| {
            let numbers = r[1..]
                .iter()
                .map(|c| match c {
                    Cell::Number(x, _) => *x as u64,
                    other => panic!("{other:?}"),
                })
                .collect();
            (r[0].display(), numbers)
        })
        .collect()
}

/// The diagnosis line of the variant labelled `label`.
fn verdict(study: &Study, label: &str) -> String {
    let report = study.report();
    report
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Line { text, .. } => Some(text.clone()),
            Block::Table(_) => None,
        })
        .find(|t| t.starts_with(&format!("diagnosis, {label}:")))
        .unwrap_or_else(|| panic!("no diagnosis of {label}"))
}

#[test]
fn the_shed_series_add_up_to_the_tables_totals() {
    for (file, after, node_column, metric) in [
        (
            "concurrency-limits.squall",
            "  window late 45s..60s\n",
            "api.limited",
            0,
        ),
        (
            "throttling.squall",
            "  window steady 150s..300s\n",
            "api.rejected_locally",
            1,
        ),
    ] {
        let s = scenario(file, after, SHED_TABLE);
        let study = Study::run(&s, StudyOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        let csv = study.series_csv();
        let rows = table_rows(&study);
        // Some variant sheds, so the test can fail on a missing count.
        assert!(rows.iter().any(|(_, n)| n[metric] > 0), "{file}: {rows:?}");
        for (label, numbers) in &rows {
            // A count per bin (limited) or per slot (rejected locally)
            // over every bin of the run is the run's count: exact.
            assert_eq!(
                column_sum(&csv, label, node_column),
                numbers[metric],
                "{file}, {label}"
            );
        }
    }
}

#[test]
fn a_storm_a_limiter_stops_is_no_capacity_problem_of_the_callee() {
    let s = scenario(
        "concurrency-limits.squall",
        "  window late 45s..60s\n",
        "    diagnose db in fault vs before\n",
    );
    let study = Study::run(&s, StudyOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    // Retries alone: every try reaches `db`, which is at its limit.
    let storm = verdict(&study, "retries alone");
    assert!(storm.contains("`db` is at its capacity limit"), "{storm}");
    assert!(!storm.contains("load shed"), "{storm}");
    // Vegas holds its limit low: `db` is not at its limit, and the tries
    // `api` did not send are named as load kept off `db`.
    let vegas = verdict(&study, "Vegas limiter");
    assert!(
        vegas.contains("`db` is not at its capacity limit"),
        "{vegas}"
    );
    let words = regex_free_count(&vegas, "load shed before the callee: `api` did not send ");
    assert!(
        vegas.contains(&format!(
            "load shed before the callee: `api` did not send {words} tries to `db` ({words} limited by its concurrency limit): load that never reached `db`, not a capacity problem of `db`."
        )),
        "{vegas}"
    );
    assert!(words > 0);
    // AIMD: `db` is still at its limit in the fault; the shed tries are
    // named, without saying the callee has no capacity problem.
    let aimd = verdict(&study, "AIMD limiter");
    assert!(aimd.contains("`db` is at its capacity limit"), "{aimd}");
    assert!(
        aimd.contains("limited by its concurrency limit)."),
        "{aimd}"
    );
    assert!(!aimd.contains("not a capacity problem"), "{aimd}");
}

#[test]
fn a_throttle_says_the_tries_it_rejected_locally() {
    let s = scenario(
        "throttling.squall",
        "  window steady 150s..300s\n",
        "    diagnose api in after vs before\n",
    );
    let study = Study::run(&s, StudyOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let throttle = verdict(&study, "throttle sre at api");
    let n = regex_free_count(&throttle, "`api` did not send ");
    assert!(n > 0, "{throttle}");
    assert!(
        throttle.contains(&format!(
            "load shed before the callee: `api` did not send {n} tries to `db` ({n} rejected locally by its throttle)"
        )),
        "{throttle}"
    );
    // No throttle at `api` (nor above it): nothing said.
    let budget = verdict(&study, "10 % budget at api");
    assert!(!budget.contains("load shed"), "{budget}");
}

/// The number right after `prefix` in `text` (0 when there is none).
fn regex_free_count(text: &str, prefix: &str) -> u64 {
    text.split_once(prefix)
        .and_then(|(_, rest)| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}
