//! Clients on models built by hand: rates that change over time (a step,
//! a ramp) on both paths, closed loops against the interactive
//! response-time law and the machine-repairman model, and breakers kept
//! per client.
//!
//! The references are independent of squall: arithmetic by hand for the
//! step and the ramp and for per-client breakers, `X = N / (R + Z)` and the
//! finite-source (M/M/1//N) queue's closed form for the closed loops. Every
//! run is seeded; tolerances are argued where they are asserted.

use squall_engine::observe::TimedObservations;
use squall_engine::{Observations, SimError, Simulation};
use squall_lang::{
    Arrivals, Backoff, BreakerSpec, BudgetSpec, ClientsSpec, Clock, FaultSpec, LatencySpec,
    LibraryBreakerSpec, Model, NodeSpec, RatePeriod, ResponseSpec, RetrySpec, ServerSpec,
    SourceSpec,
};

const NS_PER_MS: f64 = 1e6;

fn node(name: &str, downstream: Option<usize>) -> NodeSpec {
    NodeSpec {
        name: name.into(),
        downstream,
        ..Default::default()
    }
}

/// A node with a latency distribution and a worker pool.
fn station(name: &str, latency: LatencySpec, workers: Option<u32>) -> NodeSpec {
    NodeSpec {
        server: Some(ServerSpec {
            latency: Some(latency),
            workers,
            queue: workers.map(|_| 1_000_000),
            ..Default::default()
        }),
        ..node(name, None)
    }
}

fn model(clock: Clock, ticks: u64, nodes: Vec<NodeSpec>, sources: Vec<SourceSpec>) -> Model {
    Model {
        name: "clients".into(),
        clock,
        start: 1,
        ticks,
        seed: 11,
        nodes,
        sources,
        ..Default::default()
    }
}

/// Runs a model; checks that every request (and, on the timed path,
/// every call) is accounted for.
fn run(m: &Model) -> Observations {
    let obs = Simulation::builder(m)
        .build()
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(obs.accounting.balances(), "{:?}", obs.accounting);
    if let Some(t) = &obs.timed {
        assert!(t.calls.balances(), "{:?}", t.calls);
    }
    obs
}

fn timed(obs: &Observations) -> &TimedObservations {
    obs.timed.as_ref().expect("a run that takes time")
}

fn ticks_with(series: &[u32]) -> Vec<u64> {
    (0..series.len() as u64)
        .filter(|&t| series[t as usize] > 0)
        .collect()
}

fn ramp_source(arrivals: Arrivals) -> SourceSpec {
    SourceSpec {
        name: "ramp".into(),
        entry: 0,
        arrivals,
        rate: 0.0,
        // 0 requests/tick at tick 1 up to 1 at tick 101: (t - 1) / 100.
        periods: vec![RatePeriod {
            from: 1,
            to: 101,
            rate: 0.0,
            to_rate: Some(1.0),
        }],
        ..Default::default()
    }
}

/// A uniform ramp sends the sum of its per-tick rates, sum_{k=0}^{100}
/// k/100 = 50.5, so 50 whole requests, on both paths; the zero-time path
/// sends them at the ticks where the running sum passes a whole number
/// (k(k+1)/200 >= n first at k = 14 for n = 1: tick 15).
#[test]
fn a_uniform_ramp_sends_its_integral_on_both_paths() {
    let zero = model(
        Clock::Ms,
        200,
        vec![node("db", None)],
        vec![ramp_source(Arrivals::Uniform)],
    );
    let obs = run(&zero);
    assert!(obs.timed.is_none());
    assert_eq!(obs.accounting.entered, 50);
    assert_eq!(ticks_with(&obs.arrivals)[0], 15);
    let mut slow = zero.clone();
    slow.nodes[0] = station("db", LatencySpec::Constant(0.5), None);
    let obs = run(&slow);
    assert!(obs.timed.is_some());
    assert_eq!(obs.accounting.entered, 50);
}

/// A Poisson ramp: the count over the ramp is Poisson with mean 50.5
/// (sd 7.1); summed over 40 seeds the mean is 2020 with sd 45, so the
/// bound of 180 (four sd) fails only if the ramp's rate is wrong.
#[test]
fn a_poisson_ramp_sends_its_integral_on_average() {
    for path in ["zero-time", "timed"] {
        let mut total = 0;
        for seed in 0..40 {
            let mut m = model(
                Clock::Ms,
                200,
                vec![node("db", None)],
                vec![ramp_source(Arrivals::Poisson)],
            );
            if path == "timed" {
                m.nodes[0] = station("db", LatencySpec::Constant(0.5), None);
            }
            m.seed = seed;
            total += run(&m).accounting.entered;
        }
        assert!(total.abs_diff(2020) < 180, "{path}: {total}");
    }
}

