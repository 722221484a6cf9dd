//! A sender's records in bursts (`records N batch B per D`): what it
//! resolves to, where its refusals point, and that `squall fmt` keeps it.

use squall_lang::model::sending::{RecordBatch, SendSpec};
use squall_lang::RunKey;

use crate::common::one_error;

fn scenario(records: &str) -> String {
    format!(
        "scenario \"b\" {{\n  clock ms\n  run 1h\n  provider sms {{ ceiling 12.5/s  throttle 429 }}\n  sender outbox to sms {{ {records}  rate 14.5/s  client naive }}\n}}\n"
    )
}

fn spec(text: &str) -> SendSpec {
    let s = squall_lang::load("test.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    s.sending(&s.overrides(RunKey::Variant(0), &[]))
        .unwrap_or_else(|d| panic!("{d:?}"))
        .remove(0)
        .1
}

/// `clock ms`: 1min is 60 000 ticks; the count and the batch are as
/// written, and the records have no rate.
#[test]
fn a_batch_resolves_to_its_size_and_period() {
    let s = spec(&scenario("records 48000 batch 500 per 1min"));
    assert_eq!(s.records.count, 48_000);
    assert_eq!(s.records.rate, None);
    assert_eq!(
        s.records.batch,
        Some(RecordBatch {
            size: 500,
            every: 60_000.0
        })
    );
    let s = spec(&scenario("records 48000"));
    assert_eq!(s.records.batch, None);
}

#[test]
fn a_batch_with_a_rate_is_refused_at_batch() {
    one_error(
        &scenario("records 48000 at 14/s batch 500 per 1min"),
        "batch",
        "records made at a rate and in batches",
    );
}

#[test]
fn an_empty_batch_is_refused_at_its_size() {
    one_error(
        &scenario("records 48000 batch 0 per 1min"),
        "0 per",
        "a batch must be above zero",
    );
}

#[test]
fn a_batch_without_its_period_is_refused() {
    one_error(
        &scenario("records 48000 batch 500 at 1min"),
        "at 1min",
        "`records` takes `per` and a duration",
    );
    one_error(
        &scenario("records 48000 batch 500 per 0s"),
        "0s",
        "a batch's period must be above zero",
    );
}

/// `squall fmt` keeps the batch as written, and its output formats to
/// itself.
#[test]
fn fmt_round_trips_a_batch() {
    let text = scenario("records 48000 batch 500 per 1min");
    let once = squall_lang::format::format_source(&text).expect("formats");
    assert!(once.contains("records 48000 batch 500 per 1min"), "{once}");
    let twice = squall_lang::format::format_source(&once).expect("formats again");
    assert_eq!(once, twice);
    assert_eq!(spec(&text), spec(&once));
}
