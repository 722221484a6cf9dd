//! Work queues by hand: one consumer and one poison message, requeued at
//! once (the consumer spins: one receive per work time, exactly) or
//! redelivered after an exponential backoff and dead-lettered at the
//! receive cap (receive times from the backoff's arithmetic); and the
//! conservation of messages in random runs.

use squall_engine::observe::{TimedObservations, WorkQueueObservations};
use squall_engine::{Observations, Simulation};
use squall_lang::{
    Arrivals, Backoff, Clock, LatencySpec, Model, NodeSpec, Poison, Schedule, SourceSpec,
    WindowSpec, WorkQueueSpec,
};

const MS: u64 = 1_000_000;

fn queue(spec: WorkQueueSpec) -> NodeSpec {
    NodeSpec {
        name: "orders".into(),
        work_queue: Some(spec),
        ..Default::default()
    }
}

fn one_consumer(redeliver: Option<Backoff>, max_receives: Option<u32>) -> WorkQueueSpec {
    WorkQueueSpec {
        consumers: 1,
        work: Some(LatencySpec::Constant(10.0)),
        poison: Some(Poison::First(1)),
        redeliver,
        max_receives,
        dead_letter: max_receives.map(|_| "dlq".into()),
    }
}

fn at(times: Vec<u64>) -> SourceSpec {
    SourceSpec {
        name: "producer".into(),
        entry: 0,
        schedule: Schedule::At(times),
        ..Default::default()
    }
}

fn model(ticks: u64, seed: u64, node: NodeSpec, source: SourceSpec) -> Model {
    Model {
        name: "work queue".into(),
        clock: Clock::Ms,
        start: 1,
        ticks,
        seed,
        nodes: vec![node],
        sources: vec![source],
        windows: vec![WindowSpec {
            name: "early".into(),
            from: 1,
            to: 500,
        }],
        ..Default::default()
    }
}

/// Runs a model; checks that every request, call and message is accounted
/// for.
fn run(m: &Model) -> (Observations, TimedObservations, WorkQueueObservations) {
    let obs = Simulation::builder(m)
        .build()
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(obs.accounting.balances(), "{:?}", obs.accounting);
    let timed = obs.timed.clone().expect("a run that takes time");
    assert!(timed.calls.balances(), "{:?}", timed.calls);
    let q = timed.nodes[0].queue.clone().expect("a work queue");
    assert!(q.end.balances(), "{:?}", q.end);
    (obs, timed, q)
}

/// By hand: the poison message arrives at 1 ms; each receive works it for
/// 10 ms and fails, and requeued at once it is received again in the same
/// moment: receives at 1, 11, ..., 991 ms, the last one before the run's
/// end at 1001 ms. So 100 receives, 99 redeliveries, the message still
/// being worked at the end, and the two good messages behind it never
/// received.
#[test]
fn immediate_requeue_spins_one_receive_per_work_time() {
    let m = model(1000, 1, queue(one_consumer(None, None)), at(vec![1, 2, 3]));
    let (obs, _, q) = run(&m);
    assert_eq!(q.run.receives, 100);
    assert_eq!(q.run.redeliveries, 99);
    assert_eq!((q.run.done, q.run.dead_letters), (0, 0));
    assert_eq!(q.end.arrived, 3);
    assert_eq!((q.end.in_flight, q.end.queued, q.end.delayed), (1, 2, 0));
    assert_eq!(obs.accounting.in_flight, 3);
    // Window `early` (ticks 1..=500, up to 501 ms): receives at 1 + 10k
    // for k = 0..=49.
    assert_eq!(q.windows[0].receives, 50);
    // The poison message is the oldest all along: 1000 ms old at the end
    // (1001 ms), 500 ms at the end of `early`.
    assert_eq!(q.run.oldest_age, 1000 * MS);
    assert_eq!(q.windows[0].oldest_age, 500 * MS);
}

