//! The "X needs Y" and "X is not a Y" families of diagnostics, checked where
//! users meet them: for a sample of the sites that build each (in validation
//! and in resolution), the located diagnostic a whole file gets: its line and
//! column (derived from the first occurrence of a piece of the text, not
//! copied from the output), its message, its label and its help, each
//! exactly. The expected wording is the family's (`WHO needs WHAT[: WHY]`,
//! `` `TEXT` is not a KIND ``), and each fact the site said by hand before
//! (what is missing or wrong, how to write it) is in it.

use squall_lang::Overrides;

use crate::common::at;

/// A scenario on a wall clock, with `body` inside; `app` calls `db`.
fn ms(body: &str) -> String {
    format!("scenario \"k\" {{\n  clock ms\n  run 10s\n  source users {{ rate 100/s  enters app }}\n  chain app -> db\n{body}\n}}\n")
}

/// The same under `clock round`.
fn round(body: &str) -> String {
    format!("scenario \"k\" {{\n  clock round\n  run 100 rounds\n  source users {{ rate 4/round  enters app }}\n  chain app -> db\n{body}\n}}\n")
}

/// One expected diagnostic: at the first `needle` of the text, with this
/// message, label and help.
struct Case {
    text: String,
    needle: &'static str,
    message: &'static str,
    label: &'static str,
    help: Option<&'static str>,
}

/// The diagnostics of `text` (named `k.squall`): those of loading it, or,
/// when it loads, those of resolving it with no overrides (some needs are
/// found only there, such as a node's workers).
fn diagnostics(text: &str) -> squall_lang::diagnostic::Diagnostics {
    match squall_lang::load("k.squall", text) {
        Err(d) => d,
        Ok(s) => match s.model(&Overrides::default()) {
            Err(d) => d,
            Ok(_) => panic!("loaded and resolved without an error:\n{text}"),
        },
    }
}

fn check(cases: &[Case]) {
    for c in cases {
        let d = diagnostics(&c.text);
        let Some(found) = d.list.iter().find(|x| x.message == c.message) else {
            panic!("no {:?} in:\n{}", c.message, d.to_plain())
        };
        assert_eq!(
            found.span.line_col(&d.source),
            at(&c.text, c.needle),
            "{}: {}",
            c.message,
            d.to_plain()
        );
        assert_eq!(found.label, c.label, "{}", c.message);
        assert_eq!(found.help.as_deref(), c.help, "{}", c.message);
    }
}

#[test]
fn each_needs_site_says_who_needs_what_where() {
    check(&[
        // validate/checks.rs: a retry policy's required setting.
        Case {
            text: ms("  service app { retry { backoff fixed 10ms } }"),
            needle: "retry {",
            message: "a retry policy needs `attempts`",
            label: "no `attempts`",
            help: Some("e.g. `retry { attempts 3  backoff fixed 4 rounds }`"),
        },
        // validate/kind_block.rs: a breaker's cool-down, counted as one.
        Case {
            text: ms("  service app { breaker { after 3 failures } }"),
            needle: "breaker {",
            message: "a `breaker` needs a `cooldown`",
            label: "no `cooldown`",
            help: Some("e.g. `breaker { after 3 failures  cooldown 5s }`"),
        },
        // validate/kind_block.rs: a library block's required setting,
        // shared by budgets, backoffs and hedges.
        Case {
            text: ms("  service app { hedge grpc { hedging_delay 50ms } }"),
            needle: "hedge grpc",
            message: "a `grpc` hedge needs `max_attempts`",
            label: "no `max_attempts`",
            help: Some("e.g. `hedge grpc { max_attempts 3  hedging_delay 50ms }`"),
        },
        // resolve/timed.rs: at least one worker, found on resolving.
        Case {
            text: ms("  service db { latency 5ms  workers 0 }"),
            needle: "workers 0",
            message: "a node needs at least one worker",
            label: "no workers",
            help: None,
        },
        // resolve/budgets.rs: a wall clock, with its reason and the other
        // way out after the one help every wall-clock need gives.
        Case {
            text: round(
                "  service app { retry { attempts 2  backoff fixed 1 round }  budget finagle { ttl 10 rounds  min_retries_per_sec 5 } }",
            ),
            needle: "5 }",
            message: "`min_retries_per_sec` needs a wall clock: a round has no seconds",
            label: "under `clock round`",
            help: Some("set `clock ms` or `clock s`, or write `min_retries_per_sec 0`"),
        },
        // validate/chart.rs: a metric measured at a node, in a chart that
        // names none.
        Case {
            text: ms("  report {\n    chart \"calls\" call_rate\n  }"),
            needle: "call_rate",
            message: "`call_rate` needs a node, and this chart has none",
            label: "which node?",
            help: Some("e.g. `chart call_rate at db`"),
        },
        // validate/runs.rs: a sweep of no axes.
        Case {
            text: ms("  param attempts = 2\n  sweep s { }"),
            needle: "s { }",
            message: "sweep `s` needs at least one axis",
            label: "no axes",
            help: Some("add e.g. `attempts in [3, 2, 1]`"),
        },
    ]);
}

#[test]
fn each_not_a_site_says_what_the_text_is_not() {
    check(&[
        // validate/structure.rs: an epoch squall cannot read.
        Case {
            text: ms("  epoch \"yesterday\""),
            needle: "\"yesterday\"",
            message: "`yesterday` is not a date squall can read",
            label: "not a date",
            help: Some("write an HTTP date (`Wed, 14 Jan 2026 09:00:00 GMT`) or RFC 3339 (`2026-01-14T09:00:00Z`)"),
        },
        // validate/checks.rs: a word of a fixed pair, with the matcher's
        // suggestion.
        Case {
            text: ms("  service app { retry { attempts 2  backoff fixed 10ms  retry_after honr } }"),
            needle: "honr",
            message: "`retry_after honr` is not a choice",
            label: "expected `honor` or `ignore`",
            help: Some("did you mean `honor`?"),
        },
        // resolve/work_queue.rs: a service's setting on a work queue.
        Case {
            text: ms("  service db { consumers 2  work 5ms  latency 5ms }")
                .replace("chain app -> db", "chain db")
                .replace("enters app", "enters db"),
            needle: "latency 5ms",
            message: "`latency` is not a work queue's setting",
            label: "on work queue `db`",
            help: Some("a consumer's time per message is `work ...`"),
        },
        // resolve/timed.rs: a latency table's percentile.
        Case {
            text: ms("  service db { latency table p0 1ms p150 5ms p100 9ms }"),
            needle: "p150",
            message: "`p150` is not a percentile from `p0` to `p100`",
            label: "not a percentile",
            help: Some("write the table as `latency table p0 1ms p50 5ms p100 200ms`"),
        },
    ]);
}
