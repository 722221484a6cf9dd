//! Retry loops against other scripts. Each expectation is reasoned out
//! here from the rules (document 002 and the classification table):
//!
//! * 429, 5xx and refusals are retried; other 4xx are not;
//! * network errors and timeouts are retried for GET, HEAD and OPTIONS, or
//!   when the request carries an idempotency key; body errors never;
//! * any other code (1xx, 3xx, `0x58`) is unknown: retried up to
//!   `min(attempts, unknown_attempts)` tries, counting every try so far;
//! * the wait is the backoff's (a jittered one draws when a retry is
//!   decided), raised to the server's Retry-After unless `retry_after
//!   ignore`; no retry starts more than `deadline` after the first try.
//!
//! Jittered waits come from the reference generator and formulas in
//! `support`.

use crate::js::{JsMulberry32, Loop, Policy};
use crate::support::{op, read, run, summary};

/// The document's jitter: 200 ms doubling, cap 5 s.
const DOC_JITTER: Policy = Policy::Full {
    base: 200,
    m: 2.0,
    cap: Some(5000),
};

#[test]
fn five_hundreds_with_three_and_four_attempts() {
    let ran = run(
        "500 x 3",
        r#"scenario "500 x 3" {
  clock ms
  run 0ms..60s
  rng doc { mulberry32 seed 42 }
  backoff j = full_jitter 200ms x 2 cap 5s rng doc
  chain app -> server
  service app { retry { attempts 4  backoff j } }
  endpoint server {
    route three GET /three { 500 x 3 then 200 }
    route four  GET /four  { 500 x 3 then 200 }
  }
  source ui {
    enters app
    sequential {
      op "attempts 3" GET /three attempts 3
      op "attempts 4" GET /four
    }
  }
  report {
    operations "ops" of ui
    line "three {route_calls(server, three):.0}, four {route_calls(server, four):.0}"
  }
}"#,
    );
    let mut g = JsMulberry32::new(42);
    // Three tries, all 500: two retries, two draws; the third 500 is final.
    let mut first = Loop::new(&mut g, DOC_JITTER);
    let w3 = [first.wait(1), first.wait(2)];
    // Four tries: the fourth meets the 200; three draws, continuing the
    // same generator.
    let mut second = Loop::new(&mut g, DOC_JITTER);
    let w4 = [second.wait(1), second.wait(2), second.wait(3)];
    let ops = ran.ops();
    assert_eq!(
        summary(&ops),
        [
            op("attempts 3", 3, "http 500", &w3),
            op("attempts 4", 4, "success", &w4)
        ]
    );
    // Operations run back to back: each starts when the previous ends, and
    // the waits are the whole time between tries.
    assert_eq!((ops[0].start, ops[0].end), (0, w3.iter().sum()));
    assert_eq!(ops[1].start, ops[0].end);
    assert_eq!(ops[1].end, ops[1].start + w4.iter().sum::<u64>());
    assert!(ran.has_line("three 3, four 4"));
    // The report's table prints the same.
    let join = |w: &[u64]| w.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
    assert_eq!(
        ran.table("ops"),
        [
            vec![
                "attempts 3".to_string(),
                "3".into(),
                "http 500".into(),
                join(&w3)
            ],
            vec![
                "attempts 4".to_string(),
                "4".into(),
                "success".into(),
                join(&w4)
            ],
        ]
    );
}