/// By hand, with `exponential 100ms x 2` and `max_receives 5`: receive
/// `n` fails 10 ms after it starts and the message is visible again
/// `100 * 2^(n-1)` ms later. Receives at 1, 11 + 100 = 111, 121 + 200 =
/// 321, 331 + 400 = 731, 741 + 800 = 1541; the fifth fails at 1551 ms and
/// the message moves to the dead-letter queue (the request is dropped
/// then, 1550 ms after it arrived). The good message at 2 ms is received
/// at 11 ms, while the poison one waits out its first backoff, and done at
/// 21 ms.
#[test]
fn backoff_and_cap_dead_letter_at_the_fifth_receive() {
    let backoff = Backoff::Exponential {
        base: 100,
        multiplier: 2.0,
        cap: Some(10_000),
    };
    let mut m = model(
        2000,
        1,
        queue(one_consumer(Some(backoff), Some(5))),
        at(vec![1, 2]),
    );
    // Bins of one tick, so the per-bin series read as ticks.
    m.series_every = Some(1);
    let (obs, t, q) = run(&m);
    assert_eq!(q.run.receives, 6);
    assert_eq!(q.run.redeliveries, 4);
    assert_eq!((q.run.done, q.run.dead_letters), (1, 1));
    assert_eq!(obs.completed[21], 1);
    assert_eq!(obs.dropped[1551], 1);
    assert_eq!(obs.nodes[0].failed[1551], 1);
    assert_eq!(obs.accounting.dropped, 1);
    assert_eq!(q.run.oldest_age, 1550 * MS);
    // In `early` (up to 501 ms): receives at 1, 11 (the good message), 111
    // and 321; redeliveries at 11, 121 and 331.
    assert_eq!((q.windows[0].receives, q.windows[0].redeliveries), (4, 3));
    assert_eq!(
        q.end,
        squall_engine::observe::QueueCounts {
            arrived: 2,
            done: 1,
            dead_lettered: 1,
            ..Default::default()
        }
    );
    // The dead-lettered message's time at the node: 1550 ms (the latency
    // histogram's bounded relative error).
    let max = t.nodes[0].run.latency.max as f64 / (1550 * MS) as f64;
    assert!((max - 1.0).abs() < 1e-2, "{max}");
}

/// Random runs (Poisson arrivals, a poison share, jittered redelivery,
/// several consumers, a cap or none): every message is done,
/// dead-lettered, queued, delayed or being worked at the end, and the
/// queue's counts agree with the request accounting.
#[test]
fn every_message_is_accounted_for() {
    for seed in 1..=6 {
        for (redeliver, cap) in [
            (None, None),
            (None, Some(3)),
            (
                Some(Backoff::FullJitter {
                    base: 50,
                    multiplier: 2.0,
                    cap: Some(2000),
                    rng: None,
                }),
                Some(4),
            ),
            (Some(Backoff::Fixed { wait: 30 }), None),
        ] {
            let spec = WorkQueueSpec {
                consumers: 3,
                work: Some(LatencySpec::LogNormal {
                    p50: 20.0,
                    p99: 200.0,
                }),
                poison: Some(Poison::Share(0.05)),
                redeliver,
                max_receives: cap,
                dead_letter: cap.map(|_| "dlq".into()),
            };
            let source = SourceSpec {
                name: "producer".into(),
                entry: 0,
                arrivals: Arrivals::Poisson,
                rate: 0.08,
                ..Default::default()
            };
            let (obs, _, q) = run(&model(5000, seed, queue(spec), source));
            let e = q.end;
            assert_eq!(e.arrived, obs.accounting.entered);
            assert_eq!(e.done, obs.accounting.completed);
            assert_eq!(e.dead_lettered, obs.accounting.dropped);
            assert_eq!(e.queued + e.delayed + e.in_flight, obs.accounting.in_flight);
            assert_eq!(q.run.done, e.done);
            assert_eq!(q.run.dead_letters, e.dead_lettered);
            // Every receive ends done, dead-lettered, redelivered, or is
            // still being worked.
            assert_eq!(
                q.run.receives,
                q.run.done + q.run.dead_letters + q.run.redeliveries + e.in_flight
            );
            if cap.is_none() {
                assert_eq!(e.dead_lettered, 0);
            }
        }
    }
}
