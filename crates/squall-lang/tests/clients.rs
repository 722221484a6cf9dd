//! Sources whose rate changes (steps, spikes, ramps) and sources that stand
//! for clients (`clients N`, a closed loop with `think ...`): what they
//! resolve to, where their errors point, and that `squall fmt` keeps them.

use squall_lang::{Arrivals, ClientsSpec, LatencySpec, Overrides, SourceSpec};

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

#[test]
fn a_step_a_spike_and_a_ramp_resolve_to_rates_per_tick() {
    let text = scenario(
        "  source users {\n    rate 100/s\n    rate 300/s during 6s..end\n    rate 1000/s during 2s..<3s\n    rate 100/s to 300/s during 4s..5s\n    enters app\n  }",
    );
    let s = &sources_of(&text)[0];
    assert_eq!(s.rate, 0.1);
    // before, in the spike, the ramp's ends and middle, the step
    let at = |t| s.rate_at(t);
    assert_eq!(at(1_000), 0.1);
    assert_eq!(at(2_000), 1.0);
    assert_eq!(at(2_999), 1.0);
    assert_eq!(at(3_000), 0.1);
    assert_eq!(at(4_000), 0.1);
    assert!((at(4_500) - 0.2).abs() < 1e-12, "{}", at(4_500));
    assert!((at(5_000) - 0.3).abs() < 1e-12);
    assert_eq!(at(5_001), 0.1);
    assert_eq!(at(6_000), 0.3);
    assert_eq!(at(10_000), 0.3);
    assert!(s.ramps());
    assert!(s.clients.is_none());
}

#[test]
fn clients_make_an_open_or_a_closed_loop() {
    let text = scenario(
        "  source open { rate 1000/s  arrivals poisson  clients 200  enters app }\n  source closed { clients 20  think exponential mean 1s  enters app }",
    );
    let s = sources_of(&text);
    assert_eq!(
        s[0].clients,
        Some(ClientsSpec {
            count: 200,
            think: None,
            serial: None,
        })
    );
    assert_eq!(s[0].arrivals, Arrivals::Poisson);
    assert!(!s[0].closed());
    assert_eq!(
        s[1].clients,
        Some(ClientsSpec {
            count: 20,
            think: Some(LatencySpec::Exponential { mean: 1000.0 }),
            serial: None,
        })
    );
    assert!(s[1].closed());
    // A constant think time is a plain duration.
    let text = scenario("  source c { clients 3  think 250ms  enters app }");
    let s = sources_of(&text);
    let think = s[0].clients.as_ref().and_then(|c| c.think.clone());
    assert_eq!(think, Some(LatencySpec::Constant(250.0)));
}

#[test]
fn a_ramp_without_its_span_points_at_its_end_rate() {
    let text = scenario("  source f { rate 4/s  rate 5/s to 6/s  enters app }");
    one_error(&text, "6/s", "a ramp needs the time it spans");
}

#[test]
fn a_variant_ramp_without_its_span_is_refused_too() {
    let text = scenario(
        "  source f { rate 4/s  enters app }\n  variant v { source f { rate 5/s to 6/s } }",
    );
    one_error(&text, "6/s", "a ramp needs the time it spans");
}

#[test]
fn thinking_without_clients_is_refused() {
    let text = scenario("  source a { think exponential mean 40ms  enters app }");
    one_error(&text, "think", "source `a` needs `clients`: it thinks");
}

#[test]
fn a_closed_loop_with_a_rate_is_refused() {
    let text = scenario("  source b { clients 5  think 40ms  rate 4/s  enters app }");
    one_error(
        &text,
        "think",
        "source `b` is a closed loop (`think`) and also has a schedule",
    );
}

#[test]
fn clients_with_send_times_are_refused() {
    let text = scenario("  source d { clients 3  at [1ms]  enters app }");
    one_error(
        &text,
        "clients",
        "source `d` has `clients` with an `at` or `sequential` schedule",
    );
}

#[test]
fn no_clients_is_refused_at_the_number() {
    let text = scenario("  source c { clients 0  rate 4/s  enters app }");
    one_error(&text, "0  rate", "a source stands for 1 to");
    let text = scenario("  source c { clients 2_000_000  rate 4/s  enters app }");
    one_error(
        &text,
        "2_000_000",
        "a source stands for 1 to 1000000 clients, not 2000000",
    );
}

#[test]
fn clients_or_think_given_twice_is_refused() {
    let text = scenario("  source c { clients 2  clients 3  think 1ms  enters app }");
    one_error(&text, "clients 3", "source `c` says `clients` twice");
    let text = scenario("  source c { clients 2  think 1ms  think 2ms  enters app }");
    one_error(&text, "think 2ms", "source `c` says `think` twice");
}

#[test]
fn an_incomplete_think_distribution_names_think() {
    let text = scenario("  source c { clients 2  think uniform low 1ms  enters app }");
    one_error(&text, "think", "`think uniform` needs `low` and `high`");
}

/// `squall fmt` keeps ramps, clients and think times as written, and its
/// output formats to itself.
#[test]
fn fmt_round_trips_ramps_and_clients() {
    let text = scenario(
        "  source users { rate 100/s  rate 100/s to 300/s during 4s..5s  clients 50  enters app }\n  source loop { clients 20  think lognormal p50 1s p99 5s  enters app }",
    );
    let once = squall_lang::format::format_source(&text).expect("formats");
    assert!(once.contains("rate 100/s to 300/s during 4s..5s"), "{once}");
    assert!(once.contains("clients 50"), "{once}");
    assert!(once.contains("think lognormal p50 1s p99 5s"), "{once}");
    let twice = squall_lang::format::format_source(&once).expect("formats again");
    assert_eq!(once, twice);
    assert_eq!(sources_of(&text), sources_of(&once));
}
