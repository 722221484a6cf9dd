//! Variants and command-line settings that reach everything (issue 22's
//! last item): `--replications N` on `run` and `sweep`, `check --set` (and
//! `--estimate` reading it), a variant that changes a source's `deadline`
//! and `clients`, `service a, b { ... }` in a variant, a rate written as
//! `$n/UNIT`, and a percentage param (`param p = 10%`, `errors $p as 503`).
//!
//! Each equality below is derived, not copied from a run: two spellings of
//! one model must resolve to the same model (so the same report, byte for
//! byte), since the planner reads only the resolved model and the seed.

use std::path::{Path, PathBuf};

use squall_lang::RunKey;

use crate::support::*;

/// A folder of this test binary's scratch directory, made afresh.
fn folder(name: &str) -> Result<PathBuf, Box<dyn std::error::Error>> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// A Poisson source into a two-layer chain that fails 20 % of calls at the
/// bottom, so replications differ; `extra` goes into the report block.
fn chain(extra: &str) -> String {
    format!(
        r#"scenario "reach" {{
  run 100 rounds
  param demand = 6/round
  param tries = 3
  source users {{ rate $demand  arrivals poisson  enters edge }}
  chain edge -> api -> db
  service edge, api {{ retry {{ attempts $tries  backoff fixed 1 round }} }}
  service db {{ capacity 100/round }}
  fault flaky {{ on db  during 20..60  capacity 3/round }}
  window all 1..100
  variant base "base" {{ }}
  sweep tries "tries" {{ tries in [1, 2] }}
  report {{
{extra}    table "calls" {{ rows variants  at db  column "calls" = all.calls :.1 }}
    table "by tries" {{ rows sweep tries  at db  column "calls" = all.calls :.1 }}
  }}
}}
"#
    )
}

/// Writes `text` as `dir/reach.squall` (one name, so two reports name the
/// file alike) and returns the folder.
fn write(dir: &Path, text: &str) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::write(dir.join("reach.squall"), text)?;
    Ok(())
}

/// `--replications 3` is `replications 3` in the file: the flag only sets
/// the report's count, which is all the planner reads, so `run` and
/// `sweep` print the same bytes both ways (derived equality; the text
/// shows intervals, so a count that did not reach the planner would show
/// single numbers instead).
#[test]
fn replications_flag_equals_the_line_in_the_file() -> TestResult {
    let flag = folder("reach-flag")?;
    let line = folder("reach-line")?;
    write(&flag, &chain(""))?;
    write(&line, &chain("    replications 3\n"))?;
    for args in [
        vec!["run", "reach.squall"],
        vec!["sweep", "reach.squall", "--vary", "tries=1,2,4"],
    ] {
        let (c1, by_flag, e1) = run_in(&flag, &[&args[..], &["--replications", "3"]].concat());
        let (c2, by_line, e2) = run_in(&line, &args);
        assert_eq!((c1, c2), (0, 0), "{e1}{e2}");
        assert_eq!(by_flag, by_line, "{args:?}");
        assert!(by_flag.contains(" ± "), "an interval: {by_flag}");
        assert!(by_flag.contains("replications 3"), "{by_flag}");
    }
    // The flag wins over the file's count.
    let (code, over, err) = run_in(&line, &["run", "reach.squall", "--replications", "5"]);
    assert_eq!(code, 0, "{err}");
    assert!(over.contains("replications 5"), "{over}");
    // The file's bounds (at least 2, at most 1000), refused as a usage error.
    for bad in ["1", "1001"] {
        let (code, _, err) = run_in(&flag, &["run", "reach.squall", "--replications", bad]);
        assert_eq!(code, 3, "{err}");
        assert!(err.contains(&format!("`--replications {bad}`")), "{err}");
    }
    Ok(())
}

