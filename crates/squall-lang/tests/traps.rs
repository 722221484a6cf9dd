//! Readings that used to be taken silently (issue 19, "silent traps"): a
//! `timeout` on the line after `queue N`, `workers N` without a `queue`
//! line, a fractional duration in a param. Each is either read one way by
//! the syntax or refused where it is written.

use squall_lang::{Model, Overrides, UNBOUNDED_QUEUE};

use crate::common::{at, load_text_err};

/// A two-node chain under `clock ms` with `api` and `db` as given.
fn chain(api: &str, db: &str) -> String {
    format!(
        "scenario \"t\" {{\n  clock ms\n  run 1s\n  source users {{ rate 10/s  enters api }}\n  chain api -> db\n  service api {{\n{api}\n  }}\n  service db {{\n{db}\n  }}\n}}\n"
    )
}

fn model_of(text: &str) -> Model {
    let s = squall_lang::load("t.squall", text)
        .unwrap_or_else(|d| panic!("does not load:\n{}", d.to_plain()));
    s.model(&Overrides::default())
        .unwrap_or_else(|d| panic!("does not resolve:\n{}", d.to_plain()))
}

/// The trap of the issue: on `main` this loaded, the `timeout` became the
/// queue's, and `api` had no per-try timeout at all. Now it is refused at
/// the `timeout` word, and the help shows both spellings.
#[test]
fn a_timeout_on_the_line_after_queue_is_refused_with_both_spellings() {
    let text = chain(
        "    latency 1ms\n    workers 4\n    queue 100\n    timeout 250ms",
        "    latency 5ms",
    );
    let d = load_text_err(&text);
    let plain = d.to_plain();
    let (line, col) = at(&text, "timeout 250ms");
    assert!(
        plain.starts_with(&format!(
            "test.squall:{line}:{col}: error: `timeout` on the line after `queue 100` is ambiguous"
        )),
        "{plain}"
    );
    assert_eq!(d.list.len(), 1, "{plain}");
    assert!(plain.contains("`queue 100 timeout 250ms`"), "{plain}");
    assert!(
        plain.contains("write `timeout 250ms` before the `queue` line"),
        "{plain}"
    );
    // A comment between them does not join them either.
    let text = chain(
        "    workers 4\n    queue unbounded # room for all\n    timeout 250ms",
        "    latency 5ms",
    );
    let plain = load_text_err(&text).to_plain();
    assert!(
        plain.contains("`timeout` on the line after `queue unbounded` is ambiguous"),
        "{plain}"
    );
}

/// The two spellings the help offers each mean one thing.
#[test]
fn the_queue_timeout_is_on_its_line_and_the_per_try_timeout_before_it() {
    // On the `queue` line: the longest wait in api's queue, no per-try
    // timeout.
    let m = model_of(&chain(
        "    latency 1ms\n    workers 4\n    queue 100 timeout 250ms",
        "    latency 5ms",
    ));
    let api = m.nodes[0].server.clone().expect("api serves");
    assert_eq!((api.queue, api.queue_timeout), (Some(100), Some(250.0)));
    assert_eq!(m.nodes[0].caller.timeout, None);
    // Before the `queue` line: api's per-try timeout on its calls to db.
    let m = model_of(&chain(
        "    latency 1ms\n    workers 4\n    timeout 250ms\n    queue 100",
        "    latency 5ms",
    ));
    let api = m.nodes[0].server.clone().expect("api serves");
    assert_eq!((api.queue, api.queue_timeout), (Some(100), None));
    assert_eq!(m.nodes[0].caller.timeout, Some(250.0));
}

/// A timeout on a node that calls nothing is refused (as before); the help
/// now says where a limit on the node's queue goes.
#[test]
fn a_timeout_at_the_bottom_of_the_chain_points_at_the_queue_line() {
    let text = chain(
        "    latency 1ms",
        "    workers 4\n    timeout 50ms\n    queue 10",
    );
    let plain = load_text_err(&text).to_plain();
    assert!(
        plain.contains("`db` has a timeout but calls nothing"),
        "{plain}"
    );
    assert!(plain.contains("`queue 100 timeout 50ms`"), "{plain}");
}

