//! Client-side adaptive throttling (the SRE book's rule,
//! `policy/throttle.rs`): a try is rejected locally with probability
//! `max(0, (requests - K * accepts) / (requests + 1))` over a trailing
//! window. Each expected value below is derived by hand or from a closed
//! form; the tolerance of a random count is a few standard deviations of
//! that count, worked out beside it.

use squall_engine::outcome::FailKind;
use squall_engine::policy::retry::{classify, Class};
use squall_engine::{Observations, Simulation};
use squall_lang::{RequestSpec, RunKey};

/// Runs `text`'s run `key` on the path it takes as written, or forced
/// through the timed path; every request is accounted for.
fn run(text: &str, key: RunKey, timed: bool) -> Observations {
    let s = squall_lang::load("test.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let m = s.model_for(key, &[]).unwrap();
    let b = Simulation::builder(&m);
    let b = if timed { b.force_timed() } else { b };
    let obs = b
        .build()
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(obs.accounting.balances(), "{:?}", obs.accounting);
    assert_eq!(obs.timed.is_some(), timed, "the path");
    obs
}

fn sum(v: &[u32]) -> u64 {
    v.iter().map(|&x| u64::from(x)).sum()
}

/// A dependency that fails every try: the throttle never counts an
/// accept, so after `n` tries asked (sent or rejected) its probability is
/// `n / (n + 1)`, and the `n + 1`-th try goes with probability `1 / (n + 1)`.
/// Of `N` tries asked, `H_N = 1 + 1/2 + ... + 1/N` are sent on average,
/// with variance `sum (1/n)(1 - 1/n) = H_N - sum 1/n^2`.
///
/// 1 000 clients picked in turn, 100 requests each (1 000 a ms for 100 ms,
/// a window of 1 s that never rolls): each client's own throttle sends
/// `H_100 = 5.18738` of its 100 on average, the 1 000 together 5 187.4
/// with a standard deviation of `sqrt(1000 x (5.18738 - 1.63498)) = 59.6`;
/// the check allows 4 of them (± 240). One throttle shared by the node
/// would send `H_100000 = 12.09` in all.
///
/// Both paths: each client's requests come in the same order on both, and
/// each try is answered in the moment it is sent (nothing takes time), so
/// each client's throttle sees the same counts and draws the same numbers
/// from its own stream: the counts are equal, not only close.
#[test]
fn per_client_throttles_send_the_harmonic_number_on_both_paths() {
    let text = |clients: &str| {
        format!(
            r#"scenario "dead dependency" {{
  clock ms
  run 100ms
  source users {{ rate 1000/ms {clients} enters app }}
  chain app -> db
  service app {{ throttle sre {{ window 1s }} }}
  endpoint db {{ default {{ 503 }} }}
}}
"#
        )
    };
    let per_client = text("clients 1000");
    let plain = run(&per_client, RunKey::Variant(0), false);
    let timed = run(&per_client, RunKey::Variant(0), true);
    let h100: f64 = (1..=100).map(|n| 1.0 / f64::from(n)).sum();
    let expected = 1000.0 * h100;
    for obs in [&plain, &timed] {
        assert_eq!(obs.accounting.entered, 100_000);
        let sent = sum(&obs.nodes[1].calls);
        let rejected = sum(&obs.nodes[0].rejected_locally);
        assert_eq!(sent + rejected, 100_000, "every try sent or rejected");
        assert!(
            (sent as f64 - expected).abs() <= 240.0,
            "sent {sent}, expected {expected:.1} +- 240"
        );
        assert_eq!(obs.accounting.dropped, 100_000);
    }
    assert_eq!(
        sum(&plain.nodes[1].calls),
        sum(&timed.nodes[1].calls),
        "the same draws on both paths"
    );
    // One throttle for the node: H_100000 = 12.09 sent on average, with
    // a standard deviation of sqrt(12.09 - 1.64) = 3.2; at most 30 is over
    // 5 of them above the mean.
    let shared = run(&text(""), RunKey::Variant(0), false);
    let sent = sum(&shared.nodes[1].calls);
    assert!((1..=30).contains(&sent), "a shared throttle sent {sent}");
}