/// A uniform step on the timed path keeps what the old rate made up: at
/// 2 requests/s from tick 1 (its first tick counted at once, 0.002 of a
/// request at 1 ms) the first request comes at 500 ms, in tick 500 as on
/// the zero-time path; the rate steps to 4/s at 750 ms, when 250/500 of
/// the next request is made up, so the rest (0.5 of a request at
/// 0.004/ms) comes 125 ms later, at 875 ms, then every 250 ms: 1125 ms.
#[test]
fn a_uniform_step_keeps_the_share_made_up_before_it() {
    let source = SourceSpec {
        name: "step".into(),
        entry: 0,
        rate: 0.002,
        periods: vec![RatePeriod {
            from: 750,
            to: 10_000,
            rate: 0.004,
            to_rate: None,
        }],
        ..Default::default()
    };
    let mut m = model(
        Clock::Ms,
        1_200,
        vec![station("db", LatencySpec::Constant(0.5), None)],
        vec![source],
    );
    // Bins of one tick, so the per-bin series read as ticks.
    m.series_every = Some(1);
    let obs = run(&m);
    assert_eq!(ticks_with(&obs.arrivals), vec![500, 875, 1125]);
}

fn closed_loop(n: u32, think_ms: f64, service_ms: f64, ticks: u64) -> Model {
    let source = SourceSpec {
        name: "clients".into(),
        entry: 0,
        clients: Some(ClientsSpec {
            count: n,
            think: Some(LatencySpec::Exponential { mean: think_ms }),
            serial: None,
        }),
        ..Default::default()
    };
    model(
        Clock::Ms,
        ticks,
        vec![station(
            "server",
            LatencySpec::Exponential { mean: service_ms },
            Some(1),
        )],
        vec![source],
    )
}

/// The machine-repairman (M/M/1//N) closed form: with `r = S / Z`,
/// `p0 = 1 / sum_{k=0}^{N} N!/(N-k)! r^k`, utilisation `1 - p0`,
/// throughput `(1 - p0) / S`.
fn repairman(n: u32, z: f64, s: f64) -> (f64, f64) {
    let r = s / z;
    let mut term = 1.0;
    let mut sum = 1.0;
    for k in 1..=n {
        term *= f64::from(n - k + 1) * r;
        sum += term;
    }
    let u = 1.0 - 1.0 / sum;
    (u, u / s)
}

/// N clients that think (exponential, mean Z) and call one exponential
/// server (mean S) form the machine-repairman model.
///
/// * The interactive response-time law `X = N / (R + Z)` with R the
///   measured mean response time: each client alternates one think and
///   one response, so over a run of T it completes T / (R + Z) cycles up
///   to the one it is in at each end (at most 2N cycles in all, 0.01 % of
///   the ~170 000 here) and the think times' own mean, which differs from
///   Z by one standard error Z / sqrt(C) (0.23 % of Z, so about 0.2 % of
///   R + Z). The bound of 1 % is four standard errors.
/// * The closed form's utilisation and throughput: a closed network's
///   completions over a run have a relative spread of about
///   `1 / sqrt(C)` times a correlation factor of a few at this load
///   (utilisation 0.68): under 1 %. The bound of 3 % is three of those;
///   the run lands within 0.3 % (and the law within 0.1 %).
#[test]
fn a_closed_loop_follows_the_response_time_law_and_the_repairman_model() {
    let (n, z, s, ticks) = (10, 50.0, 4.0, 1_000_000u64);
    let m = closed_loop(n, z, s, ticks);
    let obs = run(&m);
    let t = timed(&obs);
    let ended = (obs.accounting.completed + obs.accounting.dropped) as f64;
    let x = ended / ticks as f64;
    let r = t.sources[0].run.mean / NS_PER_MS;
    let law = f64::from(n) / (r + z);
    let (u_exact, x_exact) = repairman(n, z, s);
    let u = t.nodes[0].run.in_service_mean;
    eprintln!("X {x} law {law} exact {x_exact}; U {u} exact {u_exact}; R {r}");
    assert!((x / law - 1.0).abs() < 0.01, "X {x} vs N/(R+Z) {law}");
    assert!((x / x_exact - 1.0).abs() < 0.03, "X {x} vs {x_exact}");
    assert!((u / u_exact - 1.0).abs() < 0.03, "U {u} vs {u_exact}");
    // At most N requests are ever open.
    assert!(obs.peak_in_flight <= u64::from(n), "{}", obs.peak_in_flight);
    assert!(obs.accounting.in_flight <= u64::from(n));
}