/// A network error is retried for safe methods and keyed requests only;
/// operations that are not retried draw nothing from the generator.
#[test]
fn network_errors_by_method_and_idempotency_key() {
    let ran = run(
        "network errors",
        r#"scenario "network errors" {
  clock ms
  run 0ms..60s
  rng doc { mulberry32 seed 20260114 }
  backoff j = full_jitter 200ms x 2 cap 5s rng doc
  chain app -> server
  service app { retry { attempts 3  backoff j } }
  endpoint server {
    route get       GET     /get       { network_error x 1 then 200 }
    route post      POST    /post      { network_error x 1 then 200 }
    route head      HEAD    /head      { network_error x 1 then 200 }
    route put       PUT     /put       { network_error x 1 then 200 }
    route options   OPTIONS /options   { network_error x 1 then 200 }
    route patch     PATCH   /patch     { network_error x 1 then 200 }
    route delete    DELETE  /delete    { network_error x 1 then 200 }
    route keyed     POST    /keyed     { network_error x 1 then 200 }
    route keyed_put PUT     /keyed-put { network_error x 1 then 200 }
  }
  source ui {
    enters app
    sequential {
      op "GET"        GET     /get
      op "POST"       POST    /post
      op "HEAD"       HEAD    /head
      op "PUT"        PUT     /put
      op "OPTIONS"    OPTIONS /options
      op "PATCH"      PATCH   /patch
      op "DELETE"     DELETE  /delete
      op "POST, key"  POST    /keyed idempotency_key
      op "PUT, key"   PUT     /keyed-put idempotency_key
    }
  }
  report { operations "ops" of ui }
}"#,
    );
    let mut g = JsMulberry32::new(20_260_114);
    let mut retried = |label: &str| {
        let w = Loop::new(&mut g, DOC_JITTER).wait(1);
        op(label, 2, "success", &[w])
    };
    let want = vec![
        retried("GET"),
        op("POST", 1, "network error", &[]),
        retried("HEAD"),
        op("PUT", 1, "network error", &[]),
        retried("OPTIONS"),
        op("PATCH", 1, "network error", &[]),
        op("DELETE", 1, "network error", &[]),
        retried("POST, key"),
        retried("PUT, key"),
    ];
    assert_eq!(summary(&ran.ops()), want);
    // The first two draws are the document's first two: 70 (bound 200),
    // then 0.459 * 200 = 92 at the next retried operation's first retry.
    assert_eq!(want[0].3, [70]);
    assert_eq!(want[2].3, [92]);
}

#[test]
fn timeouts_and_body_errors() {
    let ran = run(
        "timeouts",
        r#"scenario "timeouts" {
  clock ms
  run 0ms..60s
  rng doc { mulberry32 seed 3 }
  backoff j = full_jitter 200ms x 2 cap 5s rng doc
  chain app -> server
  service app { retry { attempts 4  backoff j } }
  endpoint server {
    route slow_get  GET  /t    { timeout x 2 then 200 }
    route slow_post POST /t    { timeout }
    route keyed     POST /tk   { timeout }
    route body      GET  /body { body_error x 1 then 200 }
  }
  source ui {
    enters app
    sequential {
      op "GET timeout"        GET  /t
      op "POST timeout"       POST /t
      op "POST timeout, key"  POST /tk idempotency_key attempts 3
      op "GET body error"     GET  /body
    }
  }
  report { operations "ops" of ui }
}"#,
    );
    let mut g = JsMulberry32::new(3);
    // GET: two timeouts retried, the third try succeeds.
    let mut l = Loop::new(&mut g, DOC_JITTER);
    let get = [l.wait(1), l.wait(2)];
    // A keyed POST is retried like a GET, up to its 3 tries.
    let mut l = Loop::new(&mut g, DOC_JITTER);
    let keyed = [l.wait(1), l.wait(2)];
    assert_eq!(
        summary(&ran.ops()),
        [
            op("GET timeout", 3, "success", &get),
            op("POST timeout", 1, "timeout", &[]),
            op("POST timeout, key", 3, "timeout", &keyed),
            // Never retried, even for a GET: the caller could not read the
            // answer it got.
            op("GET body error", 1, "body error", &[]),
        ]
    );
}

