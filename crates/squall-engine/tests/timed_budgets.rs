//! Retry budgets on a run that takes time, with counts derived by hand.
//!
//! Ten requests reach `app` at 1 ms (the run's first tick); `db` answers
//! 503 to every call after 100 ms of service (plenty of workers), so ten
//! tries fail together at 101 ms, in the order they were sent. `app` retries after a fixed 50 ms,
//! 3 tries in all, under an Envoy budget: a retry starts iff open retries
//! < max(floor(pct x tries in flight), min_retry_concurrency).

use squall_engine::Simulation;
use squall_lang::Overrides;

fn run(budget: &str) -> (Vec<u32>, u64) {
    let text = format!(
        r#"scenario "envoy" {{
  clock ms
  series every 1ms
  run 1s
  source users {{ at [1ms, 1ms, 1ms, 1ms, 1ms, 1ms, 1ms, 1ms, 1ms, 1ms]  enters app }}
  chain app -> db
  service app {{ retry {{ attempts 3  backoff fixed 50ms }}  {budget} }}
  service db {{ latency 100ms  workers 100 }}
  endpoint db {{ default {{ 503 }} }}
}}"#
    );
    let model = squall_lang::load("envoy.squall", &text)
        .and_then(|s| s.model(&Overrides::default()))
        .unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let obs = Simulation::builder(&model)
        .build()
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(obs.accounting.balances(), "{:?}", obs.accounting);
    let calls: Vec<u32> = [1usize, 151, 301]
        .iter()
        .map(|&t| obs.nodes[1].calls[t])
        .collect();
    let refused = obs.nodes[0]
        .retries_refused
        .iter()
        .map(|&n| u64::from(n))
        .sum();
    (calls, refused)
}

#[test]
fn envoy_budget_reads_the_tries_in_flight() {
    // min_retry_concurrency 1, 20 %. At 100 ms the first failure sees 9
    // tries still in flight: floor(1.8) = 1 > 0 open retries, granted. The
    // second sees 8 in flight (floor 1.6 = 1) and 1 open retry: refused;
    // so are the other eight (floor(0.2 x 7..0) <= 1). One retry at 151 ms;
    // it fails at 251 ms, closing its open retry: 0 open < max(0, 1), so the
    // third try goes at 301 ms. Calls at db (at 1, 151 and 301 ms): 10, 1, 1; refused: 9.
    let (calls, refused) = run("budget envoy { budget_percent 20  min_retry_concurrency 1 }");
    assert_eq!(calls, [10, 1, 1]);
    assert_eq!(refused, 9);
}

#[test]
fn envoy_budget_floor_of_three() {
    // Envoy's defaults (20 %, 3): at 101 ms the first three failures see
    // 9, 8, 7 in flight (shares 1) and 0, 1, 2 open retries, all < 3:
    // granted; the fourth finds 3 open: refused, as are the rest (7 in
    // all). At 250 ms each of the three retries fails, closes its own
    // open retry (3 -> 2) and is granted again (2 < 3): 3 calls at 301 ms.
    let (calls, refused) = run("budget envoy");
    assert_eq!(calls, [10, 3, 3]);
    assert_eq!(refused, 7);
}

#[test]
fn grpc_bucket_on_a_run_that_takes_time() {
    // gRPC (10, 0.1) from full, no success ever: the failures at 101 ms
    // take tokens 9, 8, 7, 6 (retries) then 5, 4, ... (refused: not above
    // 5): 4 retries, 6 refused. At 250 ms the 4 retries fail, tokens
    // already 0: 4 refused. Calls: 10, 4, 0; refused 10.
    let (calls, refused) = run("budget grpc { max_tokens 10  token_ratio 0.1 }");
    assert_eq!(calls, [10, 4, 0]);
    assert_eq!(refused, 10);
}
