//! `replicas N` and `balance ...` on a service, and `on api[1]` in a
//! fault: what they resolve to, a variant that changes them, `squall fmt`
//! keeping them, and their located errors.

use squall_lang::{Balance, RunKey};

use crate::common::{at, load_text_err, one_error};

const FILE: &str = r#"scenario "replicas" {
  clock ms
  run 1s
  source users { rate 10/s  arrivals poisson  enters edge }
  chain edge -> api
  service edge { retry { attempts 2  backoff fixed 1ms } }
  service api { latency 5ms  workers 4  replicas 3  balance p2c }
  fault bad { on api[1]  during 100ms..200ms  fail 503 }
  fault all { on api  during 300ms..400ms  latency x 2 }
  variant base "as declared" { }
  variant spread "round robin over 5" { service api { replicas 5  balance round_robin } }
}
"#;

fn model(text: &str, variant: &str) -> squall_lang::Model {
    let s = squall_lang::load("test.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let v = s.variants.iter().position(|v| v.name == variant).unwrap();
    s.model_for(RunKey::Variant(v), &[]).unwrap()
}

/// As written: api 3 replicas behind `p2c`; edge none; the first fault on
/// replica 1 only, the second on every replica; a variant replaces both
/// settings.
#[test]
fn replicas_resolve_and_a_variant_replaces_them() {
    let m = model(FILE, "base");
    assert_eq!(m.nodes[0].replicas, None);
    let api = m.nodes[1].replicas.unwrap();
    assert_eq!((api.count, api.balance), (3, Balance::P2c));
    assert_eq!(m.nodes[1].replica_count(), 3);
    assert_eq!(m.faults[0].replica, Some(1));
    assert_eq!(m.faults[1].replica, None);
    let m = model(FILE, "spread");
    let api = m.nodes[1].replicas.unwrap();
    assert_eq!((api.count, api.balance), (5, Balance::RoundRobin));
}

/// Without `balance`, round robin (Envoy's default).
#[test]
fn round_robin_is_the_default() {
    let text = FILE.replace("  balance p2c", "");
    let m = model(&text, "base");
    assert_eq!(m.nodes[1].replicas.unwrap().balance, Balance::RoundRobin);
}

/// `squall fmt` writes both settings and the indexed target back, and the
/// formatted text resolves to the same model.
#[test]
fn fmt_keeps_replicas_and_indices() {
    let pretty = squall_lang::format::format_source(FILE).expect("formats");
    for needle in ["replicas 3", "balance p2c", "on api[1]", "replicas 5"] {
        assert!(pretty.contains(needle), "{needle}: {pretty}");
    }
    for v in ["base", "spread"] {
        assert_eq!(model(&pretty, v), model(FILE, v), "{v}");
    }
    assert_eq!(
        squall_lang::format::format_source(&pretty).expect("formats"),
        pretty
    );
}

/// An unknown balancer names the nearest one.
#[test]
fn an_unknown_balancer_suggests_the_nearest() {
    let text = FILE.replace("balance p2c", "balance round_robbin");
    one_error(&text, "round_robbin", "unknown balancer `round_robbin`");
    let d = load_text_err(&text);
    assert_eq!(
        d.list[0].help.as_deref(),
        Some("did you mean `round_robin`?")
    );
}

/// `replicas 0` is refused where it is written.
#[test]
fn zero_replicas_are_refused() {
    let text = FILE.replace("replicas 3", "replicas 0");
    one_error(&text, "replicas 0", "a service needs at least one replica");
}

/// A `balance` spreads calls over replicas: without `replicas` it is
/// refused where it is written.
#[test]
fn a_balance_needs_replicas() {
    let text = FILE.replace("replicas 3  balance p2c", "balance random");
    let text = text.replace("on api[1]", "on api");
    one_error(&text, "balance random", "a `balance` needs `replicas`");
}

/// An index past the last replica, and an index on a service without
/// replicas, are refused at the index.
#[test]
fn a_replica_index_is_checked() {
    let text = FILE.replace("on api[1]", "on api[3]");
    one_error(
        &text,
        "[3]",
        "`api` has 3 replicas, numbered 0 to 2: there is no replica 3",
    );
    let text = FILE.replace("on api[1]", "on edge[0]");
    one_error(&text, "[0]", "a replica index needs `replicas`");
    let text = FILE.replace("on api[1]", "on api[1.5]");
    one_error(&text, "1.5", "`1.5` is not a replica index");
}

/// `api` covers every replica: `on api, api[1]` names replica 1 twice;
/// `on api[0], api[1]` is two targets.
#[test]
fn a_target_named_twice_is_refused() {
    let text = FILE.replace("on api[1]", "on api, api[1]");
    one_error(&text, "api[1]  during", "fault `bad` names `api[1]` twice");
    let text = FILE.replace("on api[1]", "on api[0], api[1]");
    let m = model(&text, "base");
    let r: Vec<_> = m.faults.iter().map(|f| f.replica).collect();
    assert_eq!(r, [Some(0), Some(1), None]);
}

/// `least_outstanding` and `p2c` compare outstanding calls: in a run where
/// no call takes time they are refused at the `balance` line.
#[test]
fn load_reading_balancers_need_time() {
    let text = r#"scenario "rounds" {
  clock round
  run 10 rounds
  source users { rate 3/round  enters api }
  chain api
  service api { replicas 3  balance least_outstanding }
}
"#;
    one_error(
        text,
        "balance least_outstanding",
        "`balance least_outstanding` compares the calls outstanding at each replica, and no call in this run takes time",
    );
    let ok = text.replace("least_outstanding", "random");
    assert!(squall_lang::load("test.squall", &ok).is_ok());
    assert_eq!(at(&ok, "random").0, 6);
}

