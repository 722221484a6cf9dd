//! The engine on models built by hand: ordering within a tick, backoff
//! waits, faults, several sources, in-flight accounting and model errors.

use squall_engine::{Observations, SimError, Simulation};
use squall_lang::{
    Arrivals, Backoff, Clock, FaultSpec, Model, NodeSpec, RatePeriod, RetrySpec, SourceSpec,
    WindowSpec,
};

fn node(name: &str, downstream: Option<usize>, capacity: Option<u64>) -> NodeSpec {
    NodeSpec {
        name: name.into(),
        downstream,
        capacity,
        ..Default::default()
    }
}

fn retrying(name: &str, downstream: usize, attempts: u32, backoff: Backoff) -> NodeSpec {
    NodeSpec {
        retry: Some(RetrySpec::new(attempts, backoff)),
        ..node(name, Some(downstream), None)
    }
}

fn source(name: &str, entry: usize, rate: f64, periods: &[(u64, u64, f64)]) -> SourceSpec {
    SourceSpec {
        name: name.into(),
        entry,
        arrivals: Arrivals::Uniform,
        rate,
        periods: periods
            .iter()
            .map(|&(from, to, rate)| RatePeriod {
                from,
                to,
                rate,
                to_rate: None,
            })
            .collect(),
        ..Default::default()
    }
}

fn model(ticks: u64, nodes: Vec<NodeSpec>, sources: Vec<SourceSpec>) -> Model {
    Model {
        name: "hand-built".into(),
        clock: Clock::Round,
        ticks,
        seed: 1,
        nodes,
        sources,
        faults: vec![],
        windows: vec![],
        start: 1,
        ..Default::default()
    }
}

fn fault(name: &str, node: usize, from: u64, to: u64, capacity: Option<u64>) -> FaultSpec {
    FaultSpec {
        name: name.into(),
        node,
        from,
        to,
        capacity,
        ..Default::default()
    }
}

/// Runs a model and checks that every request is accounted for.
fn run(m: &Model) -> Observations {
    let obs = Simulation::builder(m)
        .build()
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("{}: {e}", m.name));
    let a = obs.accounting;
    assert!(a.balances(), "accounting: {a:?}");
    let arrivals: u64 = obs.arrivals.iter().map(|&x| u64::from(x)).sum();
    assert_eq!(a.entered, arrivals);
    obs
}

/// Ticks at which `series` is non-zero.
fn ticks_with(series: &[u32]) -> Vec<u64> {
    (1..series.len())
        .filter(|&t| series[t] > 0)
        .map(|t| t as u64)
        .collect()
}

#[test]
fn within_a_tick_the_oldest_request_is_served_first() {
    // db serves 1 call a tick; api tries twice, 1 tick apart. Tick 1: A and
    // B enter, A is served, B refused. Tick 2: C enters; B's retry was
    // scheduled before C's arrival, so B is served and C refused. Tick 3:
    // C's retry is served. Newest-first would drop B at tick 2.
    let m = model(
        5,
        vec![
            retrying("api", 1, 2, Backoff::Fixed { wait: 1 }),
            node("db", None, Some(1)),
        ],
        vec![source("users", 0, 0.0, &[(1, 1, 2.0), (2, 2, 1.0)])],
    );
    let obs = run(&m);
    assert_eq!(obs.arrivals, [0, 2, 1, 0, 0, 0]);
    assert_eq!(obs.nodes[1].calls, [0, 2, 2, 1, 0, 0]);
    assert_eq!(obs.completed, [0, 1, 1, 1, 0, 0]);
    assert_eq!(obs.dropped, [0; 6]);
    assert_eq!(obs.accounting.completed, 3);
}

