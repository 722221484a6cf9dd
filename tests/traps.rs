//! Readings once taken silently, end to end (issue 19's traps, issue 20's
//! "Meaning"): the run a scenario makes now matches what the reference says
//! its words mean. Each expected value below is worked by hand or from a
//! closed form, and says so.

use squall_lang::{Metric, RunKey};

use crate::support::{erlang_c, eval_metric, load_text, node, run_study, window, TestResult};

/// `workers 4` with no `queue` line at utilisation 0.8 (Poisson 3.2/ms,
/// exponential service of mean 1 ms): the calls that find every worker busy
/// wait (an unbounded FIFO queue), so none is refused, and the mean time at
/// the node is the M/M/4 closed form `W = C / (c mu - lambda) + 1 / mu` with
/// Erlang C `C(4, 3.2) = 0.5964`: `W = 0.5964 / 0.8 + 1 = 1.7455 ms`. On
/// `main` the node had no room at all and refused about 44 % of the calls.
///
/// Tolerance: 150 s is 480 000 calls. At rho 0.8 on four workers the mean
/// wait's relative standard error over a run this long is about 3 % (the
/// M/M/4 test at rho 0.75 measures 2 % at 1.2 million); W adds the 1 ms of
/// service, which has no such error, so W's is about 1.3 %. 5 % is over
/// three of those; the run lands within 1 %.
#[test]
fn workers_alone_queue_every_call_as_erlang_c_says() -> TestResult {
    let text = r#"scenario "m/m/4 at 0.8" {
  clock ms
  run 150s
  seed 19
  source users { rate 3.2/ms  arrivals poisson  enters pool }
  chain pool
  service pool { latency exponential mean 1ms  workers 4 }
  window all 1..end
}
"#;
    let s = load_text("mm4.squall", text)?;
    let study = run_study(&s, Vec::new(), None)?;
    let key = RunKey::Variant(0);
    let (w, pool) = (window(&s, "all"), Some(node(&s, "pool")));
    let at = |m| eval_metric(&study, key, w, pool, m);
    assert_eq!(at(Metric::Overflow), Some(0.0), "no call refused");
    assert_eq!(at(Metric::Refused), Some(0.0), "no call refused");
    let pw = erlang_c(4, 3.2);
    assert!((pw - 0.5964).abs() < 1e-4, "Erlang C {pw}");
    let w_exact = pw / (4.0 - 3.2) + 1.0;
    let mean = at(Metric::LatencyMean).expect("calls were served");
    assert!(
        (mean / w_exact - 1.0).abs() < 0.05,
        "W {mean} ms vs {w_exact} ms"
    );
    // Some calls waited: the queue is there, not just idle workers.
    let queued = at(Metric::QueueMean).expect("a mean queue");
    assert!(queued > 1.0, "mean queue {queued}");
    Ok(())
}

/// A per-try timeout written before `queue` is the caller's: `api` gives
/// each try to `db` 10 ms, and `db` takes 50 ms, so every try times out and
/// no request (one try, no retry) completes: three requests (at 100, 200
/// and 300 ms), three timeouts, three dropped. (This spelling meant the
/// same on `main`; the trap was the `timeout` on the line after `queue`,
/// which loaded there as a queue timeout, 0 timeouts and three completed,
/// and is refused now: `crates/squall-lang/tests/traps.rs`.)
#[test]
fn a_per_try_timeout_before_queue_times_every_try_out() -> TestResult {
    let text = r#"scenario "timeout" {
  clock ms
  run 1s
  source users { at [100ms, 200ms, 300ms]  enters api }
  chain api -> db
  service api {
    latency 1ms
    workers 4
    timeout 10ms
    queue 100
  }
  service db { latency 50ms }
  window all 1..end
}
"#;
    let s = load_text("timeout.squall", text)?;
    let study = run_study(&s, Vec::new(), None)?;
    let key = RunKey::Variant(0);
    let w = window(&s, "all");
    let api = Some(node(&s, "api"));
    assert_eq!(
        eval_metric(&study, key, w, api, Metric::Timeouts),
        Some(3.0)
    );
    assert_eq!(
        eval_metric(&study, key, w, None, Metric::Completed),
        Some(0.0)
    );
    let run = study.runs.values().next().expect("one run");
    let a = run.obs.accounting;
    assert_eq!((a.entered, a.dropped, a.in_flight), (3, 3, 0));
    Ok(())
}

/// `param half = 0.5ms`: a report line prints it as 0.5 (ticks of `clock
/// ms`) and `expect $half == 0.5 within 0` holds; on `main` the line printed
/// `—` and the expectation failed with n/a.
#[test]
fn a_fractional_duration_param_prints_and_compares_exactly() {
    let text = r#"scenario "half" {
  clock ms
  run 100ms
  param half = 0.5ms
  source users { rate 1/ms  enters db }
  chain db
  service db { latency $half }
  report {
    line "half: {$half:.1} ms"
  }
  expect $half == 0.5 within 0
}
"#;
    // `run` fails the test unless every expectation holds.
    let ran = crate::support::run("half.squall", text);
    assert!(ran.text.contains("half: 0.5 ms"), "{}", ran.text);
}

