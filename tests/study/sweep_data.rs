//! A sweep's CSV and JSON as a notebook reads them: one column per varied
//! param, every number in full precision, read back with the `csv` crate
//! and `serde_json`.

use serde_json::Value;

use crate::support::{root, run_in};

const STORM: &str = "scenarios/retry-storm.squall";

fn sweep(args: &[&str]) -> String {
    let mut all = vec!["sweep"];
    all.extend_from_slice(args);
    let (code, out, err) = run_in(&root(), &all);
    assert_eq!(code, 0, "{err}");
    out
}

/// The CSV's headings and rows, parsed by the `csv` crate.
fn read_csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let headers = r
        .headers()
        .map(|h| h.iter().map(String::from).collect())
        .unwrap_or_else(|e| panic!("no header: {e}"));
    let rows = r
        .records()
        .map(|rec| {
            rec.unwrap_or_else(|e| panic!("bad row: {e}"))
                .iter()
                .map(String::from)
                .collect()
        })
        .collect();
    (headers, rows)
}

fn number(s: &str) -> f64 {
    s.parse()
        .unwrap_or_else(|e| panic!("`{s}` is not a number: {e}"))
}

const GRID: [&str; 5] = [STORM, "--vary", "attempts=1,2,3", "--vary", "spacing=2,4"];

#[test]
fn the_csv_has_a_column_per_param_and_full_precision_numbers() {
    let mut args = GRID.to_vec();
    args.extend(["--format", "csv"]);
    let (headers, rows) = read_csv(&sweep(&args));
    assert_eq!(
        headers,
        [
            "attempts",
            "spacing",
            "calls/round",
            "amplification",
            "dropped",
            "recovery",
            "success"
        ]
    );
    let params: Vec<(f64, f64)> = rows
        .iter()
        .map(|r| (number(&r[0]), number(&r[1])))
        .collect();
    assert_eq!(
        params,
        [(1., 2.), (1., 4.), (2., 2.), (2., 4.), (3., 2.), (3., 4.)]
    );
    // The text report rounds to two digits; the data keeps every one.
    let calls = number(&rows[3][2]);
    assert_eq!(format!("{calls:.2}"), "22.33");
    assert!(rows[3][2].len() > "22.33".len(), "{}", rows[3][2]);
    assert_eq!(calls * 6.0, 134.0);
}

#[test]
fn the_json_carries_the_params_and_the_same_exact_numbers_as_the_csv() {
    let mut json_args = GRID.to_vec();
    json_args.extend(["--format", "json"]);
    let json: Value =
        serde_json::from_str(&sweep(&json_args)).unwrap_or_else(|e| panic!("not JSON: {e}"));
    let params = json["params"].as_array().cloned().unwrap_or_default();
    let names: Vec<&str> = params.iter().filter_map(|p| p["name"].as_str()).collect();
    assert_eq!(names, ["attempts", "spacing"]);
    let values = |i: usize| -> Vec<f64> {
        params[i]["values"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_f64)
            .collect()
    };
    assert_eq!(values(0), [1.0, 2.0, 3.0]);
    assert_eq!(values(1), [2.0, 4.0]);
    let table = &json["blocks"][0];
    assert_eq!(table["columns"][0], "attempts");
    assert_eq!(table["columns"][1], "spacing");
    let rows = table["rows"].as_array().cloned().unwrap_or_default();
    assert_eq!(rows.len(), 6);

    let mut csv_args = GRID.to_vec();
    csv_args.extend(["--format", "csv"]);
    let (_, csv_rows) = read_csv(&sweep(&csv_args));
    for (json_row, csv_row) in rows.iter().zip(&csv_rows) {
        let cells = json_row.as_array().cloned().unwrap_or_default();
        assert_eq!(cells.len(), csv_row.len());
        for (i, cell) in cells.iter().enumerate() {
            let x = cell.as_f64().unwrap_or(f64::NAN);
            assert_eq!(x.to_bits(), number(&csv_row[i]).to_bits(), "column {i}");
        }
    }
}

#[test]
fn a_mean_over_replications_is_three_csv_columns_and_a_json_object() {
    let file = "book/src/replications.squall";
    let csv = sweep(&[file, "--vary", "attempts=1,2", "--format", "csv"]);
    let (headers, rows) = read_csv(&csv);
    assert_eq!(
        headers,
        ["attempts", "recovery", "recovery half_width", "recovery n"]
    );
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1][3], "20");
    let (mean, half) = (number(&rows[1][1]), number(&rows[1][2]));
    assert!(half > 0.0 && half < mean, "{mean} ± {half}");

    let json = sweep(&[file, "--vary", "attempts=1,2", "--format", "json"]);
    let json: Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
    let cell = &json["blocks"][0]["rows"][1][1];
    assert_eq!(
        cell["mean"].as_f64().map(f64::to_bits),
        Some(mean.to_bits())
    );
    assert_eq!(
        cell["half_width"].as_f64().map(f64::to_bits),
        Some(half.to_bits())
    );
    assert_eq!(cell["replications"], 20);
}

/// A table whose point label is its own column loses it to the param; one
/// whose label joins a variant keeps the variant's column beside it.
#[test]
fn labels_of_other_axes_stay_and_words_are_text() {
    let file = "scenarios/degradation.squall";
    let csv = sweep(&[
        file,
        "--vary",
        "policy=all_or_nothing,stale_fallback",
        "--format",
        "csv",
    ]);
    // Four tables, one long CSV: the `table` column names each row's table.
    let (headers, rows) = read_csv(&csv);
    assert_eq!(headers[0], "table");
    let titles: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    let mut distinct = titles.clone();
    distinct.dedup();
    assert_eq!(distinct.len(), 4, "{csv}");
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap_or(usize::MAX);
    let first: Vec<&Vec<String>> = rows.iter().filter(|r| r[0] == distinct[0]).collect();
    assert_eq!(headers[1], "policy");
    assert_eq!(first[0][1], "all_or_nothing");
    assert_eq!(first[1][2], "900");
    let last: Vec<&Vec<String>> = rows.iter().filter(|r| r[0] == distinct[3]).collect();
    // The last table's own columns, by name: `policy` and `answered` are
    // shared with the first table, `scenario` and `outage min` its own.
    let at = [
        col("scenario"),
        col("policy"),
        col("answered"),
        col("outage min"),
    ];
    assert!(at.iter().all(|&i| i < headers.len()), "{headers:?}");
    let rows: Vec<Vec<String>> = last
        .iter()
        .map(|r| at.iter().map(|&i| r[i].clone()).collect())
        .collect();
    assert_eq!(rows[3][0], "projection down");
    assert_eq!(rows[3][1], "stale_fallback");
    // 59 of 900 answered over the 15-minute fault (PINNED, 001).
    assert_eq!(number(&rows[3][2]), 59.0);
    assert_eq!(number(&rows[3][3]), 15.0 * 841.0 / 900.0);
}