#[test]
fn sources_take_turns_in_declaration_order() {
    // Two sources meet one capacity: the first declared goes first every
    // tick. web and mobile both call db, which serves 5 a tick.
    let mut m = model(
        10,
        vec![
            node("web", Some(2), None),
            node("mobile", Some(2), None),
            node("db", None, Some(5)),
        ],
        vec![
            source("browsers", 0, 3.0, &[]),
            source("phones", 1, 4.0, &[]),
        ],
    );
    m.windows = vec![WindowSpec {
        name: "all".into(),
        from: 1,
        to: 10,
    }];
    let obs = run(&m);
    for t in 1..=10 {
        assert_eq!(obs.arrivals[t], 7);
        assert_eq!(obs.nodes[0].calls[t], 3, "web");
        assert_eq!(obs.nodes[0].ok[t], 3, "web: all served");
        assert_eq!(obs.nodes[1].calls[t], 4, "mobile");
        assert_eq!(obs.nodes[1].ok[t], 2, "mobile gets what is left");
        assert_eq!(obs.nodes[2].calls[t], 7, "db sees both");
        assert_eq!(obs.nodes[2].refused[t], 2);
        assert_eq!(obs.dropped[t], 2);
    }
    assert_eq!(obs.window_unique[0], [30, 40, 70], "unique ids per node");
    assert_eq!(obs.accounting.completed, 50);
    assert_eq!(obs.accounting.dropped, 20);
}

/// The ticks at which a single request entering at tick 1 calls a dead
/// dependency through one service with `attempts` tries and `backoff`.
fn call_ticks(attempts: u32, backoff: Backoff, ticks: u64) -> (Vec<u64>, Vec<u64>) {
    let m = model(
        ticks,
        vec![
            retrying("api", 1, attempts, backoff),
            node("db", None, Some(0)),
        ],
        vec![source("one", 0, 0.0, &[(1, 1, 1.0)])],
    );
    let obs = run(&m);
    (ticks_with(&obs.nodes[1].calls), ticks_with(&obs.dropped))
}

#[test]
fn exponential_backoff_waits_grow_and_are_capped() {
    let doubling = Backoff::Exponential {
        base: 1,
        multiplier: 2.0,
        cap: None,
    };
    // Waits 1, 2, 4, 8.
    assert_eq!(
        call_ticks(5, doubling, 20),
        (vec![1, 2, 4, 8, 16], vec![16])
    );
    let capped = Backoff::Exponential {
        base: 1,
        multiplier: 2.0,
        cap: Some(3),
    };
    // Waits 1, 2, 3, 3.
    assert_eq!(call_ticks(5, capped, 20), (vec![1, 2, 4, 7, 10], vec![10]));
    let tripling = Backoff::Exponential {
        base: 2,
        multiplier: 3.0,
        cap: None,
    };
    // Waits 2, 6, 18.
    assert_eq!(call_ticks(4, tripling, 30), (vec![1, 3, 9, 27], vec![27]));
    // Fixed waits for comparison: 5, 5, 5.
    assert_eq!(
        call_ticks(4, Backoff::Fixed { wait: 5 }, 30),
        (vec![1, 6, 11, 16], vec![16])
    );
}

#[test]
fn a_retry_after_the_last_tick_leaves_the_request_in_flight() {
    // Doubling waits 1, 2, 4, 8: the fifth try would be at tick 16.
    let m = model(
        12,
        vec![
            retrying(
                "api",
                1,
                5,
                Backoff::Exponential {
                    base: 1,
                    multiplier: 2.0,
                    cap: None,
                },
            ),
            node("db", None, Some(0)),
        ],
        vec![source("one", 0, 0.0, &[(1, 1, 1.0)])],
    );
    let obs = run(&m);
    assert_eq!(ticks_with(&obs.nodes[1].calls), [1, 2, 4, 8]);
    assert_eq!(obs.accounting.in_flight, 1);
    assert_eq!(obs.accounting.dropped, 0);
    assert_eq!(obs.accounting.completed, 0);
}

