//! Circuit breakers with other thresholds, cool-downs, probes and call
//! sequences. Traces are derived by hand from the rules (the `breaker.rs`
//! module docs, and the document's `devreKesici`):
//!
//! * closed: calls go through; consecutive failures are counted, a success
//!   resets the count; at the threshold it opens;
//! * open: calls are not sent; once `cooldown` has passed since it opened,
//!   the next call finds it half-open;
//! * half-open: a probe goes through; a failed probe opens it again (the
//!   cool-down restarts), a successful one closes it.
//!
//! What counts as a failure of the dependency: anything but a success, a
//! 4xx other than 429, and a body error.

use crate::js::JsMulberry32;
use crate::support::{run, Ran};

/// `(time, sent, before, outcome, after)` as the trace prints them.
type Row = (u64, bool, &'static str, String, &'static str);

fn rows(ran: &Ran, node: &str) -> Vec<Row> {
    ran.trace(node)
        .into_iter()
        .map(|r| (r.time, r.sent, r.before, r.outcome, r.after))
        .collect()
}

fn sent(time: u64, before: &'static str, outcome: &str, after: &'static str) -> Row {
    (time, true, before, outcome.to_string(), after)
}

fn blocked(time: u64, left_ms: u64) -> Row {
    (
        time,
        false,
        "open",
        format!("not sent ({left_ms} ms left)"),
        "open",
    )
}

fn times(list: &[u64]) -> String {
    list.iter()
        .map(|t| format!("{t}ms"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The document's call times with a threshold of 2 and a 3 s cool-down.
#[test]
fn document_calls_with_threshold_two_and_three_second_cooldown() {
    let ran = run(
        "breaker 2/3s",
        r#"scenario "breaker 2/3s" {
  clock ms
  run 0ms..12s
  chain app -> api
  service app { breaker { after 2 failures  cooldown 3s } }
  endpoint api { default { 503 until 11s then 200 } }
  source calls {
    enters app
    at [0ms, 200ms, 600ms, 900ms, 1500ms, 6000ms, 8000ms, 11500ms, 11800ms]
  }
  window all 0ms..12s
  report {
    trace "t" of app
    line "api {all.api.calls:.0}, blocked {all.app.blocked:.0}"
  }
}"#,
    );
    assert_eq!(
        rows(&ran, "app"),
        [
            sent(0, "closed", "http 503", "closed"),
            // The second failure opens it, at 200 ms.
            sent(200, "closed", "http 503", "open"),
            blocked(600, 2600),
            blocked(900, 2300),
            blocked(1500, 1700),
            // 5800 ms after opening: half-open; the probe fails, open at 6000.
            sent(6000, "half-open", "http 503", "open"),
            blocked(8000, 1000),
            // 5500 ms after: half-open; the dependency is back.
            sent(11500, "half-open", "success", "closed"),
            sent(11800, "closed", "success", "closed"),
        ]
    );
    assert!(ran.has_line("`app`: sent 5, blocked 4"));
    assert!(ran.has_line("api 5, blocked 4"));
}

/// The dependency fails through a `fault ... fail 503` window, not a script.
const FAULT_WINDOW: &str = r#"scenario "breaker and fault" {
  clock ms
  run 0ms..5s
  chain app -> api
  service app { breaker { after 3 failures  cooldown 1s  probes PROBES } }
  endpoint api { default { 200 } }
  fault down { on api  during 0ms..2999ms  fail 503 }
  source calls {
    enters app
    at [0ms, 100ms, 200ms, 300ms, 1200ms, 1300ms, 2500ms, 3200ms, 3300ms, 3500ms, 3600ms]
  }
  window all 0ms..5s
  report { trace "t" of app }
}"#;

fn fault_window_trace() -> Vec<Row> {
    vec![
        sent(0, "closed", "http 503", "closed"),
        sent(100, "closed", "http 503", "closed"),
        sent(200, "closed", "http 503", "open"),
        blocked(300, 900),
        // Exactly 1000 ms after opening: half-open; the fault still holds.
        sent(1200, "half-open", "http 503", "open"),
        blocked(1300, 900),
        sent(2500, "half-open", "http 503", "open"),
        blocked(3200, 300),
        blocked(3300, 200),
        // The fault ended at 2999 ms: the probe succeeds.
        sent(3500, "half-open", "success", "closed"),
        sent(3600, "closed", "success", "closed"),
    ]
}

#[test]
fn a_fault_window_opens_and_reopens_it() {
    let ran = run("fault window", &FAULT_WINDOW.replace("PROBES", "1"));
    assert_eq!(rows(&ran, "app"), fault_window_trace());
    assert!(ran.has_line("`app`: sent 7, blocked 4"));
}

/// Calls take no time in squall, so a probe is answered before the next
/// call arrives: more probes allowed at once change nothing here.
#[test]
fn more_probes_change_nothing_when_calls_take_no_time() {
    let ran = run("fault window", &FAULT_WINDOW.replace("PROBES", "3"));
    assert_eq!(rows(&ran, "app"), fault_window_trace());
}

#[test]
fn a_success_resets_the_count() {
    let ran = run(
        "reset",
        r#"scenario "reset" {
  clock ms
  run 0ms..1s
  chain app -> api
  service app { breaker { after 3 failures  cooldown 100ms } }
  endpoint api { default { 503 x 2 then 200 x 1 then 503 x 3 then 200 } }
  source calls { enters app  at [0ms, 10ms, 20ms, 30ms, 40ms, 50ms, 60ms, 150ms, 160ms] }
  report { trace "t" of app }
}"#,
    );
    assert_eq!(
        rows(&ran, "app"),
        [
            sent(0, "closed", "http 503", "closed"),
            sent(10, "closed", "http 503", "closed"),
            // Two failures, then a success: the count starts again.
            sent(20, "closed", "success", "closed"),
            sent(30, "closed", "http 503", "closed"),
            sent(40, "closed", "http 503", "closed"),
            sent(50, "closed", "http 503", "open"),
            blocked(60, 90),
            // The 7th call that reaches `api` meets the final 200 (blocked
            // calls never reach it, so they use up no step of the script).
            sent(150, "half-open", "success", "closed"),
            sent(160, "closed", "success", "closed"),
        ]
    );
}