/// A closed loop whose server is twice as slow gets about half the
/// throughput once the server is the bottleneck (N large): X tends to
/// 1 / S. With 50 clients thinking 10 ms on a 2 ms and a 4 ms server the
/// closed form gives 0.4999 and 0.25 per ms; the bounds are the 3 % of
/// the test above.
#[test]
fn a_saturated_closed_loop_runs_at_the_servers_rate() {
    for s in [2.0, 4.0] {
        let m = closed_loop(50, 10.0, s, 200_000);
        let obs = run(&m);
        let x = (obs.accounting.completed + obs.accounting.dropped) as f64 / 200_000.0;
        let (_, x_exact) = repairman(50, 10.0, s);
        assert!(
            (x / x_exact - 1.0).abs() < 0.03,
            "S {s}: X {x} vs {x_exact}"
        );
    }
}

fn down_dependency(clients: Option<u32>) -> Model {
    let entry = NodeSpec {
        breaker: Some(BreakerSpec {
            threshold: 3,
            cooldown: 1_000,
            probes: 1,
            per_path: false,
        }),
        ..node("client", Some(1))
    };
    let source = SourceSpec {
        name: "users".into(),
        entry: 0,
        rate: 1.0,
        clients: clients.map(|count| ClientsSpec {
            count,
            think: None,
            serial: None,
        }),
        ..Default::default()
    };
    let mut m = model(
        Clock::Round,
        20,
        vec![entry, node("db", None)],
        vec![source],
    );
    m.faults = vec![FaultSpec {
        name: "down".into(),
        node: 1,
        from: 1,
        to: 20,
        fail: Some(ResponseSpec::Status {
            code: 503,
            retry_after: None,
        }),
        ..Default::default()
    }];
    m
}

/// By hand: one request a tick against a dependency that is down, a
/// breaker that opens after 3 consecutive failures. One breaker for all
/// opens after ticks 1, 2, 3: db sees 3 calls. Two clients in turn
/// (client 0 at odd ticks, 1 at even) each open after their own third
/// failure, at ticks 5 and 6: db sees 6. Each request still counts once.
#[test]
fn each_client_has_its_own_breaker() {
    let shared = run(&down_dependency(None));
    assert_eq!(ticks_with(&shared.nodes[1].calls), vec![1, 2, 3]);
    let own = run(&down_dependency(Some(2)));
    assert_eq!(ticks_with(&own.nodes[1].calls), vec![1, 2, 3, 4, 5, 6]);
    assert_eq!(own.accounting.entered, 20);
    assert_eq!(own.accounting.dropped, 20);
    // One client is one breaker: the same as sharing.
    let one = run(&down_dependency(Some(1)));
    assert_eq!(one.nodes[1].calls, shared.nodes[1].calls);
}

/// 200 clients, 10 requests/s each (Poisson, 2/ms in all), each with its
/// own resilience4j breaker (count window 10, opening at 50 % once it
/// holds 5, open 5 s, one half-open probe) in front of a dependency down
/// from 10 s to 30 s; `jitter` stretches each open time by 0.5 .. 1.5.
fn herd(jitter: f64, seed: u64) -> Model {
    let entry = NodeSpec {
        library_breaker: Some(LibraryBreakerSpec::Resilience4j {
            window_calls: Some(10),
            window: 0,
            bucket: 1_000,
            minimum_calls: 5,
            failure_rate: 50.0,
            slow_call_rate: 100.0,
            slow_call_duration: 60_000,
            wait_open: 5_000,
            open_jitter: jitter,
            half_open_calls: 1,
            automatic: false,
        }),
        ..node("client", Some(1))
    };
    let source = SourceSpec {
        name: "users".into(),
        entry: 0,
        arrivals: Arrivals::Poisson,
        rate: 2.0,
        clients: Some(ClientsSpec {
            count: 200,
            think: None,
            serial: None,
        }),
        ..Default::default()
    };
    let mut m = model(
        Clock::Ms,
        40_000,
        vec![entry, node("db", None)],
        vec![source],
    );
    m.seed = seed;
    m.faults = vec![FaultSpec {
        name: "down".into(),
        node: 1,
        from: 10_000,
        to: 29_999,
        fail: Some(ResponseSpec::Status {
            code: 503,
            retry_after: None,
        }),
        ..Default::default()
    }];
    m
}

