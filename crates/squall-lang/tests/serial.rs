//! Serial clients (`clients N  serial every ...`): what they resolve to,
//! where their refusals point, and that `squall fmt` keeps them.

use squall_lang::{ClientsSpec, LatencySpec, Overrides, SourceSpec};

use crate::common::one_error;

fn scenario(sources: &str) -> String {
    format!("scenario \"c\" {{\n  clock ms\n  run 10s\n  chain app -> db\n{sources}\n}}\n")
}

fn sources_of(text: &str) -> Vec<SourceSpec> {
    let s = squall_lang::load("c.squall", text)
        .unwrap_or_else(|d| panic!("does not load:\n{}", d.to_plain()));
    s.model(&Overrides::default())
        .unwrap_or_else(|d| panic!("does not resolve:\n{}", d.to_plain()))
        .sources
}

/// The gap is read like a `latency` (`clock ms`: 10ms is 10 ticks), and
/// serial clients send when their requests allow, as a closed loop does.
#[test]
fn serial_clients_resolve_to_their_gap() {
    let text = scenario(
        "  source s { clients 100  serial every exponential mean 10ms  enters app }\n  source c { clients 3  serial every 250ms  enters app }",
    );
    let s = sources_of(&text);
    assert_eq!(
        s[0].clients,
        Some(ClientsSpec {
            count: 100,
            think: None,
            serial: Some(LatencySpec::Exponential { mean: 10.0 }),
        })
    );
    assert!(s[0].closed());
    let gap = s[1].clients.as_ref().and_then(|c| c.serial.clone());
    assert_eq!(gap, Some(LatencySpec::Constant(250.0)));
}

#[test]
fn serial_with_think_is_refused_at_serial() {
    let text = scenario("  source b { clients 5  think 40ms  serial every 40ms  enters app }");
    one_error(&text, "serial", "source `b` has both `serial` and `think`");
}

#[test]
fn serial_with_a_rate_is_refused_at_serial() {
    let text = scenario("  source b { clients 5  serial every 40ms  rate 4/s  enters app }");
    one_error(
        &text,
        "serial",
        "source `b` has serial clients (`serial`) and also a schedule",
    );
}

#[test]
fn serial_with_send_times_is_refused_at_serial() {
    let text = scenario("  source b { clients 5  serial every 40ms  at [1ms]  enters app }");
    one_error(
        &text,
        "serial",
        "source `b` has serial clients (`serial`) and also a schedule",
    );
}

#[test]
fn serial_without_clients_is_refused() {
    let text = scenario("  source a { serial every exponential mean 40ms  enters app }");
    one_error(
        &text,
        "serial",
        "source `a` needs `clients`: its clients are serial",
    );
}

#[test]
fn serial_given_twice_is_refused() {
    let text = scenario("  source c { clients 2  serial every 1ms  serial every 2ms  enters app }");
    one_error(&text, "serial every 2ms", "source `c` says `serial` twice");
}

#[test]
fn an_incomplete_serial_distribution_names_serial_every() {
    let text = scenario("  source c { clients 2  serial every uniform low 1ms  enters app }");
    one_error(
        &text,
        "serial",
        "`serial every uniform` needs `low` and `high`",
    );
}

#[test]
fn a_source_that_feeds_a_sender_has_no_serial_clients() {
    let text = "scenario \"c\" {\n  clock ms\n  run 10s\n  provider sms { ceiling 40/s  throttle 429 }\n  sender outbox to sms { rate 18/s  client naive }\n  source s { rate 5/s  serial every 1ms  enters outbox }\n}\n";
    let Err(d) = squall_lang::load("test.squall", text) else {
        panic!("a feeding source with `serial` loads");
    };
    let plain = d.to_plain();
    assert!(
        plain.contains("source `s` feeds sender `outbox`: its records have no `serial`"),
        "{plain}"
    );
}

/// `squall fmt` keeps `serial every ...` as written, and its output
/// formats to itself.
#[test]
fn fmt_round_trips_serial_clients() {
    let text =
        scenario("  source users { clients 100  serial every exponential mean 100ms  enters app }");
    let once = squall_lang::format::format_source(&text).expect("formats");
    assert!(
        once.contains("serial every exponential mean 100ms"),
        "{once}"
    );
    let twice = squall_lang::format::format_source(&once).expect("formats again");
    assert_eq!(once, twice);
    assert_eq!(sources_of(&text), sources_of(&once));
}
