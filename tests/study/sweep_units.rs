//! A sweep's measure columns under a wall clock (issue 19): durations in
//! seconds, or ms when every value of the column is under a second, rates
//! per second; the unit in the heading, the values scaled to it, the same
//! after shards are merged.

use crate::support::run_in;

/// `clock ms`, a uniform source of `$r` into one service, windows of
/// known length: `long` covers ticks 1000..2999 (2000 ticks), `short` ticks
/// 1..300 (300 ticks).
const UNITS: &str = r#"scenario "units" {
  clock ms
  run 5s
  param r = 100/s
  source users { rate $r  enters db }
  chain db
  service db { latency 1ms }
  window all 1..end
  window long 1s..<3s
  window short 1ms..300ms
  report {
    measure rate = all.db.call_rate
    measure db_calls = all.db.calls
    measure long_span = long.ticks
    measure short_span = short.ticks
  }
}
"#;

fn units_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("no temp dir: {e}"));
    std::fs::write(dir.path().join("units.squall"), UNITS)
        .unwrap_or_else(|e| panic!("cannot write the scenario: {e}"));
    dir
}

fn sweep(dir: &tempfile::TempDir, extra: &[&str]) -> String {
    let mut args = vec!["sweep", "units.squall", "--vary", "r=100/s,200/s"];
    args.extend_from_slice(extra);
    let (code, out, err) = run_in(dir.path(), &args);
    assert_eq!(code, 0, "{err}");
    out
}

/// The raw values, hand-worked: a uniform source sends `r x run` calls,
/// 500 and 1000 in the 5000 ticks of `all`, so 0.1 and 0.2 calls a tick,
/// which at 1000 ticks a second read 100 and 200 per second; `long` is
/// 2000 ticks, 2 s; `short` is 300 ticks, under a second, so its column
/// stays in ms. The counts have no unit and keep their heading.
#[test]
fn a_wall_clock_sweep_shows_seconds_and_rates_per_second() {
    let dir = units_dir();
    let text = sweep(&dir, &[]);
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "measures at each point")
        .skip(1)
        .collect();
    let split = |l: &str| -> Vec<String> {
        l.split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(String::from)
            .collect()
    };
    assert_eq!(
        split(table[0]),
        [
            "r",
            "rate [/s]",
            "db_calls",
            "long_span [s]",
            "short_span [ms]"
        ],
        "{text}"
    );
    assert_eq!(
        split(table[2]),
        ["r=100/s", "100.00", "500.00", "2.00", "300.00"],
        "{text}"
    );
    assert_eq!(
        split(table[3]),
        ["r=200/s", "200.00", "1000.00", "2.00", "300.00"],
        "{text}"
    );

    // The CSV keeps full precision in the same units. The rates are a
    // quotient and a product of exact integers (1e-9: a few ulps); the
    // spans are exact multiples of a tick.
    let csv = sweep(&dir, &["--format", "csv"]);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("r,rate [/s],db_calls,long_span [s],short_span [ms]"),
        "{csv}"
    );
    for (line, want_rate, want_calls) in
        [(lines.next(), 100.0, 500.0), (lines.next(), 200.0, 1000.0)]
    {
        let cells: Vec<f64> = line
            .unwrap_or_else(|| panic!("a row is missing: {csv}"))
            .split(',')
            .map(|c| c.parse().unwrap_or_else(|e| panic!("`{c}`: {e}")))
            .collect();
        assert!((cells[1] - want_rate).abs() < 1e-9, "{csv}");
        assert_eq!(cells[2], want_calls, "{csv}");
        assert_eq!(cells[3], 2.0, "{csv}");
        assert_eq!(cells[4], 300.0, "{csv}");
    }
}

/// Shard files keep the raw ticks (the `long` window's 2000, under the
/// bare heading) and the unit is chosen when the merged table is printed:
/// the two halves, merged, print the single run's table byte for byte.
#[test]
fn merged_shards_choose_the_same_units_as_a_single_run() {
    let dir = units_dir();
    let whole = sweep(&dir, &[]);
    for k in ["1/2", "2/2"] {
        let out = format!("part{}.json", &k[..1]);
        sweep(&dir, &["--shard", k, "--out", &out]);
    }
    let shard = std::fs::read_to_string(dir.path().join("part1.json"))
        .unwrap_or_else(|e| panic!("no shard file: {e}"));
    let json: serde_json::Value =
        serde_json::from_str(&shard).unwrap_or_else(|e| panic!("bad shard: {e}"));
    let table = &json["tables"][0];
    assert_eq!(table["columns"][3], "long_span", "{shard}");
    assert_eq!(table["rows"][0]["cells"][3]["value"], 2000.0, "{shard}");
    let (code, merged, err) = run_in(dir.path(), &["merge", "part1.json", "part2.json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(merged, whole);
}