#[test]
fn unknown_codes_are_capped_by_unknown_attempts() {
    let ran = run(
        "unknown",
        r#"scenario "unknown" {
  clock ms
  run 0ms..60s
  chain app -> server
  policy cautious { attempts 5  backoff fixed 100ms  unknown_attempts 3 }
  policy generous { attempts 3  backoff fixed 100ms  unknown_attempts 9 }
  service app { retry { attempts 4  backoff fixed 100ms } }
  endpoint server {
    route throttle GET /throttle { 0x58 }
    route redirect GET /redirect { 302 x 1 then 200 }
    route mixed    GET /mixed    { 0x58 x 1 then 503 }
    route mixed2   GET /mixed2   { 503 x 1 then 0x58 }
  }
  source ui {
    enters app
    sequential {
      op "0x58, cap 3"             GET /throttle policy cautious
      op "0x58, default cap"       GET /throttle
      op "302 then 200"            GET /redirect
      op "0x58 then 503s"          GET /mixed policy cautious
      op "503 then 0x58"           GET /mixed2
      op "cap above attempts"      GET /throttle policy generous
    }
  }
  report { operations "ops" of ui }
}"#,
    );
    assert_eq!(
        summary(&ran.ops()),
        [
            // min(5, 3) = 3 tries for an unknown code.
            op("0x58, cap 3", 3, "code 0x58", &[100, 100]),
            // `unknown_attempts` defaults to 2.
            op("0x58, default cap", 2, "code 0x58", &[100]),
            // 302 is unknown too: retried once, then the 200.
            op("302 then 200", 2, "success", &[100]),
            // One unknown (1 try < 3), then 503s retried up to 5 tries.
            op("0x58 then 503s", 5, "http 503", &[100, 100, 100, 100]),
            // The 0x58 comes at try 2, and 2 tries is the default cap.
            op("503 then 0x58", 2, "code 0x58", &[100]),
            // The cap never exceeds `attempts`: min(3, 9) = 3.
            op("cap above attempts", 3, "code 0x58", &[100, 100]),
        ]
    );
}

#[test]
fn retry_after_is_a_lower_bound_unless_ignored() {
    let ran = run(
        "retry-after",
        r#"scenario "retry-after" {
  clock ms
  run 0ms..60s
  rng doc { mulberry32 seed 20260114 }
  backoff j = full_jitter 100ms x 2 cap 1s rng doc
  chain app -> server
  service app { retry { attempts 3  backoff j } }
  policy deaf { attempts 3  backoff j  retry_after ignore }
  endpoint server {
    route larger  GET /larger  { 503 retry_after 1s x 2 then 200 }
    route smaller GET /smaller { 429 retry_after 10ms x 2 then 200 }
    route ignored GET /ignored { 503 retry_after 5s x 1 then 200 }
  }
  source ui {
    enters app
    sequential {
      op "larger than the draw"  GET /larger
      op "smaller than the draw" GET /smaller
      op "ignored"               GET /ignored policy deaf
    }
  }
  report { operations "ops" of ui }
}"#,
    );
    let jitter = Policy::Full {
        base: 100,
        m: 2.0,
        cap: Some(1000),
    };
    let mut g = JsMulberry32::new(20_260_114);
    // Every retry draws, even when the server's Retry-After wins.
    let mut l = Loop::new(&mut g, jitter);
    let larger = [l.wait(1).max(1000), l.wait(2).max(1000)];
    let mut l = Loop::new(&mut g, jitter);
    let smaller = [l.wait(1).max(10), l.wait(2).max(10)];
    let ignored = [Loop::new(&mut g, jitter).wait(1)];
    assert_eq!(larger, [1000, 1000], "draws of at most 100 and 200 ms");
    assert!(smaller.iter().any(|&w| w > 10), "a draw above 10 ms wins");
    assert!(ignored[0] < 100, "the 5 s Retry-After is ignored");
    assert_eq!(
        summary(&ran.ops()),
        [
            op("larger than the draw", 3, "success", &larger),
            op("smaller than the draw", 3, "success", &smaller),
            op("ignored", 2, "success", &ignored),
        ]
    );
}

#[test]
fn deadline_stops_retries() {
    let ran = run(
        "deadline",
        r#"scenario "deadline" {
  clock ms
  run 0ms..60s
  chain app -> server
  policy d700  { attempts 10  backoff exponential 100ms x 2  deadline 700ms }
  policy d699  { attempts 10  backoff exponential 100ms x 2  deadline 699ms }
  policy short { attempts 3   backoff fixed 100ms           deadline 2s }
  service app { retry d700 }
  endpoint server {
    route down     GET /down     { 503 }
    route pushback GET /pushback { 503 retry_after 5s }
  }
  source ui {
    enters app
    sequential {
      op "deadline 700ms"                GET /down
      op "deadline 699ms"                GET /down policy d699
      op "Retry-After past the deadline" GET /pushback policy short
    }
  }
  report { operations "ops" of ui }
}"#,
    );
    let ops = ran.ops();
    assert_eq!(
        summary(&ops),
        [
            // Tries at +0, +100, +300, +700; the next would start at +1500.
            op("deadline 700ms", 4, "http 503", &[100, 200, 400]),
            // The try at +700 would start past 699 ms.
            op("deadline 699ms", 3, "http 503", &[100, 200]),
            // The server asks for 5 s, past the 2 s deadline: no retry.
            op("Retry-After past the deadline", 1, "http 503", &[]),
        ]
    );
    let times: Vec<(u64, u64)> = ops.iter().map(|o| (o.start, o.end)).collect();
    assert_eq!(times, [(0, 700), (700, 1000), (1000, 1000)]);
}

