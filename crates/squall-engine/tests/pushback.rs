//! Pushback through a whole run, on both paths: the zero-time one (the
//! retry loop's state kept per request) and the timed one (per call).
//!
//! One request at 1 ms; `db` answers 503 with a Retry-After of 250 ms,
//! then 503 without one. `app` retries 3 times under `exponential 100ms x 2`.
//!
//! * `retry_after honor` (no pushback): retry 1 waits max(100, 250) = 250
//!   (at 251 ms), retry 2 the backoff's second wait, 200 (at 451 ms).
//! * `pushback grpc`: retry 1 waits exactly 250 (at 251 ms) and the backoff
//!   starts again: retry 2 is its first wait, 100 (at 351 ms).

use squall_engine::Simulation;
use squall_lang::Overrides;

/// The ticks at which `db` was called.
fn calls_at(retry: &str, db: &str) -> Vec<usize> {
    let text = format!(
        r#"scenario "pushback" {{
  clock ms
  series every 1ms
  run 2s
  source users {{ at [1ms]  enters app }}
  chain app -> db
  service app {{ {retry} }}
  {db}
  endpoint db {{ default {{ 503 retry_after 250ms x 1 then 503 }} }}
}}"#
    );
    let model = squall_lang::load("pushback.squall", &text)
        .and_then(|s| s.model(&Overrides::default()))
        .unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let obs = Simulation::builder(&model)
        .build()
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("{e}"));
    obs.nodes[1]
        .calls
        .iter()
        .enumerate()
        .flat_map(|(t, &n)| std::iter::repeat_n(t, n as usize))
        .collect()
}

#[test]
fn grpc_pushback_restarts_the_backoff_on_both_paths() {
    let honor = "retry { attempts 3  backoff exponential 100ms x 2 }";
    let grpc = "retry { attempts 3  backoff exponential 100ms x 2  pushback grpc }";
    // Zero time: no latency anywhere.
    assert_eq!(calls_at(honor, ""), [1, 251, 451]);
    assert_eq!(calls_at(grpc, ""), [1, 251, 351]);
    // Timed: db serves in 1 ms. Its answer is decided when the call
    // arrives, so the Retry-After points at 1 + 250 = 251 ms and the
    // answer, at 2 ms, asks for 249 ms more: the retry goes at 251 ms
    // either way. It answers at 252 ms; retry 2 waits 200 (honor: at
    // 452 ms) or, the backoff restarted, 100 (pushback: at 352 ms).
    let timed = "service db { latency 1ms }";
    assert_eq!(calls_at(honor, timed), [1, 251, 452]);
    assert_eq!(calls_at(grpc, timed), [1, 251, 352]);
}

#[test]
fn envoy_retry_after_on_a_run() {
    // Envoy's reading: a Retry-After of 250 ms at most max_interval gives a
    // wait in [250, 375): retry 1 between 251 and 375 ms. Retry 2 is the
    // backoff's first wait (Envoy leaves its count untouched): 100 ms later.
    let envoy = "retry { attempts 3  backoff exponential 100ms x 2  pushback retry_after }";
    let calls = calls_at(envoy, "");
    assert_eq!(calls.len(), 3);
    assert!((251..376).contains(&calls[1]), "{calls:?}");
    assert_eq!(calls[2], calls[1] + 100);
    // Over max_interval the header is ignored, not a lower bound: retry 1
    // is the backoff's 100 ms (at 101 ms), retry 2 its 200 (at 301 ms).
    let short =
        "retry { attempts 3  backoff exponential 100ms x 2  pushback retry_after { max_interval 200ms } }";
    assert_eq!(calls_at(short, ""), [1, 101, 301]);
}
