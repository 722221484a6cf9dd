//! Sending studies (document 004's constructs): a pool of senders, a
//! provider with a rate ceiling, the naive and the classified client.
//! Every expected value here is derived from the rules in
//! `squall_engine::sending`, not read off a run.

use squall_engine::sending::*;
use squall_lang::Clock;

use ProviderCode::{Http, Protocol};

const MINUTE: u64 = 60_000;

/// One hour at `clock ms`: `records` at once, a pool sending `pool` per
/// second against a provider accepting `ceiling` per second; `bad` of the
/// records are genuinely bad.
fn study(records: u64, pool: f64, ceiling: f64, bad: f64, client: ClientSpec) -> SendSpec {
    SendSpec {
        name: "outbox".into(),
        clock: Clock::Ms,
        ticks: 60 * MINUTE,
        seed: 7,
        bin: MINUTE,
        records: RecordsSpec {
            count: records,
            rate: None,
            batch: None,
        },
        feed: None,
        pool: PoolSpec {
            senders: 8,
            rate: pool / 1000.0,
            burst: 1.0,
            latency: 80.0,
            window_cap: None,
        },
        provider: ProviderSpec {
            name: "sms".into(),
            ceiling: ceiling / 1000.0,
            burst: 5.0,
            success: Http(200),
            throttles: vec![(Http(429), 0.7), (Protocol(0x58), 0.3)],
            retry_after: RetryAfterForm::Seconds,
            bad_share: bad,
            bad_codes: vec![Http(400)],
            unknown_share: 0.0,
            unknown_code: Http(418),
        },
        client,
        adaptive: None,
    }
}

fn naive() -> ClientSpec {
    ClientSpec::Naive {
        success: vec![CodeMatch::Exact(Http(200))],
    }
}

fn classified() -> ClassifiedSpec {
    let mut rules = vec![
        (CodeMatch::Exact(Http(200)), CodeClass::Success),
        (CodeMatch::Exact(Http(429)), CodeClass::Retryable),
        (CodeMatch::HttpRange(500, 599), CodeClass::Retryable),
        (CodeMatch::Exact(Protocol(0x58)), CodeClass::Retryable),
        (CodeMatch::Exact(Protocol(0x14)), CodeClass::Retryable),
    ];
    for s in [400, 401, 403, 404, 422] {
        rules.push((CodeMatch::Exact(Http(s)), CodeClass::Terminal));
    }
    ClassifiedSpec {
        classifier: Classifier { rules },
        throttles: vec![
            CodeMatch::Exact(Http(429)),
            CodeMatch::Exact(Protocol(0x58)),
            CodeMatch::Exact(Protocol(0x14)),
        ],
        max_attempts: 8,
        unknown_attempts: 2,
        max_age: None,
        jitter_base: 500.0,
        jitter_cap: 60_000.0,
        honor_retry_after: true,
    }
}

fn aimd() -> AdaptiveSpec {
    AdaptiveSpec::Aimd(AimdSpec {
        threshold: 0.05,
        decrease: 0.5,
        step: 0.5,
        every: 1.0,
        window: 5.0,
        min: 1.0,
        max: 1000.0,
    })
}

fn throttles(o: &SendObservations) -> u64 {
    o.attempts.iter().filter(|a| a.throttled).count() as u64
}

/// Every record's logged attempts, checked against the state machine.
fn assert_legal(machine: Machine, o: &SendObservations) {
    if let Err((r, e)) = o.check_legal(machine) {
        panic!("record {r}: {e:?}");
    }
}

/// Nothing is lost: every record is in exactly one state, and the states
/// add up to the records created.
fn assert_conserved(o: &SendObservations, records: u64) {
    assert_eq!(o.states.created, records);
    assert_eq!(o.states.accounted(), records, "{:?}", o.states);
    let sent_ok = o
        .attempts
        .iter()
        .filter(|a| a.status == SendState::Submitted)
        .count() as u64;
    assert_eq!(sent_ok, o.states.submitted);
    let delivered: u64 = o.bins.iter().map(|b| b.delivered).sum();
    assert_eq!(delivered, o.states.submitted);
}