/// A jittered policy draws its wait before checking the deadline; a retry
/// the deadline refuses has still used its draw.
#[test]
fn a_retry_refused_by_the_deadline_spends_its_draw() {
    let ran = run(
        "deadline draw",
        r#"scenario "deadline draw" {
  clock ms
  run 0ms..60s
  rng doc { mulberry32 seed 20260114 }
  backoff j = full_jitter 200ms x 2 cap 5s rng doc
  chain app -> server
  policy impatient { attempts 3  backoff j  deadline 0ms }
  service app { retry { attempts 3  backoff j } }
  endpoint server {
    route down  GET /down  { 503 }
    route flaky GET /flaky { 503 x 1 then 200 }
  }
  source ui {
    enters app
    sequential {
      op "impatient" GET /down policy impatient
      op "patient"   GET /flaky
    }
  }
  report { operations "ops" of ui }
}"#,
    );
    let mut g = JsMulberry32::new(20_260_114);
    let refused = Loop::new(&mut g, DOC_JITTER).wait(1);
    assert_eq!(refused, 70, "a wait above the 0 ms deadline");
    let second = Loop::new(&mut g, DOC_JITTER).wait(1);
    assert_eq!(
        summary(&ran.ops()),
        [
            op("impatient", 1, "http 503", &[]),
            op("patient", 2, "success", &[second]),
        ]
    );
}

#[test]
fn retry_after_as_an_http_date() {
    let ran = run(
        "dates",
        r#"scenario "dates" {
  clock ms
  run 0ms..60s
  epoch "Wed, 14 Jan 2026 09:00:00 GMT"
  chain app -> server
  service app { retry { attempts 3  backoff fixed 100ms } }
  endpoint server {
    route a GET /a { 503 retry_after "Wed, 14 Jan 2026 09:00:05 GMT" x 1 then 200 }
    route b GET /b { 503 retry_after "2026-01-14T09:00:07.250Z" x 1 then 200 }
    route c GET /c { 503 retry_after "Wed, 14 Jan 2026 09:00:01 GMT" x 1 then 200 }
  }
  source ui {
    enters app
    sequential {
      op "until 09:00:05"     GET /a
      op "until 09:00:07.250" GET /b
      op "a date now past"    GET /c
    }
  }
  report { operations "ops" of ui }
}"#,
    );
    let ops = ran.ops();
    assert_eq!(
        summary(&ops),
        [
            // Tick 0 is 09:00:00; the date is 5000 ms later.
            op("until 09:00:05", 2, "success", &[5000]),
            // Asked at 5000 ms for 7250 ms.
            op("until 09:00:07.250", 2, "success", &[2250]),
            // Asked at 7250 ms for 1000 ms: already past, the backoff rules.
            op("a date now past", 2, "success", &[100]),
        ]
    );
    let times: Vec<(u64, u64)> = ops.iter().map(|o| (o.start, o.end)).collect();
    assert_eq!(times, [(0, 5000), (5000, 7250), (7250, 7350)]);

    // With `clock s` the date is a whole number of seconds after the epoch.
    let ran = run(
        "dates in seconds",
        r#"scenario "dates in seconds" {
  clock s
  run 0s..60s
  epoch "2026-01-14T09:00:00Z"
  chain app -> server
  service app { retry { attempts 3  backoff fixed 1s } }
  endpoint server { default { 503 retry_after "Wed, 14 Jan 2026 09:00:05 GMT" x 1 then 200 } }
  source ui { enters app  sequential { op "one" GET /x } }
  report { operations "ops" of ui }
}"#,
    );
    assert_eq!(summary(&ran.ops()), [op("one", 2, "success", &[5])]);
}