/// A window in which nothing was served has no latency: `p99`,
/// `latency_max`, `latency_mean` and `e2e_p99` there are n/a, so a table
/// prints `—` and an `expect` over them fails, saying n/a. On `main` they
/// were 0, and `expect quiet.db.p99 < 1` passed on a window that served
/// nothing. (The one request is sent at 500 ms; the window is 1..100 ms.)
#[test]
fn latency_of_nothing_served_is_na_and_fails_an_expectation() -> TestResult {
    let text = r#"scenario "quiet" {
  clock ms
  run 1s
  source users { at [500ms]  enters db }
  chain db
  service db { latency 1ms }
  window quiet 1..100
  window busy 101..end
  report {
    table "latency" {
      rows windows
      at db
      column "p99" = p99 :.1
      column "max" = latency_max :.1
      column "e2e p99" = e2e_p99 :.1
    }
  }
  expect quiet.db.p99 < 1
  expect quiet.db.latency_mean < 1
  expect quiet.e2e_p99 < 1
  expect busy.db.p99 < 2
}
"#;
    let s = load_text("quiet.squall", text)?;
    let study = run_study(&s, Vec::new(), None)?;
    let key = RunKey::Variant(0);
    let (quiet, busy, db) = (
        window(&s, "quiet"),
        window(&s, "busy"),
        Some(node(&s, "db")),
    );
    for m in [
        Metric::P50,
        Metric::P99,
        Metric::LatencyMax,
        Metric::LatencyMean,
    ] {
        assert_eq!(eval_metric(&study, key, quiet, db, m), None, "{m:?}");
    }
    assert_eq!(eval_metric(&study, key, quiet, None, Metric::E2eP99), None);
    // The busy window served the one call in 1 ms (constant latency; the
    // histogram's 0.1 % error at most).
    let p99 = eval_metric(&study, key, busy, db, Metric::P99).expect("served");
    assert!((p99 - 1.0).abs() <= 1e-3, "{p99}");
    let outcomes = study.expectations();
    let passed: Vec<bool> = outcomes.iter().map(|e| e.passed).collect();
    assert_eq!(passed, [false, false, false, true]);
    assert!(
        outcomes[0].failure().contains("the value is n/a"),
        "{}",
        outcomes[0].failure()
    );
    let text = study.report().to_text();
    let quiet_row = text
        .lines()
        .find(|l| l.starts_with("quiet "))
        .expect("a row for quiet");
    assert_eq!(quiet_row.matches('—').count(), 3, "{quiet_row}");
    Ok(())
}

/// A uniform source sends `rate x run` requests, whether or not anything
/// takes time. The path where nothing does adds a tick's rate when the
/// tick starts; the timed path now counts a starting rate's first tick at
/// once too. At 1/ms over 1 000 ms (ticks 1..=1000): one request at the
/// start of each tick, 1 000. At 0.3/ms: the k-th request when `0.3 + 0.3
/// t = k`, at `t = k / 0.3 - 1` ms after the start, for `t < 1000`: k = 1
/// ..= 300, 300. At 4/ms over 100 ms: 4 at the start of each of the 100
/// ticks, 400; timed, the first at once and the rest 0.25 ms apart (0,
/// 0.25, ..., 99.75), 400. On `main` the timed path (`latency 1ms`) started
/// from no credit and sent 999 and 299, one fewer than the path where
/// nothing takes time (and 399 at 4/ms).
#[test]
fn a_uniform_source_sends_rate_times_run_on_both_paths() -> TestResult {
    for (rate, run, want) in [
        ("1/ms", "1000ms", 1000u64),
        ("0.3/ms", "1000ms", 300),
        ("4/ms", "100ms", 400),
    ] {
        for latency in ["", "latency 1ms"] {
            let text = format!(
                "scenario \"count\" {{\n  clock ms\n  run {run}\n  source users {{ rate {rate}  enters db }}\n  chain db\n  service db {{ {latency} }}\n}}\n"
            );
            let s = load_text("count.squall", &text)?;
            let study = run_study(&s, Vec::new(), None)?;
            let run = study.runs.values().next().expect("one run");
            assert_eq!(
                run.obs.accounting.entered, want,
                "rate {rate}, latency `{latency}`"
            );
        }
    }
    Ok(())
}

/// A runaway with no retry policy to blame names what drives its work: a
/// poison message received again at once up to a million times stops at
/// the work budget with the work queue named, not with "no node retries,
/// so the run is simply long" as on `main`. (Work budget 20 000 events;
/// the first message is poison, worked 0.1 ms a receive: 100 000 receives
/// in 10 s, each at least one event, pass that.)
#[test]
fn a_runaway_without_retries_names_what_drives_it() -> TestResult {
    let text = r#"scenario "spin" {
  clock ms
  run 10s
  work_budget 20_000
  source shop { rate 10/s  enters orders }
  chain orders
  service orders {
    consumers 1
    work 0.1ms
    poison 1
    redeliver immediately
    max_receives 1_000_000
    dead_letter dlq
  }
}
"#;
    let s = load_text("spin.squall", text)?;
    let err = match run_study(&s, Vec::new(), None) {
        Ok(_) => panic!("the run should stop at its work budget"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("its work budget"), "{err}");
    assert!(err.contains("work queue `orders`"), "{err}");
    assert!(err.contains("up to 1000000 receives"), "{err}");
    assert!(!err.contains("simply long"), "{err}");
    Ok(())
}