/// `workers N` alone queues without bound, as the reference says ("the
/// rest wait in the queue"); `queue unbounded` says so in words; a written
/// length stays that length.
#[test]
fn workers_alone_and_queue_unbounded_wait_without_bound() {
    let m = model_of(&chain("    latency 1ms", "    latency 5ms\n    workers 4"));
    let db = m.nodes[1].server.clone().expect("db serves");
    assert_eq!((db.workers, db.queue), (Some(4), Some(UNBOUNDED_QUEUE)));
    let m = model_of(&chain(
        "    latency 1ms",
        "    latency 5ms\n    workers 4\n    queue unbounded timeout 2s",
    ));
    let db = m.nodes[1].server.clone().expect("db serves");
    assert_eq!(
        (db.workers, db.queue, db.queue_timeout),
        (Some(4), Some(UNBOUNDED_QUEUE), Some(2000.0))
    );
    let m = model_of(&chain(
        "    latency 1ms",
        "    latency 5ms\n    workers 4\n    queue 0",
    ));
    let db = m.nodes[1].server.clone().expect("db serves");
    assert_eq!(db.queue, Some(0), "`queue 0` is still no room");
    // A queue needs workers, unbounded or not.
    let text = chain("    latency 1ms", "    latency 5ms\n    queue unbounded");
    let plain = load_text_err(&text).to_plain();
    assert!(
        plain.contains("a `queue` waits for workers, and this node has no `workers`"),
        "{plain}"
    );
}

/// `squall fmt` keeps `queue unbounded` and both timeouts as written, and
/// its output formats to itself.
#[test]
fn fmt_keeps_the_queue_spellings() {
    let text = chain(
        "    latency 1ms\n    workers 4\n    timeout 250ms\n    queue unbounded",
        "    latency 5ms\n    workers 2\n    queue 10 timeout 20ms",
    );
    let once = squall_lang::format::format_source(&text).expect("formats");
    assert!(once.contains("timeout 250ms  queue unbounded"), "{once}");
    assert!(once.contains("queue 10 timeout 20ms"), "{once}");
    let twice = squall_lang::format::format_source(&once).expect("formats again");
    assert_eq!(once, twice);
    let (a, b) = (model_of(&text), model_of(&once));
    assert_eq!(a.nodes[0].server, b.nodes[0].server);
    assert_eq!(a.nodes[0].caller, b.nodes[0].caller);
    assert_eq!(a.nodes[1].server, b.nodes[1].server);
}

/// `param half = 0.5ms` is half a tick under `clock ms`: a report reads it
/// as 0.5 (it used to read nothing, printed `—`, and `expect $half == 0.5`
/// failed). A whole duration reads as before.
#[test]
fn a_fractional_duration_param_is_its_number_of_ticks() {
    let text = "scenario \"p\" {\n  clock ms\n  run 1s\n  param half = 0.5ms\n  param two = 2s\n  param third = 0.25s\n  source users { rate 10/s  enters db }\n  chain db\n  service db { latency $half }\n}\n";
    let s = squall_lang::load("p.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let o = Overrides::default();
    // 0.5 ms at one tick per ms; 2 s = 2000 ticks; 0.25 s = 250 ticks.
    assert_eq!(s.param_number("half", &o), Some(0.5));
    assert_eq!(s.param_number("two", &o), Some(2000.0));
    assert_eq!(s.param_number("third", &o), Some(250.0));
    let text = text.replace("clock ms", "clock s");
    let s = squall_lang::load("p.squall", &text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    // Under `clock s` 0.5 ms is 0.0005 ticks: exact in binary? no, so compare
    // with the conversion's own rounding (one multiplication, 1 ulp).
    let half = s.param_number("half", &o).expect("a number");
    assert!((half - 0.0005).abs() < 1e-15, "{half}");
}