/// The busiest 100 ms bin of `calls[from..to]` over the mean bin.
fn peak_to_mean(calls: &[u32], from: usize, to: usize) -> f64 {
    let bins: Vec<u64> = calls[from..to]
        .chunks(100)
        .map(|c| c.iter().map(|&x| u64::from(x)).sum())
        .collect();
    let mean = bins.iter().sum::<u64>() as f64 / bins.len() as f64;
    bins.iter().copied().max().unwrap_or(0) as f64 / mean
}

/// The synchronized herd (document 003): breakers that open together and
/// stay open exactly 5 s probe the dead dependency in bursts; jitter on
/// the open time spreads them. Measured on the zero-time path as the peak
/// to mean of the dependency's calls per 100 ms from 12 s (every breaker
/// open) to 30 s, over five seeds.
///
/// Tolerance. With jitter, a round of 200 probes is spread over the
/// 5 s of jitter (and more each round); 3.5 rounds of a mean 5.1 s fit in
/// the 18 s, about 700 probes, so the 180 bins hold a nearly Poisson count
/// of mean 3.9. The ratio passes 4 only if a bin reaches 16: 4e-6 per bin,
/// under 0.1 % over 180 bins (the runs give 2.4 to 3.2). Without jitter a
/// round falls within the spread of the clients' fifth failures (a gamma
/// of shape 5 and mean 0.5 s, sd 0.22 s) plus each round's wait for the
/// next call: about a seventh of it in the busiest 100 ms, some 28 of a
/// mean 3.3, a ratio of 8 (the runs give 11 to 12). The asserted bounds:
/// above 6 without jitter, below 4 with it, and a fall by more than half
/// on every seed.
#[test]
fn jitter_on_the_open_time_flattens_the_herd() {
    for seed in 1..=5 {
        let fixed = run(&herd(0.0, seed));
        let jittered = run(&herd(0.5, seed));
        let a = peak_to_mean(&fixed.nodes[1].calls, 12_000, 30_000);
        let b = peak_to_mean(&jittered.nodes[1].calls, 12_000, 30_000);
        eprintln!("seed {seed}: fixed {a:.2}, jittered {b:.2}");
        assert!(a > 6.0, "seed {seed}: fixed {a}");
        assert!(b < 4.0, "seed {seed}: jittered {b}");
        assert!(b < 0.5 * a, "seed {seed}: fixed {a}, jittered {b}");
        // Both populations are cut off while the dependency is down, and
        // both carry their full load once it is back and they have closed.
        let steady = |o: &Observations| o.nodes[1].calls[35_000..40_000].iter().sum::<u32>();
        for o in [&fixed, &jittered] {
            assert!(steady(o).abs_diff(10_000) < 500, "{}", steady(o));
        }
    }
}

/// A gRPC retry budget at the entry node, kept per client, by hand: one
/// request a tick, every try fails, two tries a request. gRPC A6: a bucket
/// of 10 loses a token at every failure (the last try's too) and allows a
/// retry while it holds more than 5 after that. One bucket: request 1
/// fails (9, retry), fails (8); request 2 fails (7, retry), fails (6);
/// request 3 fails (5: refused), and nothing ever refills it: 2 retries.
/// Two clients in turn each run that arithmetic on a bucket of their own:
/// 4 retries. One client is one bucket: 2.
#[test]
fn each_client_has_its_own_retry_budget() {
    let build = |clients: Option<u32>| {
        let entry = NodeSpec {
            retry: Some(RetrySpec::new(2, Backoff::Fixed { wait: 0 })),
            budget: Some(BudgetSpec::Grpc {
                max_tokens: 10,
                token_ratio: 0.1,
            }),
            ..node("client", Some(1))
        };
        let mut m = down_dependency(clients);
        m.nodes[0] = entry;
        m
    };
    let retries = |o: &Observations| {
        o.nodes[1].calls.iter().map(|&c| u64::from(c)).sum::<u64>() - o.accounting.entered
    };
    let shared = run(&build(None));
    let own = run(&build(Some(2)));
    assert_eq!(retries(&shared), 2);
    assert_eq!(retries(&own), 4);
    assert_eq!(retries(&run(&build(Some(1)))), 2);
}

/// A ramp's end rate counts toward the source's peak: a ramp to an
/// absurd rate is refused before the run, like a step to it.
#[test]
fn a_ramp_to_an_absurd_rate_is_refused() {
    let mut m = model(
        Clock::Ms,
        200,
        vec![node("db", None)],
        vec![ramp_source(Arrivals::Uniform)],
    );
    m.sources[0].periods[0].to_rate = Some(1e18);
    let err = Simulation::builder(&m).build().map(|_| ()).unwrap_err();
    assert!(matches!(err, SimError::RateTooLarge { .. }), "{err}");
}
