//! The retry-storm scenario with other parameters gives the answers the
//! document's model would give.
//!
//! squall's numbers are compared with [`crate::reference`], an independent
//! transcription of the document's JavaScript, over grids of demand, tries,
//! spacing, capacity, fault capacity, fault window, number of layers and run
//! length; and with closed forms derived by hand.

use squall_lang::{Metric, RunKey, Scenario};
use squall_report::Study;

use crate::reference::{Demand, Fault, RoundModel, Trace};
use crate::retry_storm::{ALLOWANCE, CASES};
use crate::support::*;

/// A chain of retrying layers over one dependency `db`, written as a
/// scenario file and as the reference model.
#[derive(Debug, Clone)]
pub struct Chain {
    /// Tries per layer, top first (the number of layers is its length).
    pub tries: Vec<u32>,
    /// Rounds between tries.
    pub spacing: u64,
    /// Calls `db` serves per round.
    pub capacity: u64,
    /// Requests per round.
    pub demand: f64,
    /// Periods of another demand.
    pub periods: Vec<(u64, u64, f64)>,
    /// A fault on `db`.
    pub fault: Option<Fault>,
    /// Rounds.
    pub rounds: u64,
}

impl Chain {
    /// The document's chain (3 layers of 3 tries, 4 rounds apart, capacity
    /// 12, 4 requests a round, capacity 1 over 101..160 of 400 rounds).
    pub fn document() -> Chain {
        let m = RoundModel::document(3);
        let Demand::Rate { base, .. } = m.demand else {
            unreachable!("the document's demand is a rate")
        };
        Chain {
            tries: m.tries,
            spacing: m.spacing,
            capacity: m.capacity,
            demand: base,
            periods: vec![],
            fault: m.fault,
            rounds: m.rounds,
        }
    }

    fn layer(i: usize) -> String {
        format!("l{}", i + 1)
    }

    /// Windows: `(name, first, last)`.
    pub fn windows(&self) -> Vec<(String, u64, u64)> {
        let t = self.rounds;
        let mut w = vec![("all".to_string(), 1, t)];
        if let Some(f) = self.fault {
            if f.from > 1 {
                w.push(("before".into(), 1, f.from - 1));
            }
            w.push(("during".into(), f.from, f.to));
            if f.to < t {
                w.push(("after".into(), f.to + 1, t));
            }
            w.push(("aftermath".into(), f.from, t));
        }
        w.push(("early".into(), 1, t.min(37)));
        w
    }

    /// True when `recovery` is defined: a window before the fault gives the
    /// normal rate.
    fn has_recovery(&self) -> bool {
        self.fault.is_some_and(|f| f.from > 1)
    }

    /// The scenario file.
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let layers: Vec<String> = (0..self.tries.len()).map(Self::layer).collect();
        let mut s = String::new();
        let _ = writeln!(s, "scenario \"generated chain\" {{");
        let _ = writeln!(s, "  clock round\n  run {} rounds", self.rounds);
        let _ = writeln!(s, "  source users {{");
        let _ = writeln!(s, "    rate {}/round", self.demand);
        for (a, b, r) in &self.periods {
            let _ = writeln!(s, "    rate {r}/round during {a}..{b}");
        }
        let _ = writeln!(s, "    enters {}\n  }}", layers[0]);
        let _ = writeln!(s, "  chain {} -> db", layers.join(" -> "));
        for (name, t) in layers.iter().zip(&self.tries) {
            let _ = writeln!(
                s,
                "  service {name} {{ retry {{ attempts {t}  backoff fixed {} rounds }} }}",
                self.spacing
            );
        }
        let _ = writeln!(s, "  service db {{ capacity {}/round }}", self.capacity);
        if let Some(f) = self.fault {
            let _ = writeln!(
                s,
                "  fault brownout {{ on db  during {}..{}  capacity {}/round }}",
                f.from, f.to, f.capacity
            );
        }
        for (name, a, b) in self.windows() {
            let _ = writeln!(s, "  window {name} {a}..{b}");
        }
        let _ = writeln!(s, "  report {{");
        let _ = writeln!(
            s,
            "    measure peak = peak(db)\n    measure bound = call_bound(db)"
        );
        if self.has_recovery() {
            let _ = writeln!(s, "    measure normal = before.db.call_rate");
            let _ = writeln!(
                s,
                "    measure recovery = recovery(db, brownout, 1.1 * normal)"
            );
        }
        let _ = writeln!(s, "  }}\n}}");
        s
    }

    /// The reference model of the same chain.
    pub fn reference(&self) -> RoundModel {
        RoundModel {
            rounds: self.rounds,
            tries: self.tries.clone(),
            spacing: self.spacing,
            capacity: self.capacity,
            demand: Demand::Rate {
                base: self.demand,
                periods: self.periods.clone(),
            },
            fault: self.fault,
        }
    }
}

