//! A variant's `service` change of timed settings: it replaces the
//! node's setting of the same keyword and leaves the others; what a
//! variant still cannot change is refused where it is written. (And the
//! text an `expect` line is reported with.)

use squall_lang::{LatencySpec, RunKey};

use crate::common::{load_text_err, positions};

const FILE: &str = r#"scenario "variant timed" {
  clock ms
  run 1s
  source users { rate 10/s  enters api }
  chain api -> db
  service api { timeout 250ms  retry { attempts 3  backoff fixed 0ms } }
  service db { latency 5ms  workers 4  queue 10 }
  variant base "as declared" { }
  variant slow "slow db, short timeout" {
    service db { latency lognormal p50 20ms p99 200ms }
    service api { timeout 50ms cancel }
  }
  variant lean "fewer workers" { service db { workers 2 } }
}
"#;

#[test]
fn a_variant_replaces_a_latency_and_a_timeout_and_keeps_the_rest() {
    let s = squall_lang::load("test.squall", FILE).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let run = |name: &str| {
        let v = s.variants.iter().position(|v| v.name == name).unwrap();
        s.model_for(RunKey::Variant(v), &[]).unwrap()
    };
    let base = run("base");
    let db = base.nodes[1].server.clone().unwrap();
    assert_eq!(db.latency, Some(LatencySpec::Constant(5.0)));
    assert_eq!(base.nodes[0].caller.timeout, Some(250.0));
    assert!(!base.nodes[0].caller.cancel);

    let slow = run("slow");
    let db = slow.nodes[1].server.clone().unwrap();
    assert_eq!(
        db.latency,
        Some(LatencySpec::LogNormal {
            p50: 20.0,
            p99: 200.0
        })
    );
    // Workers and queue are the node's own: the variant did not name them.
    assert_eq!((db.workers, db.queue), (Some(4), Some(10)));
    assert_eq!(slow.nodes[0].caller.timeout, Some(50.0));
    assert!(slow.nodes[0].caller.cancel);
    // The retry policy is untouched.
    assert_eq!(slow.nodes[0].retry.as_ref().map(|r| r.attempts), Some(3));

    let lean = run("lean");
    let db = lean.nodes[1].server.clone().unwrap();
    assert_eq!(db.workers, Some(2));
    assert_eq!(db.latency, Some(LatencySpec::Constant(5.0)));
}

/// `(line, column)` of the first `needle` in `text`, both 1-based.
fn where_is(text: &str, needle: &str) -> (usize, usize) {
    let at = text.find(needle).unwrap();
    let before = &text[..at];
    (
        before.matches('\n').count() + 1,
        before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1,
    )
}

#[test]
fn what_a_variant_still_cannot_change_is_refused_where_it_is_written() {
    // A composite response cannot change in a variant; a timeout on a node
    // that calls nothing is refused as in the node itself — each at the
    // variant's text.
    let text = r#"scenario "variant timed errors" {
  clock ms
  run 1s
  source users { rate 10/s  enters api }
  chain api -> [a, b]
  service api {
    response {
      field x from a core 10 B
      field y from b optional 10 B
    }
  }
  variant v1 "new response" {
    service api { response { field x from a core 10 B } }
  }
  variant v2 "timeout at a leaf" { service a { timeout 10ms } }
}
"#;
    let d = load_text_err(text);
    let msgs: Vec<&str> = d.list.iter().map(|x| x.message.as_str()).collect();
    assert_eq!(msgs.len(), 2, "{}", d.to_plain());
    assert_eq!(msgs[0], "a variant cannot change a composite response");
    assert!(msgs[1].contains("calls nothing"), "{}", msgs[1]);
    let at = positions(&d);
    assert_eq!(at[0], where_is(text, "response { field x"));
    assert_eq!(at[1], where_is(text, "timeout 10ms"));
    // Checked when the run is resolved: the variant's queue, on a node
    // without workers.
    let text = r#"scenario "variant queue" {
  clock ms
  run 1s
  source users { rate 10/s  enters api }
  chain api -> db
  variant v "queue without workers" { service db { queue 5 } }
}
"#;
    let d = load_text_err(text);
    assert_eq!(d.list.len(), 1, "{}", d.to_plain());
    assert!(
        d.list[0].message.contains("no `workers`"),
        "{}",
        d.to_plain()
    );
    assert_eq!(positions(&d)[0], where_is(text, "queue 5"));
}

/// An `expect` line's text stops at its own end: a comment after a check
/// that ends in a plain number is not part of it.
#[test]
fn an_expect_lines_text_leaves_the_comments_after_it_out() {
    let text = r#"scenario "expect text" {
  clock ms
  run 1s
  source users { rate 10/s  enters api }
  chain api -> db
  service db { latency 5ms }
  window all 1..end
  expect all.db.p99 > 1
  # a comment about the next line
  expect all.db.p99 < 100
}
"#;
    let s = squall_lang::load("test.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let texts: Vec<&str> = s.report.expects.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(
        texts,
        vec!["expect all.db.p99 > 1", "expect all.db.p99 < 100"]
    );
}