/// User-facing and background profiles as named policies; an operation
/// picks one, and may change its tries.
#[test]
fn named_policies_for_user_facing_and_background_work() {
    let ran = run(
        "profiles",
        r#"scenario "profiles" {
  clock ms
  run 0ms..60s
  chain app -> server
  policy user_facing { attempts 2  backoff fixed 100ms  deadline 1s }
  policy background  { attempts 6  backoff exponential 100ms x 2 cap 1s }
  service app { retry user_facing }
  endpoint server { route down GET /down { 503 } }
  source ui {
    enters app
    sequential {
      op "button"            GET /down
      op "refresh"           GET /down policy background
      op "refresh, 3 tries"  GET /down policy background attempts 3
      op "button, 4 tries"   GET /down attempts 4
    }
  }
  report { operations "ops" of ui }
}"#,
    );
    assert_eq!(
        summary(&ran.ops()),
        [
            op("button", 2, "http 503", &[100]),
            // 100 * 2^(n-1), capped at 1000.
            op("refresh", 6, "http 503", &[100, 200, 400, 800, 1000]),
            op("refresh, 3 tries", 3, "http 503", &[100, 200]),
            // The service's policy with 4 tries; its deadline (1 s) is far.
            op("button, 4 tries", 4, "http 503", &[100, 100, 100]),
        ]
    );
}

/// Two layers of three tries: the bottom sees 3 x 3 calls for one request,
/// and the inner layer's tries finish before the outer one waits.
#[test]
fn nested_layers_multiply() {
    let ran = run(
        "nested",
        r#"scenario "nested" {
  clock ms
  run 0ms..10s
  chain edge -> api -> db
  service edge { retry { attempts 3  backoff fixed 100ms } }
  service api  { retry { attempts 3  backoff fixed 10ms } }
  endpoint db { default { 503 } }
  source ui { enters edge  sequential { op "one request" GET /x } }
  window all 0ms..10s
  report {
    operations "ops" of ui
    line "db {all.db.calls:.0}, api {all.api.calls:.0}, bound {call_bound(db):.0}"
  }
}"#,
    );
    let ops = ran.ops();
    assert_eq!(
        summary(&ops),
        [op("one request", 3, "http 503", &[100, 100])]
    );
    // api tries at 0, 10, 20; edge waits 100: 120, 130, 140; then 240, 250,
    // 260.
    assert_eq!((ops[0].start, ops[0].end), (0, 260));
    assert!(ran.has_line("db 9, api 3, bound 9"));
}

/// A `fault ... fail` window answers for the node; retries outlast it.
#[test]
fn a_failing_fault_window_is_retried_through() {
    let ran = run(
        "fault",
        r#"scenario "fault" {
  clock ms
  run 0ms..10s
  chain app -> server
  service app { retry { attempts 3  backoff fixed 60ms } }
  endpoint server { default { 200 } }
  fault down { on server  during 0ms..99ms  fail 503 }
  source ui {
    enters app
    sequential {
      op "through the fault" GET /x
      op "after it"          GET /x
    }
  }
  report { operations "ops" of ui }
}"#,
    );
    let ops = ran.ops();
    // Tries at 0 and 60 fall in the fault; the one at 120 does not.
    assert_eq!(
        summary(&ops),
        [
            op("through the fault", 3, "success", &[60, 60]),
            op("after it", 1, "success", &[])
        ]
    );
    assert_eq!(ops[1].start, 120);
}

/// A refusal for capacity is retryable, like a 503.
#[test]
fn refusals_are_retried() {
    let ran = run(
        "refused",
        r#"scenario "refused" {
  clock ms
  run 0ms..1s
  chain app -> server
  service app { retry { attempts 2  backoff fixed 5ms } }
  service server { capacity 1/ms }
  source burst { enters app  at [0ms, 0ms, 0ms]  request GET /x }
  window all 0ms..1s
  report { line "calls {all.server.calls:.0}, refused {all.server.refused:.0}, completed {all.completed:.0}, dropped {all.dropped:.0}" }
}"#,
    );
    // At 0: one served, two refused; at 5 both retry, one is served and the
    // other, refused again, has used its 2 tries.
    assert!(
        ran.has_line("calls 5, refused 3, completed 2, dropped 1"),
        "{:?}",
        ran.lines()
    );
}

