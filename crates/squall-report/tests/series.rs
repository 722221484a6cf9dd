//! The series CSV (`squall run FILE --series F.csv`): on a run that takes
//! time, one row per bin with the engine's per-bin latency quantiles and
//! levels per node, checked on a chain whose every number is known by hand;
//! a round model's columns are what they always were.

use squall_engine::observe::histogram::RELATIVE_ERROR;
use squall_report::{Study, StudyOptions};

fn load(text: &str) -> squall_lang::Scenario {
    squall_lang::load("series.squall", text).unwrap_or_else(|e| panic!("{e:?}"))
}

/// The CSV as read by the `csv` crate: its header and its rows.
fn parse(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header = r
        .headers()
        .unwrap_or_else(|e| panic!("header: {e}"))
        .iter()
        .map(String::from)
        .collect();
    let rows = r
        .records()
        .map(|rec| {
            rec.unwrap_or_else(|e| panic!("row: {e}"))
                .iter()
                .map(String::from)
                .collect()
        })
        .collect();
    (header, rows)
}

/// 10 requests a second, evenly spread, through `api` (10 ms) to `db`
/// (50 ms, 2 workers, never both busy): every answer at `db` takes 50 ms,
/// at `api` 60 ms (its own 10 ms and the 50 ms it waits for `db`), end to
/// end 60 ms. The requests come at 100, 200, ..., 4000 ms (the source's
/// first tick counts at once, as on the zero-time path), so each bin of 1 s
/// (ticks 1 000b + 1 ..= 1 000b + 1 000) ends with one at its last tick,
/// whose call reaches `db` 10 ms later, in the next bin: `db` has 9 calls
/// in the first bin and 10 in the others, 50 ms of service each: 0.5 calls
/// in service on average in a full bin, at most 1, no queue. `api` is busy
/// 60 ms a request: 9 x 60 ms + 1 ms (the last request's first ms) in the
/// first bin, 59 + 9 x 60 + 1 = 600 ms in the others. `spare` is never called: no
/// latency in any bin (empty fields), levels 0.
const CONSTANT: &str = r#"scenario "constant" {
  clock ms
  run 4s
  series every 1s

  source users { rate 10/s  enters api }

  chain api -> db
  chain spare

  service api { latency 10ms }
  service db { latency 50ms  workers 2 }
  service spare { latency 1ms }
}
"#;

#[test]
fn a_timed_series_has_per_bin_latency_quantiles_and_levels_known_by_hand() {
    let s = load(CONSTANT);
    let study = Study::run(&s, StudyOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let text = study.series_csv();
    let (header, rows) = parse(&text);
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
    };
    // Four bins of 1 s, each with its first and last tick.
    assert_eq!(rows.len(), 4, "{text}");
    let ticks: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r[col("first_tick")].as_str(), r[col("last_tick")].as_str()))
        .collect();
    assert_eq!(
        ticks,
        [
            ("1", "1000"),
            ("1001", "2000"),
            ("2001", "3000"),
            ("3001", "4000")
        ]
    );
    let num = |r: &[String], name: &str| -> f64 {
        r[col(name)]
            .parse()
            .unwrap_or_else(|e| panic!("{name} = {:?}: {e}", r[col(name)]))
    };
    // A quantile read back is the sample's bucket's highest value: at or
    // above the exact value, within the histogram's relative error.
    let near = |got: f64, want: f64, what: &str| {
        assert!(
            got >= want && got <= want * (1.0 + RELATIVE_ERROR),
            "{what}: {got}, want {want}"
        );
    };
    for (b, r) in rows.iter().enumerate() {
        for q in ["p50", "p90", "p99", "p999", "latency_max"] {
            near(
                num(r, &format!("db.{q}_ms")),
                50.0,
                &format!("bin {b} db.{q}"),
            );
            near(
                num(r, &format!("api.{q}_ms")),
                60.0,
                &format!("bin {b} api.{q}"),
            );
            assert_eq!(r[col(&format!("spare.{q}_ms"))], "", "no answer at spare");
        }
        near(num(r, "e2e_p50_ms"), 60.0, "e2e p50");
        near(num(r, "e2e_p99_ms"), 60.0, "e2e p99");
        let calls = num(r, "db.calls");
        assert_eq!(calls, if b == 0 { 9.0 } else { 10.0 }, "bin {b}");
        // Time-weighted levels: calls x 50 ms over the 1 000 ms bin.
        let busy = num(r, "db.in_service");
        assert!((busy - calls * 0.05).abs() < 1e-9, "bin {b}: {busy}");
        assert_eq!(num(r, "db.in_service_max"), 1.0);
        let api_busy = if b == 0 { 0.541 } else { 0.6 };
        assert!(
            (num(r, "api.in_service") - api_busy).abs() < 1e-9,
            "bin {b}"
        );
        for zero in [
            "db.queue_mean",
            "db.queue_max",
            "db.timeouts",
            "db.overflow",
        ] {
            assert_eq!(num(r, zero), 0.0, "bin {b} {zero}");
        }
        assert_eq!(num(r, "spare.in_service"), 0.0);
        assert_eq!(num(r, "db.wasted_busy_ms"), 0.0);
    }
    // Same study, same bytes.
    let again = Study::run(&s, StudyOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again.series_csv(), text);
}

/// A round model takes no time: one row per tick and only the counters, as
/// before the per-bin columns existed.
#[test]
fn a_round_series_keeps_its_columns() {
    let s = load(
        r#"scenario "rounds" {
  run 3
  source users { rate 2/round  enters api }
  chain api -> db
}
"#,
    );
    let study = Study::run(&s, StudyOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let text = study.series_csv();
    let (header, rows) = parse(&text);
    assert_eq!(
        header.join(","),
        "run,tick,arrivals,completed,dropped,first_try_ok,\
         api.calls,api.served,api.failed,api.refused,api.blocked,\
         db.calls,db.served,db.failed,db.refused,db.blocked"
    );
    assert_eq!(rows.len(), 3, "{text}");
    assert!(rows.iter().all(|r| r.len() == header.len()));
}

/// The queue length at each bin's end (`queue_end`, issue 19): five calls
/// reach `db` (one worker, 10 ms a call) at 1 ms; one is served at once and
/// four wait. They leave the queue as the calls before them finish, at 11,
/// 21, 31 and 41 ms, so at the end of the bins of 10 ms (ticks 0..=9,
/// 10..=19, ...) the queue holds 4, 3, 2, 1, then 0 for good: counts,
/// exact, and no change falls within a tick of a bin's edge. The bin's mean
/// or highest level would not say this (bin 1 holds 4 for a tick, then 3).
#[test]
fn the_queue_length_at_each_bins_end_is_in_the_series() {
    let s = load(
        r#"scenario "queue" {
  clock ms
  run 0..99ms
  series every 10ms
  chain db
  service db { latency 10ms  workers 1  queue 100 }
  source burst { enters db  at [1ms, 1ms, 1ms, 1ms, 1ms] }
}
"#,
    );
    let study = Study::run(&s, StudyOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let (header, rows) = parse(&study.series_csv());
    let col = header
        .iter()
        .position(|h| h == "db.queue_end")
        .unwrap_or_else(|| panic!("no db.queue_end in {header:?}"));
    let ends: Vec<&str> = rows.iter().map(|r| r[col].as_str()).collect();
    assert_eq!(ends, ["4", "3", "2", "1", "0", "0", "0", "0", "0", "0"]);
}
