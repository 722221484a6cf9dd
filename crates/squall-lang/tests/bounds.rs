//! Settings whose size becomes memory or work before a run starts are
//! bounded in the language, and refused where they are written (issue 20,
//! "Memory and work, on every path"): a resilience4j time window (a bucket
//! per second per breaker), a `waits` table's retries (a row each), a
//! `herd`'s clients and retry (a draw and a `#` each). On `main` the first
//! allocated gigabytes at once and the others aborted.

use squall_lang::{MAX_HERD_ATTEMPT, MAX_HERD_CLIENTS, MAX_WAITS_ATTEMPTS};

use crate::common::one_error;

fn breaker(window: &str) -> String {
    format!(
        "scenario \"w\" {{\n  clock ms\n  run 1s\n  source users {{ rate 10/s  enters app }}\n  chain app -> db\n  service app {{ breaker resilience4j {{ window {window} }} }}\n  service db {{ latency 1ms }}\n}}\n"
    )
}

/// A day of one-second buckets is the longest time window: 86 400 s loads,
/// one second more is refused at the value (on `main`, `window 100000000s`
/// allocated 10^8 buckets of 32 bytes for each breaker).
#[test]
fn a_resilience4j_time_window_is_at_most_a_day() {
    squall_lang::load("ok.squall", &breaker("86400s"))
        .unwrap_or_else(|d| panic!("a day loads:\n{}", d.to_plain()));
    squall_lang::load("ok.squall", &breaker("1440min"))
        .unwrap_or_else(|d| panic!("a day in minutes loads:\n{}", d.to_plain()));
    one_error(
        &breaker("86401s"),
        "86401s",
        "a resilience4j time `window` is at most 86400 seconds (one bucket per second is kept), found 86401",
    );
    one_error(
        &breaker("100000000s"),
        "100000000s",
        "a resilience4j time `window` is at most 86400 seconds",
    );
}

fn report(item: &str) -> String {
    format!(
        "scenario \"r\" {{\n  clock ms\n  run 1s\n  rng doc {{ mulberry32  seed 1 }}\n  backoff full = full_jitter 200ms x 2 cap 5s rng doc\n  chain client -> server\n  report {{\n    {item}\n  }}\n}}\n"
    )
}

/// A `waits` table prints a row per retry: 10 000 rows at most (on `main`,
/// `attempts 1_000_000_000_000_000` was cut to a `u32` and ran for ever).
#[test]
fn a_waits_table_has_at_most_ten_thousand_rows() {
    assert_eq!(MAX_WAITS_ATTEMPTS, 10_000);
    let ok = report("waits \"w\" { policies [full]  attempts 10_000 }");
    squall_lang::load("ok.squall", &ok).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let text = report("waits \"w\" { policies [full]  attempts 1_000_000_000_000_000 }");
    one_error(
        &text,
        "1_000_000_000_000_000",
        "`attempts` must be at most 10000, found 1000000000000000",
    );
}

/// A `herd` draws a wake-up (and prints a `#`) per client, and each client
/// draws every wait up to its retry: 100 000 clients and retry 1 000 at
/// most (on `main`, `clients 1_000_000_000_000` aborted).
#[test]
fn a_herd_is_bounded_in_clients_and_retry() {
    assert_eq!((MAX_HERD_CLIENTS, MAX_HERD_ATTEMPT), (100_000, 1_000));
    let ok = report("herd \"h\" { policy full  clients 100_000  attempt 1_000 }");
    squall_lang::load("ok.squall", &ok).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let text = report("herd \"h\" { policy full  clients 1_000_000_000_000 }");
    one_error(
        &text,
        "1_000_000_000_000",
        "`clients` must be at most 100000, found 1000000000000",
    );
    let text = report("herd \"h\" { policy full  clients 10  attempt 1_001 }");
    one_error(&text, "1_001", "`attempt` must be at most 1000, found 1001");
}