/// Ten minutes, a backlog of 9000 records, a pool at 18/s against a
/// ceiling of 12.5/s, one record in 800 bad.
fn ten_minutes(client: ClientSpec, adaptive: Option<AdaptiveSpec>) -> SendSpec {
    let mut s = study(9000, 18.0, 12.5, 1.0 / 800.0, client);
    s.ticks = 10 * MINUTE;
    s.adaptive = adaptive;
    s
}

#[test]
fn the_documents_shape_naive_against_fixed() {
    let naive_run = run_sending(&ten_minutes(naive(), None)).unwrap();
    let aimd_run = run_sending(&ten_minutes(
        ClientSpec::Classified(classified()),
        Some(aimd()),
    ))
    .unwrap();
    let aws_run = run_sending(&ten_minutes(
        ClientSpec::Classified(classified()),
        Some(AdaptiveSpec::AwsAdaptive),
    ))
    .unwrap();
    let bad = 9000 / 800; // spread evenly: exactly floor(9000 / 800)
    for o in [&naive_run, &aimd_run, &aws_run] {
        assert_conserved(o, 9000);
    }
    assert_legal(Machine::Naive, &naive_run);
    assert_legal(Machine::Classified, &aimd_run);
    assert_legal(Machine::Classified, &aws_run);

    // The naive client tries each record once and drains the queue at the
    // pool's rate: 9000 / 18 = 500 s, then idles.
    assert_eq!(naive_run.attempts.len(), 9000);
    assert_eq!(naive_run.states.queued + naive_run.states.pending, 0);
    // Every throttle is a permanent failure there, plus the bad records
    // that got past the ceiling.
    let n = naive_run.states;
    assert!(n.rejected >= throttles(&naive_run) && n.rejected <= throttles(&naive_run) + bad);

    for fixed in [&aimd_run, &aws_run] {
        let f = fixed.states;
        // Delivered rises while attempts fall.
        assert!(f.submitted > n.submitted, "{f:?} vs {n:?}");
        assert!(fixed.attempts.len() < naive_run.attempts.len());
        // Permanent failures fall to the genuinely bad records (those not
        // yet tried are still queued).
        assert!(f.failed <= bad && f.failed + 2 >= bad * (f.created - f.queued) / f.created);
        assert_eq!(f.rejected, 0);
        // Throttles fall to a small share.
        let share = throttles(fixed) as f64 / fixed.attempts.len() as f64;
        assert!(share < 0.05, "throttle share {share}");
        assert!(throttles(fixed) * 10 < throttles(&naive_run));
    }
    // AWS adaptive's throttles are steady: every full minute within a few
    // of the mean.
    let per_minute: Vec<u64> = aws_run.bins.iter().map(|b| b.throttled).collect();
    let mean = per_minute.iter().sum::<u64>() as f64 / per_minute.len() as f64;
    assert!(
        per_minute
            .iter()
            .all(|&t| (t as f64 - mean).abs() <= 0.5 * mean + 2.0),
        "{per_minute:?}"
    );
}

#[test]
fn a_pool_below_the_ceiling_never_throttles() {
    // The pool's bucket spaces attempts at least 1 / pool apart; with
    // pool < ceiling the provider gains more than a token between any two.
    for (pool, ceiling) in [(5.0, 12.5), (12.0, 12.5), (1.0, 2.0)] {
        let mut s = study(20_000, pool, ceiling, 0.01, naive());
        s.ticks = 5 * MINUTE;
        let o = run_sending(&s).unwrap();
        assert_eq!(throttles(&o), 0, "pool {pool} ceiling {ceiling}");
        // And it sends at its own rate: pool * 300 s, plus its first token.
        let expected = (pool * 300.0) as usize + 1;
        assert!(
            o.attempts.len().abs_diff(expected) <= 1,
            "{} vs {expected}",
            o.attempts.len()
        );
        assert_conserved(&o, 20_000);
    }
}