/// Compares one run of squall with a reference trace: the per-round series,
/// every window metric, and the accounting.
pub fn compare_run(
    study: &Study,
    run: RunKey,
    trace: &Trace,
    windows: &[(String, u64, u64)],
    what: &str,
) {
    let s = study.scenario;
    let r = &study.runs[&run];
    let obs = &r.obs;
    let db = node(s, "db");
    let series = |v: &[u32]| v[1..].iter().map(|&x| u64::from(x)).collect::<Vec<u64>>();
    assert_eq!(
        series(&obs.arrivals),
        trace.edge,
        "{what}: arrivals per round"
    );
    assert_eq!(
        series(&obs.nodes[db].calls),
        trace.calls,
        "{what}: calls per round"
    );
    assert_eq!(
        series(&obs.nodes[db].ok),
        trace.served,
        "{what}: served per round"
    );
    assert_eq!(
        series(&obs.dropped),
        trace.dropped,
        "{what}: dropped per round"
    );

    for (name, a, b) in windows {
        let w = window(s, name);
        let want = trace.window(*a, *b);
        let m = |n: Option<usize>, metric| eval_metric(study, run, w, n, metric);
        let count = |x: u64| Some(x as f64);
        let checks = [
            ("arrivals", m(None, Metric::Arrivals), count(want.arrivals)),
            ("dropped", m(None, Metric::Dropped), count(want.dropped)),
            ("calls", m(Some(db), Metric::Calls), count(want.calls)),
            ("served", m(Some(db), Metric::Served), count(want.served)),
            ("unique", m(Some(db), Metric::Unique), count(want.unique)),
            ("edge_rate", m(None, Metric::EdgeRate), Some(want.edge_rate)),
            (
                "call_rate",
                m(Some(db), Metric::CallRate),
                Some(want.call_rate),
            ),
            (
                "unique_rate",
                m(Some(db), Metric::UniqueRate),
                Some(want.unique_rate),
            ),
            (
                "amplification",
                m(Some(db), Metric::Amplification),
                want.amplification,
            ),
            (
                "success_rate",
                m(Some(db), Metric::SuccessRate),
                want.success_rate,
            ),
        ];
        for (metric, got, want) in checks {
            assert_eq!(got, want, "{what}: window {name} {a}..{b}: {metric}");
        }
    }

    let a = obs.accounting;
    assert_eq!(a.entered, trace.entered(), "{what}: entered");
    assert_eq!(
        a.dropped,
        trace.dropped.iter().sum::<u64>(),
        "{what}: dropped"
    );
    assert_eq!(
        a.completed,
        trace.served.iter().sum::<u64>(),
        "{what}: completed"
    );
    assert_eq!(
        a.in_flight, trace.active_at_end,
        "{what}: in flight at the end"
    );
}

/// Runs a generated chain in squall and in the reference and compares all.
pub fn check_chain(c: &Chain) -> Result<(Trace, RunKey), Box<dyn std::error::Error>> {
    let text = c.text();
    let s = load_text("generated.squall", &text)?;
    let study = run_study(&s, vec![], None)?;
    let trace = c.reference().run();
    let run = RunKey::Variant(0);
    let what = format!("{c:?}");
    compare_run(&study, run, &trace, &c.windows(), &what);
    let peak = eval_measure(&study, run, "peak");
    assert_eq!(peak, Some(trace.peak() as f64), "{what}: peak");
    let bound: u64 = c.tries.iter().map(|&t| u64::from(t)).product();
    assert_eq!(
        eval_measure(&study, run, "bound"),
        Some(bound as f64),
        "{what}: bound"
    );
    if let (true, Some(f)) = (c.has_recovery(), c.fault) {
        let normal = trace.window(1, f.from - 1).call_rate;
        let want = trace.recovery(f.to, normal * 1.1).map(|r| r as f64);
        assert_eq!(
            eval_measure(&study, run, "recovery"),
            want,
            "{what}: recovery"
        );
    }
    Ok((trace, run))
}