#[test]
fn faults_change_capacity_only_while_they_last() {
    // db serves 3 a tick; `slow` cuts it to 1 over 4..6, `down` to 0 over
    // 6..8 (the later fault wins where they overlap), `noop` changes no
    // capacity. api never retries, so refused calls are dropped at once.
    let mut m = model(
        10,
        vec![node("api", Some(1), None), node("db", None, Some(3))],
        vec![source("users", 0, 3.0, &[])],
    );
    m.faults = vec![
        fault("slow", 1, 4, 6, Some(1)),
        fault("down", 1, 6, 8, Some(0)),
        fault("noop", 1, 9, 9, None),
    ];
    let obs = run(&m);
    assert_eq!(obs.nodes[1].ok, [0, 3, 3, 3, 1, 1, 0, 0, 0, 3, 3]);
    assert_eq!(obs.dropped, [0, 0, 0, 0, 2, 2, 3, 3, 3, 0, 0]);

    // A fault on a node without a capacity limits it only meanwhile.
    let mut m = model(
        6,
        vec![node("api", Some(1), None), node("db", None, None)],
        vec![source("users", 0, 5.0, &[])],
    );
    m.faults = vec![fault("cap", 1, 2, 3, Some(2))];
    let obs = run(&m);
    assert_eq!(obs.nodes[1].ok, [0, 5, 2, 2, 5, 5, 5]);
}

#[test]
fn retries_recover_once_the_fault_ends() {
    // api tries 3 times, 2 ticks apart; db is down over 1..3. The request
    // of tick 1 tries at 1, 3 (both refused) and 5 (served); the request of
    // tick 2 at 2 and 4 (served); no request is dropped.
    let mut m = model(
        8,
        vec![
            retrying("api", 1, 3, Backoff::Fixed { wait: 2 }),
            node("db", None, Some(10)),
        ],
        vec![source("users", 0, 0.0, &[(1, 2, 1.0)])],
    );
    m.faults = vec![fault("down", 1, 1, 3, Some(0))];
    let obs = run(&m);
    assert_eq!(obs.nodes[1].calls, [0, 1, 1, 1, 1, 1, 0, 0, 0]);
    assert_eq!(obs.completed, [0, 0, 0, 0, 1, 1, 0, 0, 0]);
    assert_eq!(obs.accounting.dropped, 0);
}

#[test]
fn poisson_sources_draw_their_own_streams_from_the_seed() {
    let mut m = model(
        200,
        vec![
            node("web", Some(2), None),
            node("mobile", Some(2), None),
            node("db", None, None),
        ],
        vec![
            source("browsers", 0, 3.0, &[]),
            source("phones", 1, 3.0, &[]),
        ],
    );
    for s in &mut m.sources {
        s.arrivals = Arrivals::Poisson;
    }
    let a = run(&m);
    let b = run(&m);
    assert_eq!(a, b, "the same seed gives the same run");
    assert_ne!(
        a.nodes[0].calls, a.nodes[1].calls,
        "each source has its own stream"
    );
    let other = Simulation::builder(&m)
        .seed(2)
        .build()
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_ne!(a.arrivals, other.arrivals, "another seed, other arrivals");
    let total: u32 = a.arrivals.iter().sum();
    assert!((1000..=1400).contains(&total), "about 6 a tick: {total}");
}