#[test]
fn deliveries_per_minute_never_exceed_the_ceiling() {
    // At most ceiling * 60 s per minute, plus the burst in the first.
    for (pool, ceiling, senders) in [(18.0, 12.5, 8), (100.0, 3.0, 64), (40.0, 20.0, 2)] {
        let mut s = study(
            20_000,
            pool,
            ceiling,
            0.0,
            ClientSpec::Classified(classified()),
        );
        s.ticks = 5 * MINUTE;
        s.pool.senders = senders;
        let o = run_sending(&s).unwrap();
        for (i, b) in o.bins.iter().enumerate() {
            let cap = ceiling * 60.0 + if i == 0 { 5.0 } else { 0.0 } + 1.0;
            assert!(
                b.delivered as f64 <= cap,
                "minute {i}: {} > {cap}",
                b.delivered
            );
        }
        // Senders with latency cap the pool too: 2 senders at 80 ms make
        // at most 25 attempts a second.
        let per_s = (senders as f64 / 0.080).min(pool);
        let max = (per_s * 300.0) as usize + senders as usize + 1;
        assert!(o.attempts.len() <= max);
        assert_conserved(&o, 20_000);
        assert_legal(Machine::Classified, &o);
    }
}

#[test]
fn bad_record_shares_give_exact_permanent_failures() {
    // A pool below the ceiling: nothing throttles, so every bad record is
    // tried and fails, exactly floor(records * share) of them.
    for share in [0.0, 0.001, 0.05, 0.5] {
        let mut s = study(
            3000,
            10.0,
            12.5,
            share,
            ClientSpec::Classified(classified()),
        );
        s.ticks = 10 * MINUTE;
        let o = run_sending(&s).unwrap();
        let expected = (3000.0 * share).floor() as u64;
        assert_eq!(o.states.failed, expected, "share {share}");
        assert_eq!(o.states.submitted, 3000 - expected);
        assert_conserved(&o, 3000);
    }
}

#[test]
fn caps_defer_and_unknown_codes_stop_early() {
    // Every attempt answers an unknown code: after `unknown_attempts` the
    // record is deferred, never failed.
    let mut s = study(100, 10.0, 12.5, 0.0, ClientSpec::Classified(classified()));
    s.ticks = 10 * MINUTE;
    s.provider.unknown_share = 1.0;
    let o = run_sending(&s).unwrap();
    assert_eq!(o.states.deferred, 100);
    assert_eq!(o.attempts.len(), 200);
    assert_legal(Machine::Classified, &o);
    // A ceiling of almost nothing: records retry up to the cap, then defer.
    let mut s = study(20, 10.0, 0.001, 0.0, ClientSpec::Classified(classified()));
    s.ticks = 60 * MINUTE;
    s.provider.burst = 1.0;
    let o = run_sending(&s).unwrap();
    assert!(o.attempts.iter().all(|a| a.attempt <= 8));
    assert!(o.states.deferred > 0);
    assert_conserved(&o, 20);
    assert_legal(Machine::Classified, &o);
}

#[test]
fn same_input_same_attempts() {
    let s = ten_minutes(ClientSpec::Classified(classified()), Some(aimd()));
    assert_eq!(run_sending(&s).unwrap(), run_sending(&s).unwrap());
}