/// Client errors and body errors are the caller's fault and do not count;
/// 429, 5xx, timeouts, network errors and refusals do.
#[test]
fn what_counts_as_a_failure() {
    let ran = run(
        "counting",
        r#"scenario "counting" {
  clock ms
  run 0ms..1s
  chain app -> api
  service app { breaker { after 2 failures  cooldown 1s } }
  endpoint api {
    default { 404 x 3 then body_error x 1 then 422 x 1 then 429 x 1 then 503 x 1 then 200 }
  }
  source calls { enters app  at [0ms, 10ms, 20ms, 30ms, 40ms, 50ms, 60ms, 70ms] }
  report { trace "t" of app }
}"#,
    );
    assert_eq!(
        rows(&ran, "app"),
        [
            sent(0, "closed", "http 404", "closed"),
            sent(10, "closed", "http 404", "closed"),
            sent(20, "closed", "http 404", "closed"),
            sent(30, "closed", "body error", "closed"),
            sent(40, "closed", "http 422", "closed"),
            // The first failure that counts.
            sent(50, "closed", "http 429", "closed"),
            sent(60, "closed", "http 503", "open"),
            blocked(70, 990),
        ]
    );

    let ran = run(
        "transport",
        r#"scenario "transport" {
  clock ms
  run 0ms..1s
  chain app -> api
  service app { breaker { after 2 failures  cooldown 1s } }
  endpoint api { default { timeout x 1 then network_error x 1 then 200 } }
  source calls { enters app  at [0ms, 10ms, 20ms]  request POST /x }
  report { trace "t" of app }
}"#,
    );
    assert_eq!(
        rows(&ran, "app"),
        [
            sent(0, "closed", "timeout", "closed"),
            sent(10, "closed", "network error", "open"),
            blocked(20, 990),
        ]
    );

    let ran = run(
        "refusal",
        r#"scenario "refusal" {
  clock ms
  run 0ms..1s
  chain app -> api
  service app { breaker { after 1 failures  cooldown 100ms } }
  service api { capacity 1/ms }
  source calls { enters app  at [0ms, 0ms, 0ms] }
  report { trace "t" of app }
}"#,
    );
    assert_eq!(
        rows(&ran, "app"),
        [
            sent(0, "closed", "success", "closed"),
            sent(0, "closed", "refused (no capacity)", "open"),
            blocked(0, 100),
        ]
    );
}