#[test]
fn bad_models_are_errors_not_panics() {
    let ok = || {
        model(
            10,
            vec![node("api", Some(1), None), node("db", None, Some(1))],
            vec![source("users", 0, 1.0, &[])],
        )
    };
    let err = |m: &Model| Simulation::builder(m).build().err();

    let mut m = ok();
    m.nodes[1].downstream = Some(0);
    assert!(
        matches!(err(&m), Some(SimError::Cycle { .. })),
        "{:?}",
        err(&m)
    );

    let mut m = ok();
    m.nodes[0].downstream = Some(7);
    assert!(matches!(err(&m), Some(SimError::BadNode { index: 7, .. })));

    let mut m = ok();
    m.sources[0].entry = 9;
    assert!(matches!(err(&m), Some(SimError::BadNode { index: 9, .. })));

    let mut m = ok();
    m.nodes[0].retry = Some(RetrySpec::new(0, Backoff::Fixed { wait: 1 }));
    assert!(matches!(err(&m), Some(SimError::NoAttempts { .. })));

    let mut m = ok();
    m.faults = vec![fault("late", 1, 5, 11, Some(0))];
    assert!(matches!(err(&m), Some(SimError::OutOfRun { to: 11, .. })));

    let mut m = ok();
    m.windows = vec![WindowSpec {
        name: "w".into(),
        from: 0,
        to: 3,
    }];
    assert!(matches!(err(&m), Some(SimError::OutOfRun { from: 0, .. })));

    assert!(err(&ok()).is_none());
}

/// Each capacity fault is found by its index in the model: a periodic fault
/// on another node, declared first, must not switch off a constant one.
#[test]
fn capacity_faults_are_matched_to_their_own_node() {
    use squall_lang::Periodic;
    let mut m = model(
        10,
        vec![node("api", Some(1), None), node("db", None, None)],
        vec![source("users", 0, 1.0, &[])],
    );
    let mut blip = fault("blip", 0, 1, 10, Some(0));
    blip.periodic = Some(Periodic {
        every: 5,
        phase: 0,
        step: 0,
    });
    m.faults = vec![blip, fault("down", 1, 1, 10, Some(0))];
    let obs = run(&m);
    // `db` refuses every call that reaches it: its fault is constant.
    let db = &obs.nodes[1];
    let (calls, refused): (u32, u32) = (db.calls.iter().sum(), db.refused.iter().sum());
    assert!(calls > 0);
    assert_eq!(refused, calls, "db refused {refused} of {calls}");
    // `api` refuses only at ticks 5 and 10, when its periodic fault strikes.
    assert_eq!(ticks_with(&obs.nodes[0].refused), vec![5, 10]);
}

#[test]
fn uniform_arrivals_send_exactly_the_decimal_rate() {
    let sent = |rate: f64, ticks: u64| -> u64 {
        let m = model(
            ticks,
            vec![node("api", None, None)],
            vec![source("u", 0, rate, &[])],
        );
        run(&m).accounting.entered
    };
    // As doubles, 0.1 added ten times is 0.9999999999999999.
    assert_eq!(sent(0.1, 10), 1);
    assert_eq!(sent(0.1, 100), 10);
    assert_eq!(sent(0.3, 10), 3);
}

#[test]
fn a_runaway_of_nested_retries_stops_at_the_work_budget_naming_the_multiplier() {
    // Ten layers of ten tries with no wait, against a bottom that fails every
    // call: 10^10 tries per request, hours of work without a budget.
    let layers = 10;
    let mut nodes: Vec<NodeSpec> = (0..layers)
        .map(|i| retrying(&format!("l{i}"), i + 1, 10, Backoff::Fixed { wait: 0 }))
        .collect();
    nodes.push(node("bottom", None, Some(1)));
    let mut m = model(5, nodes, vec![source("u", 0, 1.0, &[])]);
    m.faults = vec![fault("down", layers, 1, 5, Some(0))];
    let err = Simulation::builder(&m)
        .work_budget(10_000)
        .build()
        .and_then(|s| s.run())
        .err();
    match err {
        Some(SimError::WorkBudget {
            events,
            node,
            attempts,
            product,
            ..
        }) => {
            assert_eq!(events, 10_000 + 5);
            assert!(node.starts_with('l'), "{node}");
            assert_eq!(attempts, 10);
            assert_eq!(product, 1e10);
        }
        other => panic!("expected the work budget, got {other:?}"),
    }
    // Within the default budget an ordinary run is untouched.
    let ok = model(
        5,
        vec![node("api", None, None)],
        vec![source("u", 0, 1.0, &[])],
    );
    assert_eq!(run(&ok).accounting.entered, 5);
}