#[test]
fn an_hour_of_aws_adaptive_is_linear_work() {
    // The document's hour: 48 000 records at once, the pool faster than
    // the ceiling, AWS adaptive gating. The backlog lasts the whole hour,
    // so every minute does the same kind of work: doubling the length may
    // at most double the events. Each attempt is one answer, at most one
    // coming-due, and a wake-up of the pool between tokens: a few events
    // an attempt, whatever the length. (A wake-up that a sooner one
    // replaced used to stay scheduled and re-arm itself every time it
    // fired, so wake-ups piled up with every rate change: 29 million
    // events for the first 7 700 attempts.)
    let run = |minutes: u64| {
        let mut s = study(
            48_000,
            18.0,
            12.5,
            1.0 / 800.0,
            ClientSpec::Classified(classified()),
        );
        s.ticks = minutes * MINUTE;
        s.adaptive = Some(AdaptiveSpec::AwsAdaptive);
        run_sending(&s).unwrap()
    };
    let half = run(30);
    let hour = run(60);
    assert_conserved(&hour, 48_000);
    assert_legal(Machine::Classified, &hour);
    for o in [&half, &hour] {
        let attempts = o.attempts.len() as u64;
        assert!(
            o.events <= 3 * attempts,
            "{} events, {attempts} attempts",
            o.events
        );
    }
    assert!(hour.attempts.len() > 40_000, "{}", hour.attempts.len());
    assert!(
        hour.events * 10 <= half.events * 21,
        "{} vs {}",
        hour.events,
        half.events
    );
}

#[test]
fn the_window_cap_holds_the_whole_pool() {
    // A pool that could send 18/s (1 080 a minute) under a cap of 300
    // attempts per minute, below a ceiling it never reaches: every minute
    // sends exactly the cap, retries and first tries together.
    let mut s = study(5000, 18.0, 50.0, 0.0, ClientSpec::Classified(classified()));
    s.ticks = 5 * MINUTE;
    s.pool.window_cap = Some(WindowCap {
        attempts: 300,
        window: MINUTE as f64,
    });
    let o = run_sending(&s).unwrap();
    // Attempts by the cap's own windows (the run's last instant, 5:00,
    // opens a sixth one).
    let unit = o.units_per_tick * MINUTE;
    let mut per_window = vec![0u64; 6];
    for a in &o.attempts {
        per_window[(a.at / unit) as usize] += 1;
    }
    assert_eq!(per_window, vec![300, 300, 300, 300, 300, 1]);
    assert_conserved(&o, 5000);
    // A cap of 20 per second with windows of a second: never more than 20
    // in any second, and the pool's own 18/s is the tighter limit.
    s.records.count = 10_000;
    s.pool.window_cap = Some(WindowCap {
        attempts: 20,
        window: 1000.0,
    });
    let o = run_sending(&s).unwrap();
    let mut per_s = vec![0u64; 301];
    for a in &o.attempts {
        per_s[(a.at / (o.units_per_tick * 1000)) as usize] += 1;
    }
    assert!(per_s.iter().all(|&n| n <= 20), "{per_s:?}");
    // 18 a second for 300 s, and perhaps one at the last instant.
    assert!(o.attempts.len().abs_diff(18 * 300) <= 1);
}

/// The run's end (`sending/run.rs`, "Its end"): a record created exactly
/// `ticks` ticks after time 0 is still created and tried; the loop that
/// carries the senders runs on to `ticks + 1`, but nothing after `ticks`
/// happens. Hand-worked: records at 1 per tick (`clock s`, 1/s) start at
/// time 0, so over `ticks = 10` records 0..=10 are created at ticks
/// 0..=10, eleven of them, and the twelfth (tick 11) never is. Each is
/// tried when it is created (8 idle senders, a pool of 10/s with burst 1
/// and a ceiling of 10/s: a token per record), and answered after 80 ms,
/// so the last one, tried at tick 10, is still in flight at the end.
/// Integer counts: exact.
#[test]
fn the_run_ends_at_its_last_tick_inclusive() {
    let mut s = study(100, 10_000.0, 10_000.0, 0.0, naive());
    s.clock = Clock::S;
    s.ticks = 10;
    s.bin = 10;
    s.records.rate = Some(1.0);
    s.pool.rate = 10.0;
    s.pool.latency = 0.08;
    s.provider.ceiling = 10.0;
    let o = run_sending(&s).unwrap();
    assert_eq!(o.states.created, 11);
    assert_eq!(o.attempts.len(), 11);
    assert_eq!(o.states.submitted, 10);
    assert_eq!(o.states.in_flight, 1);
}