/// A work queue is not a replicated service.
#[test]
fn a_work_queue_takes_no_replicas() {
    let text = r#"scenario "q" {
  clock ms
  run 1s
  source jobs { rate 10/s  enters q }
  chain q
  service q { consumers 2  work 5ms  replicas 2 }
}
"#;
    one_error(
        text,
        "replicas 2",
        "`replicas` is not a work queue's setting",
    );
}

/// A report path reads one replica: `all.api[2].calls` resolves to the
/// metric with its replica, in a line's hole as in an `expect`, and is
/// listed among the file's replica reads (the run planner keeps counts per
/// replica only then); `squall fmt` writes the index back.
#[test]
fn a_path_reads_one_replica() {
    let text = FILE.replace(
        "  variant base",
        "  window all 1..1s\n  report { line base \"{all.api[2].calls:.0}\" }\n  expect base.all.api[1].served_rate > 0\n  variant base",
    );
    let s = squall_lang::load("test.squall", &text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let api = s.nodes.iter().position(|n| n.name == "api").unwrap();
    let reads: Vec<(usize, u64)> = s.replica_reads.iter().map(|&(n, r, _, _)| (n, r)).collect();
    assert_eq!(reads, [(api, 2), (api, 1)]);
    let squall_lang::RExpr::Metric {
        node,
        replica,
        metric,
        ..
    } = &s.report.expects[0].lhs
    else {
        panic!("a metric: {:?}", s.report.expects[0].lhs);
    };
    assert_eq!((*node, *replica), (Some(api), Some(1)));
    assert_eq!(*metric, squall_lang::Metric::ServedRate);
    let pretty = squall_lang::format::format_source(&text).expect("formats");
    for needle in ["{all.api[2].calls:.0}", "base.all.api[1].served_rate"] {
        assert!(pretty.contains(needle), "{needle}: {pretty}");
    }
}

/// A replica's latency, queue and share of successes are read as its
/// counts are: `api[1].p99`, `latency_mean`, `queue_mean` and
/// `success_rate` resolve, and each read is listed with its metric (the
/// planner records a replica's latency or queue only for a report that
/// reads one).
#[test]
fn a_path_reads_one_replicas_latency() {
    let text = FILE.replace(
        "  variant base",
        "  window all 1..1s\n  report { line base \"{all.api[2].p99:.1} {all.api[0].latency_mean:.1} {all.api[0].queue_mean:.1}\" }\n  expect base.all.api[1].success_rate > 0.9\n  variant base",
    );
    let s = squall_lang::load("test.squall", &text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let api = s.nodes.iter().position(|n| n.name == "api").unwrap();
    let reads: Vec<(usize, u64, squall_lang::Metric)> = s
        .replica_reads
        .iter()
        .map(|&(n, r, _, m)| (n, r, m))
        .collect();
    use squall_lang::Metric::{LatencyMean, QueueMean, SuccessRate, P99};
    assert_eq!(
        reads,
        [
            (api, 2, P99),
            (api, 0, LatencyMean),
            (api, 0, QueueMean),
            (api, 1, SuccessRate)
        ]
    );
}