/// `check --set` resolves every run with the setting, and `--estimate`
/// reads it: with `a` tries at each of two layers, a request makes at most
/// 1 call at the edge, `a` at the api and `a^2` at the db if every try
/// fails, `1 + a + a^2` in all: 13 for the file's 3 tries, 57 for 7. (The
/// estimate prints only for a run in which calls take time, hence the
/// timed chain here.) A value that does not fit its param is refused with
/// the setting named, exit 2, and an unknown param exit 3, as `run` does.
#[test]
fn check_reads_set_and_replications() -> TestResult {
    let dir = folder("reach-check")?;
    std::fs::write(
        dir.join("timed.squall"),
        r#"scenario "timed" {
  clock ms
  run 2s
  param tries = 3
  source users { rate 10/s  enters edge }
  chain edge -> api -> db
  service edge, api { timeout 100ms  retry { attempts $tries  backoff fixed 0ms } }
  service db { latency 5ms  workers 4 }
}
"#,
    )?;
    let estimate = |args: &[&str]| {
        let (code, out, err) = run_in(
            &dir,
            &[&["check", "timed.squall", "--estimate"], args].concat(),
        );
        assert_eq!(code, 0, "{err}");
        out
    };
    assert!(estimate(&[]).contains("(13.0 per request;"));
    let seven = estimate(&["--set", "tries=7"]);
    assert!(seven.contains("(57.0 per request;"), "{seven}");
    // 20 requests in 2 s at 10/s; with 4 replications, 4 runs in all.
    let four = estimate(&["--replications", "4"]);
    assert!(
        four.contains("in all: 1 runs x 4 replications = 4 runs"),
        "{four}"
    );
    let (code, _, err) = run_in(&dir, &["check", "timed.squall", "--set", "tries=2s"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--set tries=2s"), "{err}");
    let (code, _, err) = run_in(&dir, &["check", "timed.squall", "--set", "trie=2"]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("did you mean `tries`?"), "{err}");
    Ok(())
}

/// Two spellings of one run resolve to the same model (the seed included,
/// since both variants are named alike), so every report of them is the
/// same: the derived equality the tests below rest on.
fn same_model(a: &str, b: &str) -> TestResult {
    let (a, b) = (
        squall_lang::load("a.squall", a).map_err(|d| format!("{d:?}"))?,
        squall_lang::load("b.squall", b).map_err(|d| format!("{d:?}"))?,
    );
    let key = RunKey::Variant(0);
    let (ma, mb) = (
        a.model_for(key, &[]).map_err(|d| format!("{d:?}"))?,
        b.model_for(key, &[]).map_err(|d| format!("{d:?}"))?,
    );
    assert_eq!(ma, mb);
    Ok(())
}

/// A timed chain with a source `users`; `source` is its source block's
/// body and `variant` the body of its one variant `v`.
fn timed(params: &str, source: &str, variant: &str) -> String {
    timed_errors(params, source, variant, "20%")
}

/// [`timed`] with the share of its fault `flaky` as written (`20%`,
/// `$p`).
fn timed_errors(params: &str, source: &str, variant: &str, errors: &str) -> String {
    format!(
        r#"scenario "reach" {{
  clock ms
  run 20s
  {params}
  source users {{ {source}  arrivals poisson  enters edge }}
  chain edge -> api -> db
  service edge, api {{ timeout 200ms  retry {{ attempts 3  backoff fixed 10ms }} }}
  service db {{ latency lognormal p50 50ms p99 400ms  workers 8  queue 50 }}
  fault slow {{ on db  during 5s..10s  latency x 10 }}
  fault flaky {{ on db  during 12s..15s  errors {errors} as 503 }}
  window all 1s..20s
  variant v {{ {variant} }}
  report {{
    table "t" {{ rows variants  at db  column "calls" = all.calls :.0  column "wasted" = all.wasted :.0 }}
  }}
}}
"#
    )
}

