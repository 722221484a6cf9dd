//! What a report observes of its runs ([`observes`]): the set each
//! metric reads, runs recorded with only that set printing every byte a
//! run that records everything prints, and a measure not recorded never
//! read as a number.

use std::collections::BTreeMap;

use squall_engine::observe::timed::{Stretch, TimedObservations};
use squall_engine::Observe;
use squall_lang::{Metric, RunKey, Scenario};

use super::{observes, Finished, Keep, RunOptions, RunPlan};
use crate::render::Format;
use crate::run::Run;

/// A timed chain (a short `bench/continuous.squall`, two layers) whose
/// report reads `column` and, when given, the item `extra` (an `expect`
/// line goes after the report).
fn chain(column: &str, extra: &str) -> String {
    let (inside, after) = if extra.starts_with("expect") {
        ("", extra)
    } else {
        (extra, "")
    };
    format!(
        r#"scenario "chain" {{
  clock ms
  run 2s
  series every 100ms
  source users {{ rate 2/ms  arrivals poisson  enters edge }}
  chain edge -> db
  service edge {{
    timeout 20ms
    latency lognormal p50 1ms p99 5ms
    workers 4
    queue 20
    retry {{ attempts 2  backoff full_jitter 2ms x 2 cap 10ms }}
  }}
  service db {{ latency lognormal p50 1ms p99 8ms  workers 3  queue 10 }}
  window all 1..end
  window late 1s..end
  report {{
    table "t" {{
      rows windows
      at db
      column "v" = {column} :.4
    }}
    {inside}
  }}
  {after}
}}"#
    )
}

