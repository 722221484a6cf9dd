//! A sender's records in bursts (`records N batch B per D`, issue 22): B
//! records at once at ticks 0, D, 2D, ... until N are made. Every expected
//! value is worked by hand from that rule and the pool's: one sender that
//! takes 100 ms per attempt tries one record at a time, in creation order.

use squall_engine::sending::{run_senders, SendObservations, SendSpec, SendState};

/// The senders of `text`'s first run, resolved by the language.
fn specs(text: &str) -> Vec<SendSpec> {
    let s = squall_lang::load("bursts.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    s.sending(&s.overrides(squall_lang::RunKey::Variant(0), &[]))
        .unwrap_or_else(|d| panic!("{d:?}"))
        .into_iter()
        .map(|(_, spec)| spec)
        .collect()
}

fn run(text: &str) -> SendObservations {
    run_senders(&specs(text)).unwrap().remove(0)
}

/// The time [ms] of each record's first attempt, in record order.
fn first_tries(o: &SendObservations) -> Vec<u64> {
    o.attempts
        .iter()
        .filter(|a| a.attempt == 1)
        .map(|a| a.at / o.units_per_tick)
        .collect()
}

/// Nothing lost: every record created is delivered, failed, rejected,
/// deferred, pending, queued or in flight at the end, and every delivered
/// record is counted once in the series and once in the attempts.
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

fn scenario(run_for: &str, provider: &str, sender: &str) -> String {
    format!(
        "scenario \"bursts\" {{\n  clock ms\n  run {run_for}\n  provider sms {{ {provider} }}\n  sender outbox to sms {{ {sender} }}\n}}\n"
    )
}

/// By hand: 10 records in bursts of 4 a second. Bursts at 0 ms (records
/// 0-3), 1000 ms (4-7) and 2000 ms (8-9, the last burst smaller). One
/// sender, 100 ms an attempt, a provider that never throttles: each burst
/// is tried 100 ms apart from its time, 0, 100, 200, 300, then 1000 ...
/// 1300, then 2000, 2100; all delivered.
#[test]
fn a_burst_trace_by_hand() {
    let o = run(&scenario(
        "3s",
        "ceiling 1000/s  burst 10  throttle 429",
        "records 10 batch 4 per 1s  senders 1  rate 1000/s  latency 100ms  client naive",
    ));
    assert_eq!(
        first_tries(&o),
        [0, 100, 200, 300, 1000, 1100, 1200, 1300, 2000, 2100]
    );
    assert_eq!(o.states.created, 10);
    assert_eq!(o.states.submitted, 10);
    assert_accounted(&o);
}

/// Bursts still due when the run ends are not made: 100 records in bursts
/// of 10 a second over a run of 3.5 s are made at 0, 1, 2 and 3 s: 40.
#[test]
fn bursts_after_the_end_are_not_made() {
    let o = run(&scenario(
        "3500ms",
        "ceiling 1000/s  burst 10  throttle 429",
        "records 100 batch 10 per 1s  senders 10  rate 1000/s  burst 10  latency 10ms  client naive",
    ));
    assert_eq!(o.states.created, 40);
    assert_eq!(o.states.submitted, 40);
    assert_accounted(&o);
}

/// Bursts against a provider's ceiling: 100 records, 30 every 500 ms, so
/// all made by 1.5 s (30 + 30 + 30 + 10); the provider accepts 20 a
/// second, the classified client keeps throttled records pending and
/// tries again. After 3 s at most about 3 x 20 + its bucket are delivered
/// and the rest are pending, queued or in flight: each record is in
/// exactly one state, whatever the mix.
#[test]
fn bursts_past_the_ceiling_are_all_accounted_for() {
    let o = run(&scenario(
        "3s",
        "ceiling 20/s  burst 5  throttle 429",
        "records 100 batch 30 per 500ms  senders 8  rate 100/s  latency 50ms  client classified  terminal [400]  retryable [429]  attempts 8  unknown_attempts 2  jitter 200ms cap 1s",
    ));
    assert_eq!(o.states.created, 100);
    // 20/s for 3 s plus the bucket's 5 tokens at the start.
    assert!(o.states.submitted <= 65, "{:?}", o.states);
    assert!(o.states.submitted < o.states.created, "{:?}", o.states);
    assert_accounted(&o);
}