/// A retrying service with a breaker: its own failures open the breaker,
/// and the next try fails fast as "circuit open", which is not retried.
#[test]
fn retries_stop_at_an_open_breaker() {
    let ran = run(
        "retry and breaker",
        r#"scenario "retry and breaker" {
  clock ms
  run 0ms..5s
  chain app -> api
  service app {
    retry { attempts 3  backoff fixed 100ms }
    breaker { after 2 failures  cooldown 1s }
  }
  endpoint api { default { 503 } }
  source ui { enters app  sequential { op "one" GET /x } }
  report { operations "ops" of ui  trace "t" of app }
}"#,
    );
    assert_eq!(
        rows(&ran, "app"),
        [
            sent(0, "closed", "http 503", "closed"),
            sent(100, "closed", "http 503", "open"),
            blocked(200, 900),
        ]
    );
    let ops = ran.ops();
    assert_eq!(
        (
            ops[0].tries,
            ops[0].outcome.as_str(),
            ops[0].waits.as_slice()
        ),
        (3, "circuit open (900 ms left)", &[100u64, 100][..])
    );
}

/// Scope: a breaker belongs to one calling service and guards its one
/// downstream; another caller of the same dependency keeps its own.
#[test]
fn each_caller_has_its_own_breaker() {
    let ran = run(
        "scope",
        r#"scenario "scope" {
  clock ms
  run 0ms..10s
  chain web -> api
  chain batch -> api
  service web, batch { breaker { after 2 failures  cooldown 1s } }
  endpoint api {
    route w GET /w { 503 }
    route b GET /b { 200 }
  }
  source a { enters web    at [0ms, 10ms, 20ms, 30ms]  request GET /w }
  source b { enters batch  at [5ms, 15ms, 25ms]        request GET /b }
  window all 0ms..10s
  report {
    trace "web" of web
    trace "batch" of batch
    line "web blocked {all.web.blocked:.0}, batch blocked {all.batch.blocked:.0}, api {all.api.calls:.0}"
  }
}"#,
    );
    assert_eq!(
        rows(&ran, "web"),
        [
            sent(0, "closed", "http 503", "closed"),
            sent(10, "closed", "http 503", "open"),
            blocked(20, 990),
            blocked(30, 980),
        ]
    );
    assert_eq!(
        rows(&ran, "batch"),
        [
            sent(5, "closed", "success", "closed"),
            sent(15, "closed", "success", "closed"),
            sent(25, "closed", "success", "closed"),
        ]
    );
    assert!(ran.has_line("web blocked 2, batch blocked 0, api 5"));
}

/// The document's `devreKesici`, written from its JavaScript with the
/// threshold and cool-down as parameters.
struct Reference {
    threshold: u32,
    cooldown: u64,
    state: &'static str,
    failures: u32,
    opened: u64,
}

impl Reference {
    /// `izinVer(simdi)`: whether the call goes, and the state it found.
    fn admit(&mut self, now: u64) -> (bool, &'static str) {
        if self.state == "open" && now - self.opened >= self.cooldown {
            self.state = "half-open";
        }
        (self.state != "open", self.state)
    }

    /// `bildir(basarili, simdi)`: the state after.
    fn record(&mut self, ok: bool, now: u64) -> &'static str {
        if ok {
            self.state = "closed";
            self.failures = 0;
            return self.state;
        }
        self.failures += 1;
        if self.state == "half-open" || self.failures >= self.threshold {
            self.state = "open";
            self.opened = now;
            self.failures = 0;
        }
        self.state
    }
}