fn load(name: &str, text: &str) -> Scenario {
    squall_lang::load(name, text).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

fn only(f: fn(&mut Observe)) -> Observe {
    let mut o = Observe::COUNTS;
    f(&mut o);
    o
}

/// Each metric reads what `crate::eval` takes it from: counts and shares
/// of counts from the counters (always recorded), a node's success rate
/// and `p_wait` from the counters read as shares (answers to its calls,
/// calls admitted and those that waited), node quantiles from the node
/// histograms (`unique` and `amplification` read distinct ids, counted
/// where the report reads them: `distinct_reads`, not a timed measure),
/// levels (and `utilisation`, `in_flight`) from the gauges,
/// Little's `wq` from the gauges and the calls admitted, `e2e_*` from the
/// sources' histograms. Several add up; a function of ticks (`peak`) or a
/// `diagnose` item reads bins and levels, so everything is kept.
#[test]
fn a_report_observes_what_its_metrics_read() {
    let latency = only(|o| o.node_latency = true);
    let gauges = only(|o| o.gauges = true);
    let e2e = only(|o| o.e2e_latency = true);
    let shares = only(|o| o.shares = true);
    let cases = [
        ("calls", "", Observe::COUNTS),
        ("completion_rate + timeouts", "", Observe::COUNTS),
        ("completion_rate + success_rate", "", shares),
        ("p_wait", "", shares),
        ("unique + amplification", "", Observe::COUNTS),
        ("p99", "", latency),
        ("edge.latency_mean", "", latency),
        ("queue_mean", "", gauges),
        ("utilisation", "", gauges),
        ("wq", "", gauges.union(shares)),
        ("e2e_p99", "", e2e),
        ("e2e_failed_mean", "", e2e),
        ("p50 + e2e_p50", "", latency.union(e2e)),
        ("calls", r#"line "in flight {all.db.in_flight:.1}""#, gauges),
        ("calls", "expect all.db.p999 < 1000", latency),
        // Charts are drawn from runs kept whole, not from these.
        ("calls", r#"chart "c" p99 at db"#, Observe::COUNTS),
        ("peak(db)", "", Observe::EVERYTHING),
        ("calls", "diagnose db in late vs all", Observe::EVERYTHING),
    ];
    for (column, extra, want) in cases {
        let s = load("chain.squall", &chain(column, extra));
        assert_eq!(observes(&s), want, "{column} / {extra}");
    }
}

fn finished(s: &Scenario, keep: Keep) -> Finished {
    RunPlan::report(s, None)
        .run_with(
            s,
            &RunOptions {
                jobs: Some(1),
                ..RunOptions::keeping(keep)
            },
        )
        .unwrap_or_else(|e| panic!("{e}"))
}

fn study<'s>(s: &'s Scenario, runs: BTreeMap<RunKey, Run>) -> crate::Study<'s> {
    crate::Study {
        sending: Vec::new(),
        scenario: s,
        cli: Vec::new(),
        selected: None,
        runs,
        replicas: Vec::new(),
    }
}

/// The counters of a stretch, which every run records.
fn counts(s: &Stretch) -> [u64; 7] {
    [
        s.timeouts,
        s.overflow,
        s.queue_timeouts,
        s.throttled,
        s.cancelled,
        s.wasted_calls,
        s.wasted_busy,
    ]
}

/// The counters read as shares of a node's calls, recorded when observed
/// ([`Observe::shares`]).
fn shares(s: &Stretch) -> [u64; 3] {
    [s.answered_ok, s.admitted, s.waited]
}

/// What `narrow` recorded equals what `full` recorded of it, and what it
/// did not record is empty.
fn same_where_observed(narrow: &TimedObservations, full: &TimedObservations, what: &str) {
    let o = narrow.observed;
    assert_eq!(narrow.calls, full.calls, "{what}");
    for (i, (n, f)) in narrow.nodes.iter().zip(&full.nodes).enumerate() {
        let stretches = std::iter::once((&n.run, &f.run)).chain(n.windows.iter().zip(&f.windows));
        for (a, b) in stretches {
            assert_eq!(counts(a), counts(b), "{what} node {i}");
            if o.shares {
                assert_eq!(shares(a), shares(b), "{what} node {i}");
            } else {
                assert_eq!(shares(a), [0; 3], "{what} node {i}");
            }
            if o.node_latency {
                assert_eq!(a.latency, b.latency, "{what} node {i}");
            } else {
                assert_eq!(a.latency.count, 0, "{what} node {i}");
            }
            let levels = |s: &Stretch| {
                (
                    s.queue_mean,
                    s.queue_max,
                    s.queue_end,
                    s.in_service_mean,
                    s.in_service_max,
                )
            };
            if o.gauges {
                assert_eq!(levels(a), levels(b), "{what} node {i}");
            } else {
                assert_eq!(levels(a), (0.0, 0, 0, 0.0, 0), "{what} node {i}");
            }
        }
        if o.bins {
            assert_eq!(n.bins, f.bins, "{what} node {i}");
        } else {
            assert!(n.bins.is_empty() && !f.bins.is_empty(), "{what} node {i}");
        }
    }
    if o.e2e_latency {
        assert_eq!(
            (&narrow.all.run, &narrow.all.windows),
            (&full.all.run, &full.all.windows)
        );
        assert_eq!(narrow.failed.run, full.failed.run, "{what}");
    } else {
        assert_eq!(narrow.all.run.count, 0, "{what}");
    }
}

/// Runs recorded with only what their report reads print the same report
/// as runs that record everything, byte for byte, in every format (text,
/// markdown, JSON, CSV), with the same expectations; every number they
/// recorded equals the full run's. The scenarios: the benchmark's chain
/// (five simulated seconds; its report reads end-to-end latency alone)
/// and four of `scenarios/` with tables of levels, quantiles, deadlines
/// and hedges. At least one run of each is recorded narrower than
/// everything, so the comparison is of two different recordings.
#[test]
fn a_run_that_records_what_its_report_reads_prints_what_a_full_run_prints() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let read = |path: &str| {
        std::fs::read_to_string(format!("{root}/{path}")).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let continuous = read("bench/continuous.squall").replace("horizon = 1h", "horizon = 5s");
    let mut files = vec![("continuous.squall".to_string(), continuous)];
    for name in ["timeout-at-median", "closed-loop", "deadline", "hedging"] {
        files.push((
            format!("{name}.squall"),
            read(&format!("scenarios/{name}.squall")),
        ));
    }
    for (name, text) in &files {
        let s = load(name, text);
        let o = observes(&s);
        assert_ne!(o, Observe::EVERYTHING, "{name}");
        let full = finished(&s, Keep::Everything);
        let narrow = finished(&s, Keep::Report);
        for (k, run) in &narrow.runs {
            let (Some(n), Some(f)) = (&run.obs.timed, &full.runs[k].obs.timed) else {
                panic!("{name} {k:?}: not a timed run");
            };
            assert_eq!(n.observed, o, "{name} {k:?}");
            assert_eq!(f.observed, Observe::EVERYTHING, "{name} {k:?}");
            same_where_observed(n, f, &format!("{name} {k:?}"));
        }
        let (full, narrow) = (study(&s, full.runs), study(&s, narrow.runs));
        let (a, b) = (full.report(), narrow.report());
        for format in [Format::Text, Format::Markdown, Format::Json, Format::Csv] {
            assert_eq!(a.render(format), b.render(format), "{name} {format:?}");
        }
        let values = |st: &crate::Study| {
            st.expectations()
                .iter()
                .map(|e| (e.actual, e.passed))
                .collect::<Vec<_>>()
        };
        assert_eq!(values(&full), values(&narrow), "{name}");
    }
    // The benchmark's report reads requests, calls, timeouts and
    // completion (counters) and end-to-end quantiles: nothing else.
    let s = load("continuous.squall", &files[0].1);
    assert_eq!(observes(&s), only(|o| o.e2e_latency = true));
}

/// A run of the chain whose report reads `e2e_p99` alone: node latency
/// and levels are not recorded, and would read as a count of 0 and a level
/// of 0.
fn narrow_chain() -> (Scenario, Run) {
    let s = load("chain.squall", &chain("e2e_p99", ""));
    let mut f = finished(&s, Keep::Report);
    let run = f
        .runs
        .remove(&RunKey::Variant(0))
        .unwrap_or_else(|| panic!("no run"));
    let t = run
        .obs
        .timed
        .as_ref()
        .unwrap_or_else(|| panic!("not timed"));
    assert_eq!(t.observed, only(|o| o.e2e_latency = true));
    assert_eq!(
        (t.nodes[1].run.latency.count, t.nodes[1].run.queue_mean),
        (0, 0.0)
    );
    (s, run)
}

/// Asking such a run for a node quantile or a level is the planner's
/// mistake: a debug build stops on it rather than print the 0 it holds.
#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "read from a run that did not record it")]
fn an_unrecorded_measure_stops_a_debug_build() {
    let (_s, run) = narrow_chain();
    let _ = crate::eval::run_window_metric(&run, Metric::P99, 0, Some(1));
}

/// Distinct ids where the run did not count them: the same mistake.
#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "read from a run that counted them only at")]
fn uncounted_distinct_ids_stop_a_debug_build() {
    let (_s, run) = narrow_chain();
    let _ = crate::eval::run_window_metric(&run, Metric::Unique, 0, Some(1));
}

/// In a release build the same question answers n/a (no value), never 0;
/// what the run did record still answers.
#[cfg(not(debug_assertions))]
#[test]
fn an_unrecorded_measure_reads_as_no_value() {
    let (_s, run) = narrow_chain();
    // Its report reads no distinct ids, so none were counted.
    assert_eq!(run.obs.distinct_at.as_deref(), Some(&[][..]));
    for m in [
        Metric::P99,
        Metric::QueueMean,
        Metric::Utilisation,
        Metric::PWait,
        Metric::Wq,
        Metric::Unique,
        Metric::Amplification,
    ] {
        assert_eq!(
            crate::eval::run_window_metric(&run, m, 0, Some(1)),
            None,
            "{m:?}"
        );
    }
    assert!(crate::eval::run_window_metric(&run, Metric::E2eP99, 0, None).is_some());
}