/// A variant that changes a source's rate, deadline (propagated) and
/// clients resolves to the model of the file whose source says so itself:
/// the variant's settings replace the source's own of the same keyword,
/// and nothing else. (Both variants are named `v`, so both runs get the
/// same derived seed; a difference would be the override's.)
#[test]
fn a_variant_changing_a_source_equals_editing_the_source() -> TestResult {
    let edited = timed("", "rate 40/s  deadline 500ms propagate  clients 25", "");
    let by_variant = timed(
        "",
        "rate 20/s  deadline 2s  clients 5",
        "source users { rate 40/s  deadline 500ms propagate  clients 25 }",
    );
    same_model(&edited, &by_variant)?;
    // A block of settings alone keeps the source's rate.
    same_model(
        &timed("", "rate 20/s  deadline 500ms", ""),
        &timed(
            "",
            "rate 20/s  deadline 2s",
            "source users { deadline 500ms }",
        ),
    )?;
    // And the settings reach the run's model.
    let s = squall_lang::load("v.squall", &by_variant).map_err(|d| format!("{d:?}"))?;
    let m = s
        .model_for(RunKey::Variant(0), &[])
        .map_err(|d| format!("{d:?}"))?;
    let users = &m.sources[0];
    assert_eq!(users.clients.as_ref().map(|c| c.count), Some(25));
    // 500 ms under `clock ms` is 500 ticks, propagated.
    let deadline = users.deadline.as_ref().ok_or("a deadline")?;
    assert_eq!((deadline.after, deadline.propagate), (500.0, true));
    Ok(())
}

/// `service a, b { ... }` in a variant is the two blocks `service a { ... }
/// service b { ... }`: each named service gets the same change.
#[test]
fn service_a_b_in_a_variant_equals_two_blocks() -> TestResult {
    let change = "timeout 80ms  retry { attempts 2  backoff fixed 5ms }";
    same_model(
        &timed(
            "",
            "rate 20/s",
            &format!("service edge, api {{ {change} }}"),
        ),
        &timed(
            "",
            "rate 20/s",
            &format!("service edge {{ {change} }}  service api {{ {change} }}"),
        ),
    )
}

/// `rate $n/s` with `param n = 40` is `rate 40/s`: the param's number per
/// the written unit. The same param as a `--set` or a variant's `set`
/// gives the rate of the new number.
#[test]
fn a_rate_from_a_number_param_equals_the_written_rate() -> TestResult {
    same_model(
        &timed("", "rate 40/s", ""),
        &timed("param n = 40", "rate $n/s", ""),
    )?;
    same_model(
        &timed("param n = 10", "rate 40/s", ""),
        &timed("param n = 10", "rate $n/s", "set n = 40"),
    )?;
    // Read per tick of `clock ms`: 40/s is 0.04 per ms.
    let s = squall_lang::load("n.squall", &timed("param n = 40", "rate $n/s", ""))
        .map_err(|d| format!("{d:?}"))?;
    let m = s
        .model_for(RunKey::Variant(0), &[])
        .map_err(|d| format!("{d:?}"))?;
    assert!(
        (m.sources[0].rate - 0.04).abs() < 1e-12,
        "{}",
        m.sources[0].rate
    );
    Ok(())
}

/// `param p = 20%` then `errors $p as 503` is `errors 20% as 503`, and a
/// variant's `set p = 35%` is `errors 35%`: a percentage param stands for
/// the percentage written where one is expected.
#[test]
fn a_percentage_param_equals_the_written_percentage() -> TestResult {
    same_model(
        &timed_errors("", "rate 20/s", "", "20%"),
        &timed_errors("param p = 20%", "rate 20/s", "", "$p"),
    )?;
    same_model(
        &timed_errors("param p = 20%", "rate 20/s", "", "35%"),
        &timed_errors("param p = 20%", "rate 20/s", "set p = 35%", "$p"),
    )?;
    // The fault's share is the fraction: 35% is 0.35.
    let text = timed_errors("param p = 20%", "rate 20/s", "set p = 35%", "$p");
    let s = squall_lang::load("p.squall", &text).map_err(|d| format!("{d:?}"))?;
    let m = s
        .model_for(RunKey::Variant(0), &[])
        .map_err(|d| format!("{d:?}"))?;
    let shares: Vec<f64> = m
        .faults
        .iter()
        .filter_map(|f| f.timed.errors.map(|e| e.0))
        .collect();
    assert_eq!(shares, [0.35]);
    Ok(())
}