/// The ticks at which one request entering at tick `enter` calls a dead
/// dependency through one service retrying under `policy`.
fn call_ticks_under(policy: RetrySpec, enter: u64, ticks: u64) -> Vec<u64> {
    let m = model(
        ticks,
        vec![
            NodeSpec {
                retry: Some(policy),
                ..node("api", Some(1), None)
            },
            node("db", None, Some(0)),
        ],
        vec![source("one", 0, 0.0, &[(enter, enter, 1.0)])],
    );
    ticks_with(&run(&m).nodes[1].calls)
}

#[test]
fn a_retry_deadline_counts_from_the_first_try() {
    // First try at tick 3, waits of 2, deadline 6: a retry may start up to
    // tick 9 (3 + 6). From tick 0 it would stop after the try at tick 5.
    let policy = RetrySpec {
        deadline: Some(6),
        ..RetrySpec::new(10, Backoff::Fixed { wait: 2 })
    };
    assert_eq!(call_ticks_under(policy, 3, 30), [3, 5, 7, 9]);
}

#[test]
fn decorrelated_jitter_grows_from_the_previous_wait() {
    // Each wait is drawn from base..3 * previous: past the first, waits
    // above 3 * base (30) come only from a previous wait kept per loop.
    let policy = RetrySpec::new(
        8,
        Backoff::Decorrelated {
            base: 10,
            cap: None,
            rng: None,
        },
    );
    let calls = call_ticks_under(policy, 1, 10_000);
    let waits: Vec<u64> = calls.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(waits.len(), 7, "{calls:?}");
    assert!(waits.iter().all(|&w| w >= 10), "{waits:?}");
    assert!(waits.iter().any(|&w| w > 30), "{waits:?}");
}

/// Document 002's third model (scenarios/circuit-breaker.squall): three
/// consecutive failures open the breaker, a 5 s cool-down, one probe.
const BREAKER: &str = r#"scenario "breaker log" {
  clock ms
  run 0ms..12s
  chain app -> api
  service app { breaker { after 3 failures  cooldown 5s  probes 1 } }
  endpoint api { default { 503 until 11s then 200 } }
  source calls {
    enters app
    at [0ms, 200ms, 600ms, 900ms, 1500ms, 6000ms, 8000ms, 11500ms, 11800ms]
  }
  window all 0ms..12s
}
"#;

#[test]
fn the_breaker_log_is_kept_only_when_asked_and_changes_nothing_else() {
    use squall_engine::policy::breaker::State::{Closed, HalfOpen, Open};
    let s = squall_lang::load("breaker.squall", BREAKER).unwrap_or_else(|d| panic!("{d:?}"));
    let m = s.model_for(squall_lang::RunKey::Variant(0), &[]).unwrap();
    let run = |log: bool| {
        Simulation::builder(&m)
            .breaker_log(log)
            .build()
            .and_then(|s| s.run())
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let plain = run(false);
    assert!(plain.breakers.is_empty(), "no log unless asked");
    let mut logged = run(true);
    let log = std::mem::take(&mut logged.breakers);
    // Worked by hand: the third failure (600 ms) opens it; the cool-down
    // ends at 5 600 (dated then, though the breaker turns at the next
    // call); the 6 000 probe fails and reopens it; the cool-down ends at
    // 11 000; the 11 500 probe finds api back and closes it. 8 000 and
    // 900/1 500 are refused while open and change nothing.
    let changes: Vec<(u64, _, _)> = log[0]
        .changes
        .iter()
        .map(|c| (c.tick, c.from, c.to))
        .collect();
    assert_eq!(
        changes,
        vec![
            (600, Closed, Open),
            (5600, Open, HalfOpen),
            (6000, HalfOpen, Open),
            (11000, Open, HalfOpen),
            (11500, HalfOpen, Closed),
        ]
    );
    // Keeping the log changes no other observation.
    assert_eq!(plain, logged);
}