/// Random call times, failure windows, thresholds and cool-downs; the
/// engine's trace must match the reference event for event.
#[test]
fn random_sequences_match_the_documents_state_machine() {
    let mut g = JsMulberry32::new(2026);
    let mut pick = |lo: u64, hi: u64| lo + (g.next() * (hi - lo + 1) as f64) as u64;
    for case in 0..40 {
        let end = 10_000u64;
        let threshold = pick(1, 5) as u32;
        let cooldown = pick(50, 2500);
        let mut calls: Vec<u64> = (0..pick(5, 60)).map(|_| pick(0, end)).collect();
        calls.sort_unstable();
        // Non-overlapping failure windows, in order.
        let mut windows = Vec::new();
        let mut from = pick(0, 1000);
        while from < end && windows.len() < 4 {
            let to = (from + pick(0, 3000)).min(end);
            windows.push((from, to));
            from = to + pick(1, 3000);
        }
        let faults: String = windows
            .iter()
            .enumerate()
            .map(|(i, (a, b))| {
                format!("  fault f{i} {{ on api  during {a}ms..{b}ms  fail 503 }}\n")
            })
            .collect();
        let text = format!(
            r#"scenario "random breaker {case}" {{
  clock ms
  run 0ms..{end}ms
  chain app -> api
  service app {{ breaker {{ after {threshold} failures  cooldown {cooldown}ms }} }}
  endpoint api {{ default {{ 200 }} }}
{faults}  source calls {{ enters app  at [{}] }}
  report {{ trace "t" of app }}
}}"#,
            times(&calls)
        );
        let ran = run(&format!("random breaker {case}"), &text);

        let mut b = Reference {
            threshold,
            cooldown,
            state: "closed",
            failures: 0,
            opened: 0,
        };
        let want: Vec<Row> = calls
            .iter()
            .map(|&t| {
                let (go, before) = b.admit(t);
                if !go {
                    return blocked(t, b.opened + cooldown - t);
                }
                let ok = !windows.iter().any(|&(a, z)| a <= t && t <= z);
                let after = b.record(ok, t);
                let outcome = if ok { "success" } else { "http 503" };
                sent(t, before, outcome, after)
            })
            .collect();
        assert_eq!(rows(&ran, "app"), want, "{text}");
        let n_sent = want.iter().filter(|r| r.1).count();
        assert!(
            ran.has_line(&format!(
                "`app`: sent {n_sent}, blocked {}",
                want.len() - n_sent
            )),
            "{text}"
        );
    }
}

/// A breaker per endpoint group (`per path`): failing writes open the
/// breaker of their path only, so reads through the same service still go
/// out; one breaker for every path blocks the reads too. Derived from the
/// rules: writes at 0, 100, 200 ms fail (threshold 3 → open at 200 ms), the
/// write at 300 ms is not sent (5000 − 100 ms left); the reads at 400 and
/// 500 ms find their own breaker closed — or the shared one open.
#[test]
fn a_breaker_per_path_keeps_other_paths_open() {
    let ran = crate::support::run_file("scenarios/breaker-scope.squall");
    let per_path = ran.trace("app");
    let scopes: Vec<&str> = per_path.iter().map(|r| r.scope.as_str()).collect();
    assert_eq!(
        scopes,
        [
            "/olcumler",
            "/olcumler",
            "/olcumler",
            "/olcumler",
            "/istasyonlar",
            "/istasyonlar"
        ]
    );
    assert_eq!(
        rows(&ran, "app"),
        vec![
            sent(0, "closed", "http 503", "closed"),
            sent(100, "closed", "http 503", "closed"),
            sent(200, "closed", "http 503", "open"),
            (
                300,
                false,
                "open",
                "not sent (4900 ms left)".to_string(),
                "open"
            ),
            sent(400, "closed", "success", "closed"),
            sent(500, "closed", "success", "closed"),
        ]
    );
    let shared = rows(&ran, "shared");
    assert_eq!(shared.len(), 6);
    assert!(
        shared[3..].iter().all(|r| !r.1 && r.2 == "open"),
        "{shared:?}"
    );
    // One breaker over every path leaves no scope to name.
    assert!(ran.trace("shared").iter().all(|r| r.scope.is_empty()));
    assert_eq!(
        ran.calls("api"),
        5 + 3,
        "sent: 5 through `app`, 3 through `shared`"
    );
}