/// The document's loop with other parameters: another seed changes only
/// the jittered waits of the first call (the 429's Retry-After of 2 s is
/// larger than any draw); ignoring Retry-After shows the draws themselves.
#[test]
fn document_loop_with_another_seed_and_retry_after_ignored() {
    let text = read("scenarios/retry-loop.squall");
    assert!(text.contains("seed 20260114") && text.contains("retry_after honor"));

    let other = text.replace("seed 20260114", "seed 1");
    let ran = run("seed 1", &other);
    let mut g = JsMulberry32::new(1);
    let mut l = Loop::new(&mut g, DOC_JITTER);
    let first = [l.wait(1), l.wait(2)];
    let mut l = Loop::new(&mut g, DOC_JITTER);
    let third = [l.wait(1).max(2000), l.wait(2).max(2000)];
    assert_eq!(third, [2000, 2000]);
    assert_eq!(
        summary(&ran.ops()),
        [
            op("503 then success", 3, "success", &first),
            op("422 (not retried)", 1, "http 422", &[]),
            op("429 (Retry-After: 2)", 3, "http 429", &third),
            op("404 (not retried)", 1, "http 404", &[]),
        ]
    );

    let deaf = text.replace("retry_after honor", "retry_after ignore");
    let ran = run("ignore", &deaf);
    let mut g = JsMulberry32::new(20_260_114);
    let mut l = Loop::new(&mut g, DOC_JITTER);
    let first = [l.wait(1), l.wait(2)];
    let mut l = Loop::new(&mut g, DOC_JITTER);
    let third = [l.wait(1), l.wait(2)];
    assert_eq!(first, [70, 184]);
    assert_eq!(
        summary(&ran.ops()),
        [
            op("503 then success", 3, "success", &first),
            op("422 (not retried)", 1, "http 422", &[]),
            op("429 (Retry-After: 2)", 3, "http 429", &third),
            op("404 (not retried)", 1, "http 404", &[]),
        ]
    );
}

/// Decorrelated and equal jitter in real loops: a decorrelated loop starts
/// again from `base` at each operation, and its `prev` is its own previous
/// wait, before a Retry-After raised it.
#[test]
fn decorrelated_and_equal_jitter_in_retry_loops() {
    let ran = run(
        "jitter loops",
        r#"scenario "jitter loops" {
  clock ms
  run 0ms..60s
  rng doc { mulberry32 seed 20260114 }
  backoff decor = decorrelated 100ms cap 1s rng doc
  backoff half  = equal_jitter 100ms x 2 cap 1s rng doc
  policy halves { attempts 4  backoff half }
  chain app -> server
  service app { retry { attempts 3  backoff decor } }
  endpoint server {
    route pushed GET /pushed { 503 retry_after 700ms x 1 then 503 }
    route down   GET /down   { 503 }
  }
  source ui {
    enters app
    sequential {
      op "decorrelated, pushed back" GET /pushed
      op "decorrelated again"        GET /down
      op "equal jitter"              GET /down policy halves
    }
  }
  report { operations "ops" of ui }
}"#,
    );
    let decor = Policy::Decorrelated {
        base: 100,
        cap: Some(1000),
    };
    let half = Policy::Equal {
        base: 100,
        m: 2.0,
        cap: Some(1000),
    };
    let mut g = JsMulberry32::new(20_260_114);
    let mut l = Loop::new(&mut g, decor);
    let (d1, d2) = (l.wait(1), l.wait(2));
    let pushed = [d1.max(700), d2];
    // 100 + 0.3504 * 200 = 170 drawn, raised to 700 by the server; the
    // next draw builds on 170.
    assert_eq!(d1, 170);
    assert!(
        d2 < 700,
        "{d2}: built on the drawn 170 ms, not the 700 ms waited"
    );
    let mut l = Loop::new(&mut g, decor);
    let again = [l.wait(1), l.wait(2)];
    let mut l = Loop::new(&mut g, half);
    let equal = [l.wait(1), l.wait(2), l.wait(3)];
    assert!(equal[0] >= 50 && equal[1] >= 100 && equal[2] >= 200);
    assert_eq!(
        summary(&ran.ops()),
        [
            op("decorrelated, pushed back", 3, "http 503", &pushed),
            op("decorrelated again", 3, "http 503", &again),
            op("equal jitter", 4, "http 503", &equal),
        ]
    );
}

