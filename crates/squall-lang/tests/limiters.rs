//! `limiter KIND { ... }` on a service: each kind resolves to its library's
//! defaults (the table in `model/run/limiter.rs`), durations to ticks and
//! percents to shares; a variant replaces or removes it; `squall fmt`
//! keeps it. Its located errors are the `limiter-*` fixtures of
//! `snapshots`.

use squall_lang::{AimdSpec, EnvoySpec, Gradient2Spec, LimiterSpec, RunKey, VegasSpec};

const FILE: &str = r#"scenario "limiters" {
  clock ms
  run 1s
  param floor = 4
  source users { rate 10/s  enters api }
  chain api -> mid -> db
  service api { timeout 100ms  limiter aimd }
  service mid { limiter envoy { concurrency_update_interval 100ms  interval 60s } }
  service db { latency 5ms }
  variant base "as declared" { }
  variant tuned "tuned" {
    service api { limiter gradient2 { min_limit $floor  rtt_tolerance 2 } }
    service mid { limiter none }
  }
  variant vegas "vegas" { service api { limiter vegas } }
}
"#;

fn limiters(variant: &str) -> Vec<Option<LimiterSpec>> {
    let s = squall_lang::load("test.squall", FILE).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let v = s.variants.iter().position(|v| v.name == variant).unwrap();
    let m = s.model_for(RunKey::Variant(v), &[]).unwrap();
    m.nodes.iter().map(|n| n.limiter).collect()
}

#[test]
fn each_kind_takes_its_library_defaults() {
    let base = limiters("base");
    // AIMDLimit's builder: 20 within [20, 200], 0.9, 5 s (5000 ticks of ms).
    assert_eq!(
        base[0],
        Some(LimiterSpec::Aimd(AimdSpec {
            initial_limit: 20,
            min_limit: 20,
            max_limit: 200,
            backoff_ratio: 0.9,
            timeout: 5000,
        }))
    );
    // Envoy's proto: the two intervals as written, request_count 50,
    // jitter 15 %, min_concurrency 3, buffer 25 %, p50, max 1000.
    assert_eq!(
        base[1],
        Some(LimiterSpec::Envoy(EnvoySpec {
            update_interval: 100,
            min_rtt_interval: 60_000,
            request_count: 50,
            jitter: 0.15,
            min_concurrency: 3,
            buffer: 0.25,
            percentile: 0.5,
            max_limit: 1000,
        }))
    );
    assert_eq!(base[2], None);
    // Gradient2Limit's builder, min_limit from a param and a tolerance of
    // 2; the variant removed mid's limiter.
    let tuned = limiters("tuned");
    assert_eq!(
        tuned[0],
        Some(LimiterSpec::Gradient2(Gradient2Spec {
            initial_limit: 20,
            min_limit: 4,
            max_concurrency: 200,
            smoothing: 0.2,
            queue_size: 4,
            long_window: 600,
            rtt_tolerance: 2.0,
        }))
    );
    assert_eq!(tuned[1], None);
    // VegasLimit's builder: 20, at most 1000, smoothing 1, probes 30.
    assert_eq!(
        limiters("vegas")[0],
        Some(LimiterSpec::Vegas(VegasSpec {
            initial_limit: 20,
            max_concurrency: 1000,
            smoothing: 1.0,
            probe_multiplier: 30,
        }))
    );
}

/// `squall fmt` writes the blocks back, and the formatted file resolves to
/// the same limiters.
#[test]
fn fmt_keeps_the_limiters() {
    let pretty = squall_lang::format::format_source(FILE).expect("formats");
    assert!(pretty.contains("limiter aimd"), "{pretty}");
    assert!(pretty.contains("limiter none"), "{pretty}");
    assert!(
        pretty.contains("limiter gradient2 { min_limit $floor  rtt_tolerance 2 }"),
        "{pretty}"
    );
    let again = squall_lang::format::format_source(&pretty).expect("formats");
    assert_eq!(pretty, again, "fmt is a fixed point");
    let s = squall_lang::load("test.squall", &pretty).unwrap();
    let m = s.model_for(RunKey::Variant(1), &[]).unwrap();
    assert!(matches!(
        m.nodes[0].limiter,
        Some(LimiterSpec::Gradient2(Gradient2Spec { min_limit: 4, .. }))
    ));
}
