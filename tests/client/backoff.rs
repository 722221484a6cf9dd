//! `waits` tables and `herd` histograms with other seeds, bases,
//! multipliers, caps, attempts, client counts and buckets, against values
//! computed here from the formulas and the documented draw order:
//!
//! * a `waits` table draws from one fresh generator, in column order within
//!   a row, and only for jittered columns;
//! * a `herd` draws once per client, in client order (decorrelated jitter,
//!   whose wait depends on the earlier ones, draws the client's whole loop).

use std::collections::BTreeMap;

use crate::js::{JsMulberry32, Policy};
use crate::support::run;

/// Runs a `waits` table of `policies` and compares it with the reference.
fn check_waits(clock: &str, seed: u32, policies: &[(&str, Policy)], attempts: u32) {
    let unit = clock;
    let decls: String = policies
        .iter()
        .map(|(name, p)| format!("  backoff {name} = {}\n", p.text(unit, "g")))
        .collect();
    let names: Vec<&str> = policies.iter().map(|(n, _)| *n).collect();
    let text = format!(
        r#"scenario "waits" {{
  clock {clock}
  run 100
  rng g {{ mulberry32 seed {seed} }}
{decls}  chain a -> b
  report {{ waits "t" {{ policies [{}] attempts {attempts} rng g }} }}
}}"#,
        names.join(", ")
    );
    let ran = run("waits", &text);

    let mut g = JsMulberry32::new(seed);
    let mut prev: Vec<Option<u64>> = vec![None; policies.len()];
    let mut want = Vec::new();
    for n in 1..=attempts {
        let mut row = vec![n.to_string()];
        for (c, (_, p)) in policies.iter().enumerate() {
            let r = if p.draws() { g.next() } else { 0.0 };
            let w = p.wait(n, r, prev[c]);
            prev[c] = Some(w);
            row.push(w.to_string());
        }
        want.push(row);
    }
    assert_eq!(ran.table("t"), want, "{text}");
    let mut columns = vec!["retry".to_string()];
    columns.extend(
        names
            .iter()
            .map(|n| format!("{} ({unit})", n.replace('_', " "))),
    );
    assert_eq!(ran.columns("t"), columns);
}

/// The document's five policies with other seeds: the deterministic columns
/// stay, the jittered ones follow the seed.
#[test]
fn document_policies_with_other_seeds() {
    let doc = [
        ("fixed", Policy::Fixed(200)),
        (
            "exponential",
            Policy::Exponential {
                base: 200,
                m: 2.0,
                cap: None,
            },
        ),
        (
            "capped",
            Policy::Exponential {
                base: 200,
                m: 2.0,
                cap: Some(5000),
            },
        ),
        (
            "full_jitter",
            Policy::Full {
                base: 200,
                m: 2.0,
                cap: Some(5000),
            },
        ),
        (
            "decorrelated",
            Policy::Decorrelated {
                base: 200,
                cap: Some(5000),
            },
        ),
    ];
    for seed in [1, 42, 2_463_534_242, 20_260_114] {
        check_waits("ms", seed, &doc, 6);
    }
    // More rows than the document: the capped columns stay at the cap.
    check_waits("ms", 20_260_114, &doc, 12);
}