#[test]
fn the_reference_reproduces_the_document() {
    // A check of the reference itself: the document's printed tables.
    let windows = [(1, 100), (101, 160), (161, 400)];
    let grew = RoundModel {
        demand: Demand::Rate {
            base: 4.0,
            periods: vec![(101, 160, 8.0)],
        },
        fault: None,
        ..RoundModel::document(3)
    };
    let runs = [
        grew.run(),
        RoundModel::document(3).run(),
        RoundModel::document(1).run(),
    ];
    for (i, (row, values)) in CASES.iter().enumerate() {
        let w = runs[i / 3].window(windows[i % 3].0, windows[i % 3].1);
        let got = [
            fixed(w.edge_rate, 2),
            fixed(w.call_rate, 2),
            fixed(w.unique_rate, 2),
            fixed(w.amplification.unwrap_or(0.0), 2),
            fixed(w.success_rate.unwrap_or(0.0), 4),
        ];
        assert_eq!(got, *values, "{row}");
    }
    for (row, values) in ALLOWANCE {
        let r = RoundModel::document(row.parse().expect("tries")).run();
        let p = r.window(101, 160);
        let normal = r.window(1, 100).call_rate;
        let got = [
            fixed(p.call_rate, 2),
            fixed(p.amplification.unwrap_or(0.0), 2),
            r.window(101, 400).dropped.to_string(),
            r.recovery(160, normal * 1.1)
                .map_or("-1".into(), |x| x.to_string()),
            fixed(p.success_rate.unwrap_or(0.0), 4),
        ];
        assert_eq!(got, values, "tries {row}");
    }
}

/// The document's scenario file with `--set` overrides: every run of the
/// study (three variants, three sweep points) against the reference.
fn check_file_with(s: &Scenario, demand: f64, attempts: u32, spacing: u64, cap: u64, fcap: u64) {
    let cli = vec![
        setting("demand", &format!("{demand}/round")),
        setting("attempts", &attempts.to_string()),
        setting("spacing", &format!("{spacing} rounds")),
        setting("capacity", &format!("{cap}/round")),
        setting("fault_capacity", &format!("{fcap}/round")),
    ];
    let study = run_study(s, cli, None).expect("the study runs");
    let windows: Vec<(String, u64, u64)> = [
        ("before", 1, 100),
        ("during", 101, 160),
        ("after", 161, 400),
        ("aftermath", 101, 400),
    ]
    .iter()
    .map(|(n, a, b)| (n.to_string(), *a, *b))
    .collect();
    let fault = Some(Fault {
        from: 101,
        to: 160,
        capacity: fcap,
    });
    for (&key, run) in &study.runs {
        let tries = s
            .param_number("attempts", &run.overrides)
            .expect("attempts resolves") as u32;
        let grew = key == RunKey::Variant(variant(s, "grew"));
        let model = RoundModel {
            rounds: 400,
            tries: vec![tries; 3],
            spacing,
            capacity: cap,
            demand: Demand::Rate {
                base: demand,
                periods: if grew { vec![(101, 160, 8.0)] } else { vec![] },
            },
            fault: if grew { None } else { fault },
        };
        let trace = model.run();
        let what = format!(
            "{key:?} demand {demand} attempts {attempts} (run: {tries}) spacing {spacing} \
             capacity {cap} fault capacity {fcap}"
        );
        compare_run(&study, key, &trace, &windows, &what);
        let normal = trace.window(1, 100).call_rate;
        let want = if grew {
            None
        } else {
            trace.recovery(160, normal * 1.1).map(|r| r as f64)
        };
        assert_eq!(
            eval_measure(&study, key, "recovery"),
            want,
            "{what}: recovery"
        );
        assert_eq!(
            eval_measure(&study, key, "peak"),
            Some(trace.peak() as f64),
            "{what}: peak"
        );
        assert_eq!(
            eval_measure(&study, key, "bound"),
            Some(f64::from(tries).powi(3)),
            "{what}: bound"
        );
        let served = eval_measure(&study, key, "served_calls").expect("served calls");
        assert_eq!(
            served,
            trace.window(101, 160).served as f64 / 60.0,
            "{what}: served"
        );
    }
}

