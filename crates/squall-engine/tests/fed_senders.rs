//! Senders fed by a source (`source s { ... enters outbox }`, issue 18):
//! each request the source makes is a record created at that moment, by
//! the same gap rule the timed path's sources follow. Every expected count
//! is hand-worked from that rule (`arrivals.rs`): a uniform rate `r` per
//! tick that starts from nothing counts its first tick at once (credit
//! `min(r, 1)`), so its first request goes `(1 - r) / r` ticks after the
//! start and the next ones `1 / r` apart.

use squall_engine::sending::{run_senders, SendObservations, SendSpec, SendState};

/// The senders of `text`'s first run, resolved by the language.
fn specs(text: &str) -> Vec<SendSpec> {
    let s = squall_lang::load("fed.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    s.sending(&s.overrides(squall_lang::RunKey::Variant(0), &[]))
        .unwrap_or_else(|d| panic!("{d:?}"))
        .into_iter()
        .map(|(_, spec)| spec)
        .collect()
}

fn run(text: &str) -> Vec<SendObservations> {
    run_senders(&specs(text)).unwrap()
}

/// The tick of each record's first attempt, in record order.
fn first_tries(o: &SendObservations) -> Vec<u64> {
    o.attempts
        .iter()
        .filter(|a| a.attempt == 1)
        .map(|a| a.at / o.units_per_tick)
        .collect()
}

/// Nothing lost: the states add up to the records created, and every
/// delivered record is counted once in the series.
fn assert_accounted(o: &SendObservations) {
    assert_eq!(o.states.accounted(), o.states.created, "{:?}", o.states);
    let delivered: u64 = o.bins.iter().map(|b| b.delivered).sum();
    assert_eq!(delivered, o.states.submitted);
    let ok = o
        .attempts
        .iter()
        .filter(|a| a.status == SendState::Submitted)
        .count() as u64;
    assert_eq!(ok, o.states.submitted);
}

/// A pool and a provider that never hold a record back: every record is
/// tried when it is created and delivered.
const OPEN: &str = r#"
  provider sms { ceiling 1000/s  burst 100  throttle 429 }
  sender outbox to sms { senders 100  rate 1000/s  burst 100  client naive }
"#;

#[test]
fn at_times_give_exactly_those_records() {
    // Four times, two of them equal: four records, each tried the moment
    // it is created (the pool and the ceiling have room for all).
    let text = format!(
        "scenario \"at\" {{\n  clock ms\n  run 2s\n{OPEN}  source burst {{ at [5ms, 250ms, 250ms, 1s]  enters outbox }}\n}}\n"
    );
    let o = &run(&text)[0];
    assert_eq!(o.states.created, 4);
    assert_eq!(o.states.submitted, 4);
    assert_eq!(first_tries(o), vec![5, 250, 250, 1000]);
    assert_accounted(o);
}

#[test]
fn a_rate_during_a_window_gives_rate_times_window_records() {
    // 10/s is 0.01 a tick, from tick 1000 to tick 1999 inclusive (`during
    // 1s..2s` is ticks 1000..2000 inclusive; the rate is 0 elsewhere). The
    // first record goes 0.99 / 0.01 = 99 ticks after the window opens, the
    // next 100 apart: 1099, 1199, ..., 1999, ten records (10/s x 1 s); the
    // eleventh would be at 2099, after the window closed at 2001.
    let text = format!(
        "scenario \"window\" {{\n  clock ms\n  run 5s\n{OPEN}  source spike {{ rate 0/s  rate 10/s during 1s..2s  enters outbox }}\n}}\n"
    );
    let o = &run(&text)[0];
    assert_eq!(o.states.created, 10);
    assert_eq!(o.states.submitted, 10);
    let want: Vec<u64> = (0..10).map(|k| 1099 + 100 * k).collect();
    assert_eq!(first_tries(o), want);
    assert_accounted(o);
}

#[test]
fn a_steady_rate_over_the_run() {
    // 10/s over 2 s (ticks 0..=2000): the first at 99, then every 100:
    // 99, 199, ..., 1999, twenty records (10/s x 2 s).
    let text = format!(
        "scenario \"steady\" {{\n  clock ms\n  run 2s\n{OPEN}  source new {{ rate 10/s  enters outbox }}\n}}\n"
    );
    let o = &run(&text)[0];
    assert_eq!(o.states.created, 20);
    assert_eq!(first_tries(o)[..3], [99, 199, 299]);
    assert_accounted(o);
}

/// Issue 18's shared ceiling, with fed senders. `slow` is fed at 35/s and
/// `fast` at 60/s for 60 s; both are naive (every answer but 200 is
/// rejected) and try each record the moment it is created; the provider's
/// ceiling is 40/s with a bucket of 40 tokens. Hand-worked:
/// - records: 35/s is 0.035 a tick, first at 0.965 / 0.035 = 27.6 ticks,
///   then every 28.57: 27.6 + 28.57 k <= 60 000 for k = 0..=2 099, so
///   2 100; 60/s: first at 0.94 / 0.06 = 15.7, then every 16.67, so
///   3 600 (k = 0..=3 599);
/// - delivered at most 40 + 40 x 60 = 2 440 (a full bucket and its
///   refill); at least that less the refill lost to the full bucket before
///   the first attempt (15.7 ms x 0.04 = 0.63), the level left after the
///   last attempt (below one) and what accrues after it (at most 40/s x
///   16.7 ms = 0.67): 2 437.7. Two more of tolerance cover the rounding of
///   times to engine units: 2 435..=2 440.
/// - `slow` alone (35/s under 40/s) would never be throttled: it is only
///   because the other sender takes the same provider's tokens.
#[test]
fn fed_senders_naming_one_provider_share_its_ceiling() {
    let o = run(r#"scenario "shared" {
  clock ms
  run 60s
  provider sms { ceiling 40/s  burst 40  throttle 429 }
  sender slow to sms { senders 100  rate 1000/s  burst 100  client naive }
  sender fast to sms { senders 100  rate 1000/s  burst 100  client naive }
  source a { rate 35/s  enters slow }
  source b { rate 60/s  enters fast }
}
"#);
    assert_eq!(o[0].states.created, 2100);
    assert_eq!(o[1].states.created, 3600);
    let delivered = o[0].states.submitted + o[1].states.submitted;
    assert!(
        (2435..=2440).contains(&delivered),
        "delivered {delivered} through a ceiling of 2 440"
    );
    for s in &o {
        assert!(
            s.attempts.iter().any(|a| a.throttled),
            "a sender saw no throttle"
        );
        assert_eq!(s.states.submitted + s.states.rejected, s.states.created);
        assert_accounted(s);
    }
}

#[test]
fn a_poisson_feed_is_the_same_on_every_run() {
    // Same input, same records: the feed draws from its own stream.
    let text = format!(
        "scenario \"poisson\" {{\n  clock ms\n  run 10s\n{OPEN}  source new {{ rate 50/s  arrivals poisson  enters outbox }}\n}}\n"
    );
    let a = run(&text);
    let b = run(&text);
    assert_eq!(first_tries(&a[0]), first_tries(&b[0]));
    // 50/s over 10 s: a mean of 500, a standard deviation of 22.4; five
    // deviations either side is a bound a correct draw misses once in
    // millions (and the run is the same every time).
    let n = a[0].states.created;
    assert!((388..=612).contains(&n), "{n} records");
    assert_accounted(&a[0]);
}
