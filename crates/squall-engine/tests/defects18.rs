//! Defects of issue 18 where the zero-time path and the path that takes
//! time kept two copies of one policy, as hand-worked tests that fail on
//! 5ae4b19 (the commit the issue was filed against).

use squall_engine::Observations;

mod common;
use common::run_text;

fn sum(v: &[u32]) -> u32 {
    v.iter().sum()
}

/// resilience4j's slow-call rule trips when calls take time.
///
/// `api -> db`, db answering every call after 45 ms; 30 requests at
/// 1, 11, .., 291 ms; api's breaker is resilience4j over the last 20 calls,
/// at least 10, opening at 50 % slow calls (slow: longer than 10 ms) for
/// 60 s. resilience4j's rule (POLICIES.md): a call is slow iff its
/// duration is *more* than the threshold, and the breaker opens after a
/// recorded call once `total >= minimum_calls` and the slow rate is at
/// least its threshold. Every call is slow (45 ms > 10 ms), so the 10th
/// answer opens it: the call sent at 1 + 9 x 10 = 91 ms answers at
/// 91 + 45 = 136 ms. By then the calls sent at 1, 11, .., 131 ms (14) have
/// reached db; from 141 ms on, every try is refused by the open breaker
/// (60 s is past the end of the run). No tie: sends fall on 1 (mod 10)
/// ms, the opening at 6 (mod 10) ms.
///
/// On 5ae4b19 the breaker was told a duration of 0 and all 30 reached db.
#[test]
fn resilience4j_slow_calls_open_the_breaker_when_calls_take_time() {
    let obs: Observations = run_text(
        r#"scenario "slow calls" {
  clock ms
  run 1s
  source one { enters api  at [1ms, 11ms, 21ms, 31ms, 41ms, 51ms, 61ms, 71ms, 81ms, 91ms, 101ms, 111ms, 121ms, 131ms, 141ms, 151ms, 161ms, 171ms, 181ms, 191ms, 201ms, 211ms, 221ms, 231ms, 241ms, 251ms, 261ms, 271ms, 281ms, 291ms] }
  chain api -> db
  service api {
    breaker resilience4j { window_calls 20  minimum_calls 10  failure_rate 100  slow_call_rate 50  slow_call_duration 10ms  wait_open 60s }
  }
  service db { latency 45ms }
}
"#,
    );
    assert_eq!(sum(&obs.nodes[1].calls), 14, "calls reaching db");
    assert_eq!(sum(&obs.nodes[1].ok), 14, "successes at db");
}

/// The per-client retry budget of `app` on the model of the issue: 100
/// clients at 1 request/ms (Poisson) for 10 s, app retrying once after
/// 1 ms under a token bucket of 5 tokens (no refill), db failing every
/// call with 503 for the whole run; `db` is the line that defines db.
/// Returns db's calls minus app's: the retries that reached db.
fn retries_with_client_budgets(db: &str) -> u32 {
    let text = format!(
        r#"scenario "client budgets" {{
  clock ms
  run 10s
  source users {{ rate 1/ms  arrivals poisson  clients 100  enters app }}
  chain app -> db
  service app {{ retry {{ attempts 2  backoff fixed 1ms }}  budget token_bucket {{ size 5 }} }}
  {db}
  fault down {{ on db  during 1ms..10s  errors 100% as 503 }}
}}
"#
    );
    let obs = common::run_text_any(&text);
    sum(&obs.nodes[1].calls) - sum(&obs.nodes[0].calls)
}

/// A budget is kept per client, whether calls take time or not.
///
/// Every request fails and asks for its one retry; each client's bucket
/// holds 5 tokens and never refills, and each of the 100 clients sends
/// about 100 requests in 10 s (far more than 5: the chance that one sends
/// 5 or fewer is below 1e-30), so exactly 100 x 5 = 500 retries are
/// granted, with or without latency at db. On 5ae4b19 the run that takes
/// time (db `latency 1ms`) spent the node's one bucket: 5 retries.
#[test]
fn per_client_budgets_are_per_client_when_calls_take_time() {
    assert_eq!(retries_with_client_budgets("service db { }"), 500);
    assert_eq!(
        retries_with_client_budgets("service db { latency 1ms }"),
        500
    );
}

/// Calls answered at `db` by the end of a run of `run` on a model where
/// five requests reach db (2 workers, room for 10 in the queue, 100 ms of
/// service per call) at 1 ms, and a fault holds db at 0 workers during
/// `during`.
fn db_answers_with_a_workers_fault(run: &str, during: &str) -> u32 {
    let obs = run_text(&format!(
        r#"scenario "workers fault" {{
  clock ms
  run {run}
  source five {{ enters db  at [1ms, 1ms, 1ms, 1ms, 1ms] }}
  chain db
  service db {{ latency 100ms  workers 2  queue 10 }}
  fault none {{ on db  during {during}  workers 0 }}
}}
"#
    ));
    sum(&obs.nodes[0].ok)
}

/// A `workers N` fault takes effect when it starts and when it ends, not
/// at the node's next arrival.
///
/// Hand-worked: at 1 ms two calls take db's two workers (they end at
/// 101 ms) and three wait. The fault holds db at 0 workers from 50 ms: the
/// two in service finish at 101 ms and hand their workers to nobody, the
/// three queued wait. The fault's last tick is 300 ms, so it ends at
/// 301 ms: db is back at 2 workers and two queued calls start (end at
/// 401 ms), the third starts when one of them ends (401 ms, ends at
/// 501 ms). So a run of 1 s with the fault for ever after 50 ms serves 2
/// calls; with the fault over at 301 ms, 4 by 450 ms and all 5 by 550 ms.
/// No answer falls near a run's end (50 ms away at least).
///
/// On e2f06d5 the fault was applied only when a call arrived, and nothing
/// arrives after 1 ms: the queue drained behind the two first calls
/// (ends at 101, 201, 201 and 301 ms), 5 calls in each run.
#[test]
fn a_workers_fault_takes_effect_at_its_start_and_end() {
    assert_eq!(db_answers_with_a_workers_fault("1s", "50ms..1s"), 2);
    assert_eq!(db_answers_with_a_workers_fault("450ms", "50ms..300ms"), 4);
    assert_eq!(db_answers_with_a_workers_fault("550ms", "50ms..300ms"), 5);
}