/// The grid is 3 demands x 3 tries x 6 spacings x 5 capacities = 270
/// points of 6 runs each. By default every 7th point is checked (39 points;
/// 7 is prime to every axis length, so each value of each axis is met);
/// `SQUALL_LONG_TESTS=1` checks them all.
#[test]
fn the_scenario_file_with_other_params_matches_the_reference() -> TestResult {
    let s = load_file(RETRY_STORM)?;
    let stride = if long_tests() { 1 } else { 7 };
    let (mut n, mut checked) = (0, 0);
    for demand in [4.0, 3.0, 2.5] {
        for attempts in [2, 3, 4] {
            for spacing in 1..=6 {
                for (cap, fcap) in [(12, 0), (12, 1), (12, 2), (5, 1), (7, 0)] {
                    if n % stride == 0 {
                        check_file_with(&s, demand, attempts, spacing, cap, fcap);
                        checked += 1;
                    }
                    n += 1;
                }
            }
        }
    }
    assert_eq!(n, 270);
    assert_eq!(checked, if stride == 1 { 270 } else { 39 });
    Ok(())
}

#[test]
fn chains_of_one_to_four_layers_match_the_reference() -> TestResult {
    // A product over layers, fault capacity and spacing; the other inputs
    // cycle through their lists so every value meets many others.
    let tries_by_layers: [&[&[u32]]; 4] = [
        &[&[3], &[5], &[1]],
        &[&[3, 3], &[2, 4], &[2, 2]],
        &[&[3, 3, 3], &[2, 2, 2], &[4, 1, 3]],
        &[&[3, 3, 3, 3], &[2, 2, 2, 2], &[2, 3, 1, 4]],
    ];
    let demands = [4.0, 2.5, 3.0, 0.75, 6.0];
    let runs = [400, 250, 520];
    let faults = [(101, 160), (40, 55), (1, 30), (200, 250), (90, 91)];
    let capacities = [12, 8, 5, 20];
    let mut i = 0usize;
    for layers in 1..=4 {
        for fcap in [0, 1, 2] {
            for spacing in 1..=6 {
                let tries = tries_by_layers[layers - 1][i % 3].to_vec();
                let rounds = runs[i % runs.len()];
                let (from, to) = faults[i % faults.len()];
                let c = Chain {
                    tries,
                    spacing,
                    capacity: capacities[i % capacities.len()],
                    demand: demands[i % demands.len()],
                    periods: if i.is_multiple_of(4) {
                        vec![(20, 29, 7.5)]
                    } else {
                        vec![]
                    },
                    fault: Some(Fault {
                        from,
                        to: to.min(rounds),
                        capacity: fcap,
                    }),
                    rounds,
                };
                check_chain(&c)?;
                i += 1;
            }
        }
    }
    assert_eq!(i, 72);
    Ok(())
}

#[test]
fn the_document_chain_written_out_matches_the_reference() -> TestResult {
    // The generated text of the document's own chain, and variations of one
    // input at a time: fault window, run length, fractional demand.
    let base = Chain::document();
    let mut cases = vec![base.clone()];
    for (from, to) in [(101, 130), (50, 160), (300, 400), (2, 399)] {
        cases.push(Chain {
            fault: Some(Fault {
                from,
                to,
                capacity: 1,
            }),
            ..base.clone()
        });
    }
    for rounds in [170, 1000] {
        cases.push(Chain {
            rounds,
            ..base.clone()
        });
    }
    for demand in [2.5, 1.25, 0.3, 4.6, 0.1, 2.7, 3.3, 1.7] {
        cases.push(Chain {
            demand,
            ..base.clone()
        });
    }
    cases.push(Chain {
        periods: vec![(101, 160, 8.0)],
        fault: None,
        ..base.clone()
    });
    for c in &cases {
        check_chain(c)?;
    }
    Ok(())
}

#[test]
fn healthy_chains_call_once_per_request() -> TestResult {
    // With no fault and capacity >= demand every call is served at once:
    // calls = demand, amplification 1, success 1, nothing dropped.
    for layers in 1..=4 {
        for demand in [1.0f64, 2.5, 4.0, 7.25] {
            let c = Chain {
                tries: vec![3; layers],
                spacing: 4,
                capacity: demand.ceil() as u64,
                demand,
                periods: vec![],
                fault: None,
                rounds: 300,
            };
            let s = load_text("healthy.squall", &c.text())?;
            let study = run_study(&s, vec![], None)?;
            let run = RunKey::Variant(0);
            let obs = &study.runs[&run].obs;
            let db = node(&s, "db");
            assert_eq!(obs.nodes[db].calls, obs.arrivals, "{c:?}: calls per round");
            assert_eq!(obs.nodes[db].ok, obs.arrivals, "{c:?}: served per round");
            let all = window(&s, "all");
            let m = |metric| eval_metric(&study, run, all, Some(db), metric);
            assert_eq!(m(Metric::Amplification), Some(1.0), "{c:?}");
            assert_eq!(m(Metric::SuccessRate), Some(1.0), "{c:?}");
            let per_round = eval_metric(&study, run, all, None, Metric::EdgeRate);
            assert_eq!(m(Metric::CallRate), per_round, "{c:?}");
            // The accumulator: after n rounds floor(n * demand) have entered.
            assert_eq!(obs.accounting.entered, (300.0 * demand).floor() as u64);
            assert_eq!(obs.accounting.dropped, 0, "{c:?}");
            assert_eq!(obs.accounting.in_flight, 0, "{c:?}");
        }
    }
    Ok(())
}

