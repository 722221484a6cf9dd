//! Every number seed document 002 prints, from the scenario files that model
//! it, read from the JSON report; and the full text reports as snapshots.

use std::process::Command;

use crate::support::{run_file, Ran};

fn rows(want: &[&[&str]]) -> Vec<Vec<String>> {
    want.iter()
        .map(|r| r.iter().map(|c| c.to_string()).collect())
        .collect()
}

/// `scenarios/backoff.squall`: the waits table (deneme / sabit / üstel /
/// üstel+tavan / tam sarsıntı / ilişkisiz) and the two herds.
#[test]
fn backoff_table_and_herds() {
    let ran = run_file("scenarios/backoff.squall");
    let title = "wait before each retry";
    assert_eq!(
        ran.columns(title),
        [
            "retry",
            "fixed (ms)",
            "exponential (ms)",
            "capped (ms)",
            "full jitter (ms)",
            "decorrelated (ms)"
        ]
    );
    assert_eq!(
        ran.table(title),
        rows(&[
            &["1", "200", "200", "200", "70", "384"],
            &["2", "200", "400", "400", "296", "1034"],
            &["3", "200", "800", "800", "780", "2121"],
            &["4", "200", "1600", "1600", "303", "1933"],
            &["5", "200", "3200", "3200", "480", "3986"],
            &["6", "200", "6400", "5000", "957", "5000"],
        ])
    );

    // sarsıntısız: all 24 clients at 800 ms.
    assert_eq!(
        ran.table("no jitter: 24 clients, third try"),
        rows(&[&["800 ms", "24", "########################"]])
    );
    // sarsıntılı: 6 / 5 / 7 / 6 at 0 / 200 / 400 / 600 ms.
    assert_eq!(
        ran.table("full jitter: 24 clients, third try (fresh generator, same seed)"),
        rows(&[
            &["0 ms", "6", "######"],
            &["200 ms", "5", "#####"],
            &["400 ms", "7", "#######"],
            &["600 ms", "6", "######"],
        ])
    );
    // The busiest bucket falls from all 24 to 7 (the document: "to a quarter").
    assert!(ran.has_line(
        "capped: 24 clients, retry 3, busiest 200 ms bucket holds 24 (100.0% of the herd)"
    ));
    assert!(ran.has_line(
        "full jitter: 24 clients, retry 3, busiest 200 ms bucket holds 7 (29.2% of the herd)"
    ));
    insta::assert_snapshot!("backoff_report", ran.text);
}

/// `scenarios/retry-loop.squall`: the four calls of `yenidenDene`.
#[test]
fn retry_loop_four_calls() {
    let ran = run_file("scenarios/retry-loop.squall");
    let title = "the retry loop, call by call";
    assert_eq!(
        ran.columns(title),
        ["operation", "tries", "outcome", "waits (ms)"]
    );
    assert_eq!(
        ran.table(title),
        rows(&[
            &["503 then success", "3", "success", "70, 184"],
            &["422 (not retried)", "1", "http 422", "—"],
            &["429 (Retry-After: 2)", "3", "http 429", "2000, 2000"],
            &["404 (not retried)", "1", "http 404", "—"],
        ])
    );
    assert!(ran.has_line("all waits recorded (ms): 70, 184, 2000, 2000"));
    assert!(ran.has_line("measurement requests that reached the server: 3"));

    // The same numbers from the observations.
    let obs = ran.obs();
    let waits: Vec<u64> = obs.ops[0].iter().flat_map(|o| o.waits.clone()).collect();
    assert_eq!(waits, [70, 184, 2000, 2000]);
    let tries: Vec<u32> = obs.ops[0].iter().map(|o| o.tries).collect();
    assert_eq!(tries, [3, 1, 3, 1]);
    // Routes in order: measurements, submit, report, default.
    assert_eq!(obs.route_calls[1], [3, 1, 3, 1]);
    // One operation succeeded, three failed; nothing is left over.
    assert_eq!(
        (
            obs.accounting.entered,
            obs.accounting.completed,
            obs.accounting.dropped,
            obs.accounting.in_flight
        ),
        (4, 1, 3, 0)
    );
    insta::assert_snapshot!("retry_loop_report", ran.text);
}

/// The document's words for squall's outcome column: `success`, `not sent`,
/// or `failure` for any other answer of a sent call.
fn document_outcome(sent: &str, outcome: &str) -> &'static str {
    match (sent, outcome) {
        ("no", o) if o.starts_with("not sent") => "not sent",
        ("yes", "success") => "success",
        ("yes", _) => "failure",
        _ => "?",
    }
}

/// `scenarios/circuit-breaker.squall`: the nine events of `devreKesici`.
#[test]
fn breaker_trace() {
    let ran = run_file("scenarios/circuit-breaker.squall");
    let title = "breaker decisions";
    assert_eq!(
        ran.columns(title),
        [
            "time (ms)",
            "sent",
            "state before",
            "outcome",
            "state after"
        ]
    );
    let got: Vec<[String; 5]> = ran
        .table(title)
        .iter()
        .map(|r| {
            [
                r[0].clone(),
                r[1].clone(),
                r[2].clone(),
                document_outcome(&r[1], &r[3]).to_string(),
                r[4].clone(),
            ]
        })
        .collect();
    let want: Vec<[String; 5]> = [
        ["0", "yes", "closed", "failure", "closed"],
        ["200", "yes", "closed", "failure", "closed"],
        ["600", "yes", "closed", "failure", "open"],
        ["900", "no", "open", "not sent", "open"],
        ["1500", "no", "open", "not sent", "open"],
        ["6000", "yes", "half-open", "failure", "open"],
        ["8000", "no", "open", "not sent", "open"],
        ["11500", "yes", "half-open", "success", "closed"],
        ["11800", "yes", "closed", "success", "closed"],
    ]
    .iter()
    .map(|r| r.map(str::to_string))
    .collect();
    assert_eq!(got, want);

    // squall's own words: the failures are the dependency's 503, and a call
    // not sent says how much cool-down is left (opened at 600 ms, then again
    // at 6000 ms, for 5000 ms).
    let outcomes: Vec<String> = ran.table(title).iter().map(|r| r[3].clone()).collect();
    assert_eq!(
        outcomes,
        [
            "http 503",
            "http 503",
            "http 503",
            "not sent (4700 ms left)",
            "not sent (4100 ms left)",
            "http 503",
            "not sent (3000 ms left)",
            "success",
            "success"
        ]
    );

    // gönderilen 6, engellenen 3.
    assert!(ran.has_line("`app`: sent 6, blocked 3"));
    assert!(ran.has_line("calls that reached `api`: 6 of 9; failed fast by the breaker: 3"));
    assert_eq!(ran.calls("api"), 6);
    let blocked: u64 = ran.obs().nodes[0]
        .blocked
        .iter()
        .map(|&b| u64::from(b))
        .sum();
    assert_eq!(blocked, 3);
    insta::assert_snapshot!("circuit_breaker_report", ran.text);
}

/// `squall run FILE --format json` prints the same report the library
/// builds, so the numbers above are what a user's tools read.
#[test]
fn cli_json_is_the_library_report() {
    for file in [
        "scenarios/backoff.squall",
        "scenarios/retry-loop.squall",
        "scenarios/circuit-breaker.squall",
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_squall"))
            .args(["--color", "never", "run", file, "--format", "json"])
            .current_dir(crate::support::root())
            .output()
            .expect("the squall binary runs");
        assert!(
            out.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let cli: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("the CLI prints JSON");
        let lib: Ran = run_file(file);
        assert_eq!(cli, lib.json, "{file}");
    }
}