/// The SRE book's steady state: a dependency that accepts what its
/// capacity allows, `C = 10` a round, and a client asking `r = 50` tries
/// a round. Once `requests > K x accepts` the client sends about `K`
/// tries per accepted one: with `R = r W` and `A = C W` in a window of
/// `W` rounds, `p = (R - K A) / (R + 1)` and the client sends
/// `s = r (1 - p) = r (1 + K C W) / (r W + 1)` a round; for `W` between
/// 91 and 100 rounds (ten buckets of 10 rounds, the current one filling)
/// that is 20.006 to 20.005 at K = 2, so calls per accepted call are
/// 2.0006 (1.5006 at K = 1.5). The rule reads the accepts as they come,
/// so the ratio holds also in the few rounds where fewer than C are sent.
///
/// Tolerance: over the 1 000 rounds measured (after 1 000 of warm-up, the
/// window long full of overload) the client asks 50 000 tries and rejects
/// about 30 000 of them; the count of rejections varies by about
/// `sqrt(50000 x 0.6 x 0.4) = 110`, 0.55 % of the 20 000 sent, so the
/// ratio is checked to 2 % (about 4 of them).
#[test]
fn a_throttled_client_sends_k_times_what_its_dependency_accepts() {
    let text = |k: &str| {
        format!(
            r#"scenario "steady" {{
  clock round
  run 2000 rounds
  source users {{ rate 50/round  enters client }}
  chain client -> db
  service client {{ throttle sre {{ k {k}  window 100 rounds }} }}
  service db {{ capacity 10/round }}
}}
"#
        )
    };
    for (k, want) in [("2", 2.0006), ("1.5", 1.5006)] {
        let t = text(k);
        let mut seen = Vec::new();
        for timed in [false, true] {
            let obs = run(&t, RunKey::Variant(0), timed);
            let calls = sum(&obs.nodes[1].calls[1001..=2000]);
            let ok = sum(&obs.nodes[1].ok[1001..=2000]);
            // Nearly saturated: at K = 2 a round sends fewer than 10 of
            // its 50 with probability 0.2 %, at K = 1.5 (15 sent on
            // average) about 6 %, a try or two short each time.
            assert!(ok >= 9_800, "K {k}: {ok} accepted");
            let ratio = calls as f64 / ok as f64;
            assert!(
                (ratio - want).abs() <= 0.02 * want,
                "K {k} (timed {timed}): calls per accepted call {ratio:.4}, expected {want}"
            );
            seen.push((calls, ok));
        }
        // Both paths: each round's 50 requests come in the same order and
        // each try is answered in its round, against the same per-round
        // capacity, drawing from the node's one stream in the same order.
        assert_eq!(seen[0], seen[1], "K {k}: the same counts on both paths");
    }
}

/// A try the throttle rejects ends the request, as an open breaker's
/// does: the SRE book's rejection is the answer the application gets, and
/// a retry of it would be one more request through the same throttle.
#[test]
fn a_rejected_try_is_not_retried() {
    let any = RequestSpec::default();
    assert_eq!(classify(FailKind::Throttled, &any), Class::Terminal);
    // With 3 tries against a dead dependency every request's tries stop
    // at its first rejection: every try sent fails and is retried while
    // tries are left, so the retries are the sent tries that were not a
    // request's third, and each request makes at most 3 sent tries.
    let obs = run(
        r#"scenario "retries" {
  clock ms
  run 100ms
  source users { rate 10/ms  enters app }
  chain app -> db
  service app { retry { attempts 3  backoff fixed 0ms }  throttle sre { window 1s } }
  endpoint db { default { 503 } }
}
"#,
        RunKey::Variant(0),
        false,
    );
    let sent = sum(&obs.nodes[1].calls);
    let rejected = sum(&obs.nodes[0].rejected_locally);
    let retries = sum(&obs.nodes[0].retries);
    // Each request ends with its third sent try or with a rejection:
    // ended = requests; sent tries - retries = tries that were a request's
    // last sent one and not retried = requests that sent 3 tries.
    let third = sent - retries;
    assert_eq!(third + rejected, obs.accounting.entered);
    assert!(sent <= 3 * obs.accounting.entered);
}