#[test]
fn a_dead_dependency_sees_tries_to_the_power_of_layers() -> TestResult {
    // Capacity 0 for the whole run: k layers of t tries make exactly t^k
    // calls per request at the bottom, and the request is dropped after
    // (t^k - 1) * spacing rounds.
    for layers in 1..=4u32 {
        for tries in 1..=3u32 {
            for spacing in [1u64, 3] {
                let calls = u64::from(tries.pow(layers));
                let life = (calls - 1) * spacing;
                let rounds = life + 20;
                let c = Chain {
                    tries: vec![tries; layers as usize],
                    spacing,
                    capacity: 12,
                    demand: 0.0,
                    periods: vec![(1, 1, 1.0)],
                    fault: Some(Fault {
                        from: 1,
                        to: rounds,
                        capacity: 0,
                    }),
                    rounds,
                };
                let what = format!("{layers} layers x {tries} tries, spacing {spacing}");
                let s = load_text("dead.squall", &c.text())?;
                let study = run_study(&s, vec![], None)?;
                let run = RunKey::Variant(0);
                let obs = &study.runs[&run].obs;
                let db = node(&s, "db");
                let all = window(&s, "all");
                let m = |n, metric| eval_metric(&study, run, all, n, metric);
                assert_eq!(m(Some(db), Metric::Calls), Some(calls as f64), "{what}");
                assert_eq!(m(Some(db), Metric::Unique), Some(1.0), "{what}");
                assert_eq!(
                    m(Some(db), Metric::Amplification),
                    Some(calls as f64),
                    "{what}"
                );
                assert_eq!(m(None, Metric::Dropped), Some(1.0), "{what}");
                // The calls come every `spacing` rounds, the drop with the last.
                let at: Vec<u64> = (1..=rounds)
                    .filter(|&t| obs.nodes[db].calls[t as usize] > 0)
                    .collect();
                let want: Vec<u64> = (0..calls).map(|i| 1 + i * spacing).collect();
                assert_eq!(at, want, "{what}: rounds with a call");
                assert_eq!(
                    obs.dropped[(1 + life) as usize],
                    1,
                    "{what}: dropped at 1 + {life}"
                );
                assert_eq!(
                    eval_measure(&study, run, "bound"),
                    Some(calls as f64),
                    "{what}: call_bound = product of tries"
                );
            }
        }
    }

    // With steady demand every request is dropped exactly `life` rounds
    // after it entered.
    let c = Chain {
        tries: vec![2, 3],
        spacing: 2,
        capacity: 12,
        demand: 2.5,
        periods: vec![],
        fault: Some(Fault {
            from: 1,
            to: 200,
            capacity: 0,
        }),
        rounds: 200,
    };
    let (trace, _) = check_chain(&c)?;
    let life = (2 * 3 - 1) * 2;
    for t in 0..200 - life {
        assert_eq!(trace.dropped[t + life], trace.edge[t], "round {}", t + 1);
    }
    Ok(())
}

#[test]
fn call_bound_is_the_product_of_the_tries_above() -> TestResult {
    for tries in [vec![2, 3, 4], vec![5], vec![1, 1], vec![3, 1, 2, 2]] {
        let c = Chain {
            tries: tries.clone(),
            ..Chain::document()
        };
        let s = load_text("bound.squall", &c.text())?;
        let study = run_study(&s, vec![], None)?;
        let product: u32 = tries.iter().product();
        assert_eq!(
            eval_measure(&study, RunKey::Variant(0), "bound"),
            Some(f64::from(product)),
            "{tries:?}"
        );
    }
    Ok(())
}