/// Two retrying layers share one generator: draws follow event order. The
/// inner layer fails first and draws first; its second failure goes up and
/// the outer layer draws; the outer retry starts the inner loop afresh.
#[test]
fn nested_layers_draw_in_event_order() {
    let ran = run(
        "nested draws",
        r#"scenario "nested draws" {
  clock ms
  run 0ms..60s
  rng doc { mulberry32 seed 5 }
  backoff j = full_jitter 100ms x 2 cap 5s rng doc
  chain edge -> api -> db
  service edge, api { retry { attempts 2  backoff j } }
  endpoint db { default { 503 } }
  source ui { enters edge  sequential { op "one" GET /x } }
  window all 0ms..60s
  report {
    operations "ops" of ui
    line "db {all.db.calls:.0}"
  }
}"#,
    );
    let j = Policy::Full {
        base: 100,
        m: 2.0,
        cap: Some(5000),
    };
    let mut g = JsMulberry32::new(5);
    let a1 = Loop::new(&mut g, j).wait(1); // api, after db's first 503
    let e1 = Loop::new(&mut g, j).wait(1); // edge, after api used its 2 tries
    let a2 = Loop::new(&mut g, j).wait(1); // api again, a fresh loop
    let ops = ran.ops();
    assert_eq!(summary(&ops), [op("one", 2, "http 503", &[e1])]);
    assert_eq!(ops[0].end, a1 + e1 + a2);
    assert!(ran.has_line("db 4"));
}

/// Each variant is its own run with its own fresh generators; operations
/// that have not ended when the run does are counted, not lost.
#[test]
fn variants_run_their_own_loops() {
    let ran = run(
        "variants",
        r#"scenario "variants" {
  clock ms
  run 0ms..3s
  param tries = 4
  rng doc { mulberry32 seed 20260114 }
  chain app -> server
  service app { retry { attempts $tries  backoff full_jitter 200ms x 2 cap 5s rng doc } }
  endpoint server {
    route flaky GET /flaky { 503 x 2 then 200 }
    route late  GET /late  { 503 retry_after 5s }
  }
  source ui {
    enters app
    sequential {
      op "flaky" GET /flaky
      op "late"  GET /late
      op "never" GET /flaky
    }
  }
  variant many "four tries" { set tries = 4 }
  variant few  "two tries"  { set tries = 2 }
  report { operations "ops" of ui }
}"#,
    );
    // Both runs draw 70 first; with 4 tries the third try meets the 200,
    // with 2 the second 503 ends it. The 5 s Retry-After of "late" falls
    // after the run's end at 3 s, so "late" is in flight and "never" never
    // starts.
    let rows = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        ran.table("ops: four tries"),
        [rows(&["flaky", "3", "success", "70, 184"])]
    );
    assert_eq!(
        ran.table("ops: two tries"),
        [rows(&["flaky", "2", "http 503", "70"])]
    );
    assert_eq!(
        ran.lines()
            .iter()
            .filter(|l| l.ends_with("2 of 3 operations had not finished when the run ended"))
            .count(),
        2
    );
    let accounting: Vec<_> = ran
        .runs
        .iter()
        .map(|r| {
            let a = r.obs.accounting;
            (a.entered, a.completed, a.dropped, a.in_flight)
        })
        .collect();
    assert_eq!(accounting, [(2, 1, 0, 1), (2, 0, 1, 1)]);
}

/// A script's steps follow one another: `x N` counts the calls of its own
/// step, so a count after an `until` starts when the `until` ends.
#[test]
fn a_count_after_an_until_counts_from_its_own_start() {
    let ran = run(
        "steps",
        r#"scenario "steps" {
  clock ms
  run 0ms..20s
  chain app -> api
  endpoint api { default { 503 until 5s then 429 x 2 then 200 } }
  source s { enters app  at [0ms, 1s, 6s, 7s, 8s, 9s] }
}"#,
    );
    let api = &ran.obs().nodes[1];
    let at = |t: usize| (api.ok[t], api.failed[t]);
    // 503 before 5 s, then two 429s, then success.
    assert_eq!([at(0), at(1000)], [(0, 1), (0, 1)]);
    assert_eq!([at(6000), at(7000)], [(0, 1), (0, 1)]);
    assert_eq!([at(8000), at(9000)], [(1, 0), (1, 0)]);
}