/// Other bases, multipliers (including a fractional one) and caps, every
/// kind of policy in one table, and a table of jittered columns only.
#[test]
fn other_bases_multipliers_and_caps() {
    check_waits(
        "ms",
        7,
        &[
            ("steady", Policy::Fixed(150)),
            (
                "triple",
                Policy::Exponential {
                    base: 100,
                    m: 3.0,
                    cap: Some(2000),
                },
            ),
            (
                "gentle",
                Policy::Full {
                    base: 50,
                    m: 1.5,
                    cap: Some(1000),
                },
            ),
            (
                "half",
                Policy::Equal {
                    base: 100,
                    m: 2.0,
                    cap: Some(3000),
                },
            ),
            (
                "decor",
                Policy::Decorrelated {
                    base: 100,
                    cap: Some(4000),
                },
            ),
        ],
        10,
    );
    // Jittered only, no caps: every column draws on every row.
    check_waits(
        "ms",
        0,
        &[
            (
                "full",
                Policy::Full {
                    base: 1000,
                    m: 2.0,
                    cap: None,
                },
            ),
            (
                "equal",
                Policy::Equal {
                    base: 500,
                    m: 2.5,
                    cap: None,
                },
            ),
            (
                "decor",
                Policy::Decorrelated {
                    base: 10,
                    cap: None,
                },
            ),
        ],
        12,
    );
    // Document 004's client: 500 ms doubling, cap 60 s.
    check_waits(
        "ms",
        u32::MAX,
        &[(
            "provider",
            Policy::Full {
                base: 500,
                m: 2.0,
                cap: Some(60_000),
            },
        )],
        10,
    );
    // A multiplier of 1: full jitter around a constant bound.
    check_waits(
        "ms",
        99,
        &[(
            "flat",
            Policy::Full {
                base: 300,
                m: 1.0,
                cap: None,
            },
        )],
        5,
    );
}

/// In `clock s` the waits are whole seconds: `round(r * bound)` in ticks.
#[test]
fn seconds_clock() {
    check_waits(
        "s",
        20_260_114,
        &[
            (
                "capped",
                Policy::Exponential {
                    base: 1,
                    m: 2.0,
                    cap: Some(30),
                },
            ),
            (
                "jittered",
                Policy::Full {
                    base: 1,
                    m: 2.0,
                    cap: Some(30),
                },
            ),
            (
                "decor",
                Policy::Decorrelated {
                    base: 2,
                    cap: Some(60),
                },
            ),
        ],
        8,
    );
}

/// Runs a herd and compares its histogram and summary line with the
/// reference: `clients` draws in client order from a fresh generator.
fn check_herd(seed: u32, policy: Policy, clients: u32, attempt: u32, bucket: u64) -> u64 {
    let text = format!(
        r#"scenario "herd" {{
  clock ms
  run 100
  rng g {{ mulberry32 seed {seed} }}
  backoff p = {}
  chain a -> b
  report {{ herd "h" {{ policy p  clients {clients}  attempt {attempt}  bucket {bucket}ms  rng g }} }}
}}"#,
        policy.text("ms", "g")
    );
    let ran = run("herd", &text);

    let mut g = JsMulberry32::new(seed);
    let mut counts: BTreeMap<u64, u64> = BTreeMap::new();
    for _ in 0..clients {
        let wait = match policy {
            // The client's own loop up to this retry.
            Policy::Decorrelated { .. } => {
                let mut prev = None;
                let mut w = 0;
                for n in 1..=attempt {
                    w = policy.wait(n, g.next(), prev);
                    prev = Some(w);
                }
                w
            }
            p => {
                let r = if p.draws() { g.next() } else { 0.0 };
                p.wait(attempt, r, None)
            }
        };
        *counts.entry(wait / bucket * bucket).or_default() += 1;
    }
    let want: Vec<Vec<String>> = counts
        .iter()
        .map(|(start, n)| {
            vec![
                format!("{start} ms"),
                n.to_string(),
                "#".repeat(*n as usize),
            ]
        })
        .collect();
    assert_eq!(ran.table("h"), want, "{text}");
    assert_eq!(ran.columns("h"), ["wakes at", "clients", "histogram"]);
    let total: u64 = counts.values().sum();
    assert_eq!(total, u64::from(clients));
    let peak = counts.values().copied().max().unwrap_or(0);
    let line = ran
        .lines()
        .into_iter()
        .find(|l| l.starts_with("p: "))
        .expect("the herd's summary line");
    assert!(
        line.starts_with(&format!(
            "p: {clients} clients, retry {attempt}, busiest {bucket} ms bucket holds {peak} ("
        )),
        "{line}"
    );
    peak
}

