//! What a run records of the timed path's own measures
//! ([`SimulationBuilder::observe`]): every subset of them records the
//! same numbers as a run that records everything, for what it records,
//! and nothing for the rest. The expected values are the full run's: what
//! is recorded does not change what is simulated (no draw, event or
//! decision reads the recorder), so the two runs are the same run.

use squall_engine::observe::timed::{Stretch, TimedObservations, TimedSource};
use squall_engine::{Observations, Observe, Simulation};
use squall_lang::RunKey;

/// Two sources into a two-layer chain with queues, timeouts and retries,
/// a short window and one over the whole run, bins of 100 ms.
const CHAIN: &str = r#"scenario "observe" {
  clock ms
  run 1500ms
  series every 100ms
  source users { rate 2/ms  arrivals poisson  enters edge }
  source batch { rate 0.5/ms  arrivals poisson  enters edge }
  chain edge -> db
  service edge {
    timeout 15ms
    latency lognormal p50 1ms p99 5ms
    workers 4
    queue 10
    retry { attempts 2  backoff full_jitter 2ms x 2 cap 10ms }
  }
  service db { latency lognormal p50 1ms p99 10ms  workers 3  queue 8 }
  window all 1..end
  window mid 500ms..800ms
}"#;

fn run(observe: Observe) -> Observations {
    let s =
        squall_lang::load("observe.squall", CHAIN).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let m = s
        .model_for(RunKey::Variant(0), &[])
        .unwrap_or_else(|e| panic!("{e:?}"));
    Simulation::builder(&m)
        .observe(observe)
        .build()
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("{e}"))
}

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

/// The counters read as shares of a node's calls ([`Observe::shares`]).
fn shares(s: &Stretch) -> [u64; 3] {
    [s.answered_ok, s.admitted, s.waited]
}

fn levels(s: &Stretch) -> (f64, u64, u64, f64, u64) {
    (
        s.queue_mean,
        s.queue_max,
        s.queue_end,
        s.in_service_mean,
        s.in_service_max,
    )
}

/// `a`, recorded with `o`, against `b`, the same stretch recorded with
/// everything.
fn same_stretch(o: Observe, a: &Stretch, b: &Stretch, what: &str) {
    assert_eq!(counts(a), counts(b), "{what}");
    if o.shares {
        assert_eq!(shares(a), shares(b), "{what}");
    } else {
        assert_eq!(shares(a), [0; 3], "{what}");
    }
    if o.node_latency {
        assert_eq!(a.latency, b.latency, "{what}");
    } else {
        assert_eq!(a.latency, Default::default(), "{what}");
    }
    if o.gauges {
        assert_eq!(levels(a), levels(b), "{what}");
    } else {
        assert_eq!(levels(a), (0.0, 0, 0, 0.0, 0), "{what}");
    }
}

fn same_source(o: Observe, a: &TimedSource, b: &TimedSource, what: &str) {
    if !o.e2e_latency {
        assert_eq!(a.run, Default::default(), "{what}");
        assert!(a.windows.iter().all(|q| q.count == 0), "{what}");
        assert!(a.bins.is_empty(), "{what}");
        return;
    }
    assert_eq!((&a.run, &a.windows), (&b.run, &b.windows), "{what}");
    if o.bins {
        assert_eq!(a.bins, b.bins, "{what}");
    } else {
        assert!(a.bins.is_empty(), "{what}");
    }
}

fn compare(o: Observe, a: &TimedObservations, b: &TimedObservations) {
    let what = format!("{o:?}");
    assert_eq!(a.observed, o, "{what}");
    assert_eq!(a.calls, b.calls, "{what}");
    assert_eq!(a.bin_ticks, b.bin_ticks, "{what}");
    for (n, (x, y)) in a.nodes.iter().zip(&b.nodes).enumerate() {
        let what = format!("{what} node {n}");
        same_stretch(o, &x.run, &y.run, &what);
        assert_eq!(x.windows.len(), y.windows.len(), "{what}");
        for (x, y) in x.windows.iter().zip(&y.windows) {
            same_stretch(o, x, y, &what);
        }
        if o.bins {
            assert_eq!(x.bins.len(), y.bins.len(), "{what}");
            for (x, y) in x.bins.iter().zip(&y.bins) {
                same_stretch(o, x, y, &what);
            }
        } else {
            assert!(x.bins.is_empty(), "{what}");
        }
        if o.node_latency {
            assert_eq!(x.distribution, y.distribution, "{what}");
        } else {
            assert!(x.distribution.is_empty(), "{what}");
        }
    }
    assert_eq!(a.sources.len(), b.sources.len(), "{what}");
    for (x, y) in a.sources.iter().zip(&b.sources) {
        same_source(o, x, y, &what);
    }
    same_source(o, &a.all, &b.all, &what);
    same_source(o, &a.failed, &b.failed, &what);
}

/// Every one of the 32 subsets of what can be observed.
#[test]
fn every_subset_records_what_a_full_run_records_of_it() {
    let mut full = run(Observe::EVERYTHING);
    let full_timed = full.timed.take().unwrap_or_else(|| panic!("not timed"));
    assert_eq!(full_timed.observed, Observe::EVERYTHING);
    // The comparison sees something: answers, queueing, timeouts, levels,
    // both sources' requests, and more than one bin.
    let db = &full_timed.nodes[1];
    assert!(db.run.latency.count > 1000 && db.run.waited > 0 && db.run.queue_max > 0);
    assert!(full_timed.nodes[0].run.timeouts > 0 && db.bins.len() == 15);
    assert!(full_timed.sources.iter().all(|s| s.run.count > 0));
    for bits in 0..32u8 {
        let o = Observe {
            node_latency: bits & 1 != 0,
            gauges: bits & 2 != 0,
            e2e_latency: bits & 4 != 0,
            bins: bits & 8 != 0,
            shares: bits & 16 != 0,
        };
        let mut obs = run(o);
        let timed = obs.timed.take().unwrap_or_else(|| panic!("not timed"));
        compare(o, &timed, &full_timed);
        // Everything outside the timed measures is the same too.
        assert_eq!(obs, full, "{o:?}");
    }
}

/// The builder's default records everything.
#[test]
fn the_default_records_everything() {
    let s =
        squall_lang::load("observe.squall", CHAIN).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let m = s
        .model_for(RunKey::Variant(0), &[])
        .unwrap_or_else(|e| panic!("{e:?}"));
    let obs = Simulation::builder(&m)
        .build()
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(obs.timed.map(|t| t.observed), Some(Observe::EVERYTHING));
}