/// The line and column (1-based) of the first `needle` in `text`.
fn at(text: &str, needle: &str) -> String {
    let i = text.find(needle).unwrap_or(0);
    let line = text[..i].matches('\n').count() + 1;
    let col = i - text[..i].rfind('\n').map_or(0, |j| j + 1) + 1;
    format!("{line}:{col}")
}

/// Each new form refused where it does not fit, located at the use.
#[test]
fn misuses_are_refused_where_written() {
    let cases = [
        // `$n` must be a plain number in `$n/s`.
        (
            timed("param n = 40ms", "rate $n/s", ""),
            "$n/s",
            "`$n/s` takes a plain number in `$n`, and `$n` is a duration",
        ),
        // The unit is checked against the clock, as a written rate's is.
        (
            timed("param n = 40", "rate $n/round", ""),
            "$n/round",
            "`round` does not fit `clock ms`",
        ),
        // An unknown param, with a suggestion.
        (
            timed("param n = 40", "rate $m/s", ""),
            "$m",
            "did you mean `$n`?",
        ),
        // A variant's source says one keyword once.
        (
            timed("", "rate 20/s", "source users { deadline 1s  deadline 2s }"),
            "deadline 2s",
            "source `users` says `deadline` twice",
        ),
        // `think` needs `clients`, and a closed loop has no rate.
        (
            timed("", "rate 20/s  clients 5", "source users { think 1s }"),
            "think 1s",
            "is a closed loop (`think`) and also has a schedule",
        ),
        // A service named twice in one line, and an unknown one.
        (
            timed("", "rate 20/s", "service edge, edge { timeout 1s }"),
            "edge {",
            "`edge` is named twice",
        ),
        (
            timed("", "rate 20/s", "service edge, apii { timeout 1s }"),
            "apii",
            "did you mean `api`?",
        ),
        (
            timed("", "rate 20/s", "source user { deadline 1s }"),
            "user {",
            "did you mean `users`?",
        ),
        // A share needs a percentage: a plain number is refused where it is
        // written, a percentage param where a plain number is expected at
        // the param's value (the help names the line of the use).
        (
            timed_errors("", "rate 20/s", "", "20"),
            "20 as",
            "an error share takes a percentage such as `10%`, found a plain number",
        ),
        (
            timed_errors("param p = 20%", "rate 20/s  clients $p", "", "$p"),
            "20%",
            "a number of clients takes a plain number, found a percentage",
        ),
        (
            timed_errors("param p = 20%", "rate 20/s", "", "$p%"),
            "20%",
            "an error share takes a plain number, found a percentage",
        ),
    ];
    for (text, needle, message) in cases {
        let Err(d) = squall_lang::load("bad.squall", &text) else {
            panic!("accepted: {text}");
        };
        let shown = d.to_plain();
        assert!(shown.contains(message), "{message}: {shown}");
        assert!(
            shown.contains(&format!("bad.squall:{}: error:", at(&text, needle))),
            "{needle} at {}: {shown}",
            at(&text, needle)
        );
    }
}

/// `squall fmt` keeps each new form: formatting is a fixed point and the
/// syntax tree is the same modulo spans.
#[test]
fn the_new_forms_round_trip_through_fmt() -> TestResult {
    let text = timed_errors(
        "param n = 40  param p = 12.5%",
        "rate $n/s  deadline 2s",
        "source users { rate $n / s during 5s..10s  deadline 1s propagate  clients 10 }  service edge, api { timeout 80ms }  set p = 5%",
        "$p",
    );
    let once = squall_lang::format::format_source(&text).map_err(|d| d.message)?;
    assert!(once.contains("rate $n/s during 5s..10s"), "{once}");
    assert!(
        once.contains("service edge, api { timeout 80ms }"),
        "{once}"
    );
    let twice = squall_lang::format::format_source(&once).map_err(|d| d.message)?;
    assert_eq!(once, twice);
    let (a, b) = (
        squall_lang::parse::parse_file(&text).map_err(|d| d.message)?,
        squall_lang::parse::parse_file(&once).map_err(|d| d.message)?,
    );
    assert!(squall_lang::format::same_modulo_spans(&a, &b));
    Ok(())
}