#[test]
fn herds_with_other_clients_attempts_and_buckets() {
    // Fourth try of a 100 ms doubling full jitter: bound 800 ms.
    check_herd(
        99,
        Policy::Full {
            base: 100,
            m: 2.0,
            cap: Some(1000),
        },
        50,
        4,
        100,
    );
    // Sixth try hits the cap: bound 1000 ms, not 3200.
    check_herd(
        3,
        Policy::Full {
            base: 100,
            m: 2.0,
            cap: Some(1000),
        },
        40,
        6,
        250,
    );
    // Equal jitter: nobody wakes before half the bound (400 ms of 800).
    check_herd(
        20_260_114,
        Policy::Equal {
            base: 200,
            m: 2.0,
            cap: Some(5000),
        },
        30,
        3,
        100,
    );
    // Decorrelated: each client's third wait.
    check_herd(
        5,
        Policy::Decorrelated {
            base: 100,
            cap: Some(2000),
        },
        20,
        3,
        250,
    );
    // The document's herd with another seed.
    check_herd(
        1,
        Policy::Full {
            base: 200,
            m: 2.0,
            cap: Some(5000),
        },
        24,
        3,
        200,
    );
}

/// Without jitter every client wakes in one bucket: the whole herd at once.
#[test]
fn herd_without_jitter_is_one_spike() {
    for (clients, attempt, bucket, at) in [(10u32, 7u32, 1000u64, 5000u64), (3, 2, 7, 399)] {
        let policy = Policy::Exponential {
            base: 200,
            m: 2.0,
            cap: Some(5000),
        };
        let peak = check_herd(1, policy, clients, attempt, bucket);
        assert_eq!(peak, u64::from(clients));
        // 200 * 2^(attempt-1), capped, lands in the bucket starting at `at`.
        let bound = (200u64 << (attempt - 1)).min(5000);
        assert_eq!(bound / bucket * bucket, at);
    }
}

/// Jitter spreads a large herd: with a 200 ms bound and 20 ms buckets each
/// bucket holds about a tenth, so the busiest holds far fewer than all.
#[test]
fn large_jittered_herd_spreads() {
    let peak = check_herd(
        11,
        Policy::Full {
            base: 200,
            m: 2.0,
            cap: None,
        },
        1000,
        1,
        20,
    );
    assert!(peak < 150, "busiest bucket {peak} of 1000");
}

/// Document 003 on jitter (`scenarios/jitter.squall`): without jitter the
/// whole herd wakes in one bucket; full jitter spreads it over the whole
/// fourth wait (0..=800 ms), equal jitter over its second half
/// (400..=800 ms). Bounds derived from the formulas: e = 100 · 2³ = 800.
#[test]
fn jitter_spreads_a_herd_full_over_the_wait_equal_over_its_second_half() {
    let ran = crate::support::run_file("scenarios/jitter.squall");
    let herd = |title: &str| -> Vec<(u64, u64)> {
        let blocks = ran.json["blocks"].as_array().cloned().unwrap_or_default();
        let t = blocks
            .iter()
            .find(|b| b["title"] == title)
            .cloned()
            .unwrap_or_default();
        t["rows"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|r| {
                let at = r[0]
                    .as_str()
                    .unwrap_or("")
                    .trim_end_matches(" ms")
                    .parse()
                    .unwrap_or(u64::MAX);
                (at, r[1].as_u64().unwrap_or(0))
            })
            .collect()
    };
    let none = herd("no jitter: 100 clients, fourth try");
    assert_eq!(none, vec![(800, 100)]);
    for (title, low) in [
        ("full jitter: 100 clients, fourth try", 0),
        ("equal jitter: 100 clients, fourth try", 400),
    ] {
        let h = herd(title);
        assert_eq!(h.iter().map(|(_, n)| n).sum::<u64>(), 100, "{title}");
        assert!(
            h.iter().all(|&(at, _)| (low..=800).contains(&at)),
            "{title}: {h:?}"
        );
        assert!(h.len() >= 4, "{title}: spread over several buckets: {h:?}");
        assert!(
            h.iter().all(|&(_, n)| n < 50),
            "{title}: no bucket holds half the herd: {h:?}"
        );
    }
}
