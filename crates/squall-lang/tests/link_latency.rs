//! A link's steady latency (`link api -> db { latency ...  answer latency
//! ... }`) and the jitter of an added latency (`latency + D jitter J`,
//! `answer latency + D jitter J`): what they resolve to, `squall fmt`
//! keeping them, and their located errors (each refusal also has a
//! snapshot under `inputs/err/link-*`).

use squall_lang::{LatencySpec, LinkSpec, RunKey};

use crate::common::one_error;

const FILE: &str = r#"scenario "link latency" {
  clock ms
  run 1s
  source users { rate 10/s  arrivals poisson  enters edge }
  chain edge -> api -> db
  service edge, api { timeout 50ms }
  service db { latency 5ms }
  link api -> db { latency 2ms  answer latency lognormal p50 1ms p99 4ms }
  link edge -> api { answer latency exponential mean 3ms }
  fault slow { on api -> db  during 100ms..200ms  latency + 20ms jitter 5ms  answer latency + 4ms jitter 1ms }
  fault busy { on db  during 100ms..200ms  latency + 10ms jitter 10ms }
}
"#;

fn model(text: &str) -> squall_lang::Model {
    let s = squall_lang::load("test.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    s.model_for(RunKey::Variant(0), &[]).unwrap()
}

/// Each link in declaration order, its ends as node ids, each leg's
/// distribution in ticks of `clock ms`; a jitter beside its addition.
#[test]
fn links_and_jitter_resolve() {
    let m = model(FILE);
    assert_eq!(
        m.links,
        [
            LinkSpec {
                caller: 1,
                callee: 2,
                latency: Some(LatencySpec::Constant(2.0)),
                answer: Some(LatencySpec::LogNormal { p50: 1.0, p99: 4.0 }),
            },
            LinkSpec {
                caller: 0,
                callee: 1,
                latency: None,
                answer: Some(LatencySpec::Exponential { mean: 3.0 }),
            },
        ]
    );
    let slow = &m.faults[0].timed;
    assert_eq!(
        (slow.latency_add, slow.latency_jitter),
        (Some(20.0), Some(5.0))
    );
    assert_eq!(
        (slow.answer_add, slow.answer_jitter),
        (Some(4.0), Some(1.0))
    );
    let busy = &m.faults[1].timed;
    assert_eq!(
        (busy.latency_add, busy.latency_jitter),
        (Some(10.0), Some(10.0))
    );
    // A link changes nothing of a model without one: no `links` in JSON.
    let plain = model(
        &FILE
            .replace("  link api -> db", "  # link api -> db")
            .replace("  link edge -> api", "  # link edge -> api"),
    );
    assert!(plain.links.is_empty());
    let json = serde_json::to_string(&plain).unwrap();
    assert!(!json.contains("\"links\""), "{json}");
}

/// `squall fmt` writes links and jitter back, and the formatted text
/// resolves to the same model.
#[test]
fn fmt_keeps_links_and_jitter() {
    let pretty = squall_lang::format::format_source(FILE).expect("formats");
    for needle in [
        "link api -> db { latency 2ms  answer latency lognormal p50 1ms p99 4ms }",
        "link edge -> api { answer latency exponential mean 3ms }",
        "latency + 20ms jitter 5ms",
        "answer latency + 4ms jitter 1ms",
    ] {
        assert!(pretty.contains(needle), "{needle}: {pretty}");
    }
    assert_eq!(model(&pretty), model(FILE));
    assert_eq!(
        squall_lang::format::format_source(&pretty).expect("formats"),
        pretty
    );
}

/// Each refusal, located where it is written.
#[test]
fn refusals_are_located() {
    let bad = FILE.replace("link api -> db {", "link api -> dbb {");
    one_error(&bad, "dbb {", "unknown node `dbb`");
    let bad = FILE.replace("link api -> db {", "link db -> api {");
    one_error(&bad, "db -> api {", "`db` does not call `api`");
    let bad = FILE.replace(
        "link edge -> api {",
        "link api -> db { latency 1ms }\n  link edge -> api {",
    );
    one_error(
        &bad,
        "api -> db { latency 1ms",
        "link `api -> db` is declared twice",
    );
    let bad = FILE.replace(
        "link api -> db { latency 2ms ",
        "link api -> db { latency 2ms  latency 3ms ",
    );
    one_error(
        &bad,
        "latency 3ms",
        "link `api -> db` gives `latency` twice",
    );
    let bad = FILE.replace(
        "link edge -> api { answer latency exponential mean 3ms }",
        "link edge -> api { }",
    );
    one_error(
        &bad,
        "edge -> api { }",
        "link `edge -> api` gives no latency",
    );
    let bad = FILE.replace("latency + 10ms jitter 10ms", "latency x 2 jitter 10ms");
    one_error(
        &bad,
        "10ms }",
        "`jitter` spreads an added latency, not a factor",
    );
    // A round model: no call takes time.
    let round = r#"scenario "round" {
  clock round
  run 100 rounds
  source users { rate 4/round  enters api }
  chain api -> db
  service db { capacity 12/round }
  link api -> db { latency 2 }
}
"#;
    one_error(
        round,
        "api -> db {",
        "link `api -> db` has a latency, and no call in this run takes time",
    );
}

/// A variant changes a link through the `$param`s it reads.
#[test]
fn a_variant_changes_a_link_through_its_params() {
    let text = FILE
        .replace("  clock ms\n", "  clock ms\n  param wire = 2ms\n")
        .replace("link api -> db { latency 2ms ", "link api -> db { latency $wire ")
        .replace(
            "jitter 10ms }\n}",
            "jitter 10ms }\n  variant base \"as declared\" { }\n  variant far \"a slower wire\" { set wire = 5ms }\n}",
        );
    let s = squall_lang::load("test.squall", &text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let wire = |v: usize| {
        s.model_for(RunKey::Variant(v), &[]).unwrap().links[0]
            .latency
            .clone()
    };
    assert_eq!(wire(0), Some(LatencySpec::Constant(2.0)));
    assert_eq!(wire(1), Some(LatencySpec::Constant(5.0)));
}
