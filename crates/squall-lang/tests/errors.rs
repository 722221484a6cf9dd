//! Explicit assertions beside the snapshots: for the key cases, the first
//! diagnostic's line, column, message and help, so that a snapshot accepted
//! in a hurry cannot hide a diagnostic that moved or lost its hint.
//!
//! Two tables: `error!` (below) for the general cases, each a test of its
//! own that checks the first diagnostic loosely; and [`EXACT`] for the
//! client-side (`client-*`, document 002) and degradation
//! (`degradation-*`, document 001) cases, once in `tests/client/` and
//! `tests/degradation/` of the package: each file gives exactly one
//! diagnostic, whose plain rendering is exactly the expected one, at the
//! first occurrence of a piece of text, so the position is derived from the
//! file rather than copied from the output.

use crate::common::{input, load_err, load_text_err, positions};

/// `error!(file, line, col, "message part", "help part")`: the first
/// diagnostic of `inputs/err/<file>.squall` is at `line:col`, its message
/// contains the message part and its help contains the help part (`""`
/// for no requirement on the help).
macro_rules! error {
    ($name:ident, $line:expr, $col:expr, $msg:expr, $help:expr) => {
        #[test]
        fn $name() {
            let file = stringify!($name).replace('_', "-");
            let d = load_err(&file);
            let first = &d.list[0];
            assert_eq!(
                first.span.line_col(&d.source),
                ($line, $col),
                "{file}: {}",
                d.to_plain()
            );
            assert!(
                first.message.contains($msg),
                "{file}: message {:?} lacks {:?}",
                first.message,
                $msg
            );
            let help = first.help.as_deref().unwrap_or("");
            assert!(
                help.contains($help),
                "{file}: help {help:?} lacks {:?}",
                $help
            );
        }
    };
}

error!(
    chart_breaker_without_a_breaker,
    8, 28, "`db` has no breaker to chart", ""
);
error!(
    chart_unknown_sender_series,
    18, 11, "unknown series `send_rat` of a sender", "did you mean `send_rate`?"
);
error!(
    typo_service_node_worker,
    7, 22, "unknown node `wroker`", "did you mean `worker`?"
);
error!(
    typo_service_node,
    8, 11, "unknown node `dbb`", "did you mean `db`?"
);
error!(
    typo_enters,
    5, 39, "unknown node `egde`", "did you mean `edge`?"
);
error!(
    typo_fault_on,
    9, 23, "unknown node `bd`", "did you mean `db`?"
);
error!(
    typo_report_path,
    13, 43, "unknown variant, window or node `wroker`", "did you mean `worker`?"
);
error!(
    cycle,
    8, 14, "calling `a` from `b` closes a cycle", "`a` already reaches `b`"
);
error!(self_call, 7, 18, "`cache` calls itself", "");
error!(two_downstreams, 7, 16, "`api` already calls `worker`", "");
error!(
    window_outside_run,
    11,
    17,
    "window `during` 90..120 is outside the run",
    "ticks are numbered from the first tick of `run`"
);
error!(
    window_reversed,
    11, 17, "starts at 40 after it ends at 20", "both inclusive"
);
error!(fault_missing_node, 9, 23, "unknown node `cache`", "");
error!(
    duplicate_param,
    5, 9, "param `attempts` is declared twice", ""
);
error!(
    duplicate_window,
    12, 10, "window `before` is declared twice", ""
);
error!(
    duplicate_variant,
    13, 11, "variant `storm` is declared twice", ""
);
error!(
    duplicate_source,
    6, 10, "source `users` is declared twice", ""
);
error!(
    duplicate_fault,
    10, 9, "fault `brownout` is declared twice", ""
);
error!(
    duplicate_measure,
    14, 13, "measure `normal` is declared twice", ""
);
error!(
    variant_named_like_window,
    12, 11, "`during` names both a variant and a window", ""
);
error!(
    unit_ms_with_clock_round,
    7, 73, "`ms` does not fit `clock round`", "write the value in rounds"
);
error!(
    unit_rounds_with_clock_ms,
    7, 73, "`round` does not fit `clock ms`", "write the value in ms"
);
error!(
    unit_fractional_rounds,
    7, 73, "1.5 rounds, not a whole number of ticks", ""
);
error!(
    unit_rate_sec,
    5, 25, "unknown unit `sec` in a rate", "`4/round`"
);
error!(
    attempts_zero,
    4, 20, "`attempts` counts tries including the first", "`$attempts` is used on line 7"
);
error!(
    attempts_fraction,
    7, 48, "`attempts` must be a whole number, found 2.5", ""
);
error!(
    backoff_cap_below_base,
    7, 96, "the backoff cap (4) is below its base (8)", ""
);
error!(unknown_param, 8, 25, "unknown param `$x`", "");
error!(
    unknown_metric,
    13, 55, "unknown metric or measure `call_rte`", "did you mean `call_rate`?"
);
error!(
    unknown_function,
    13, 17, "unknown function `peek`", "did you mean `peak`?"
);
error!(
    template_unclosed,
    13, 16, "unclosed `{` in a line template", "`{{`"
);
error!(line_needs_window, 13, 18, "needs a window", "");
error!(
    missing_run,
    1, 10, "the scenario has no `run` line", "`run 400 rounds`"
);
error!(
    missing_enters,
    5, 10, "source `users` does not say where its requests enter", "`enters edge`"
);
error!(
    source_no_base_rate,
    5, 10, "source `users` has no base rate", "`rate 4/round`"
);
error!(
    fault_changes_nothing,
    9, 9, "fault `brownout` changes nothing", "`capacity 1/round`"
);
error!(syntax_missing_brace, 12, 1, "or `}`, found end of file", "");
error!(syntax_garbage_token, 11, 3, "found `@@@`", "");
error!(syntax_unclosed_string, 1, 10, "expected", "");
error!(
    syntax_empty_file,
    1, 1, "expected `scenario \"name\" { ... }`, found end of file", ""
);
error!(syntax_only_comments, 3, 1, "found end of file", "");

#[test]
fn cycle_reports_only_the_closing_edge() {
    let d = load_err("cycle");
    assert_eq!(d.list.len(), 1, "{}", d.to_plain());
}

#[test]
fn a_suggestion_is_only_made_for_a_near_name() {
    let d = load_err("fault-missing-node");
    assert_eq!(d.list[0].help, None, "{}", d.to_plain());
}

#[test]
fn every_error_file_names_line_and_column_inside_the_file() {
    let dir = crate::common::crate_dir().join("tests/inputs/err");
    for path in crate::common::squall_files(&dir) {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let d = load_err(&name);
        let lines = d.source.lines().count().max(1);
        for (x, (line, col)) in d.list.iter().zip(positions(&d)) {
            assert!(x.span.end <= d.source.len(), "{name}: span past the end");
            assert!(line >= 1 && col >= 1, "{name}: {line}:{col}");
            assert!(line <= lines + 1, "{name}: line {line} of {lines}");
            assert!(!x.message.is_empty() && !x.label.is_empty(), "{name}");
            // Messages are lowercase, as the house style asks, unless they
            // start with a name that is spelt with a capital (an HTTP header).
            let first = x.message.chars().next().unwrap();
            assert!(
                !first.is_uppercase() || x.message.starts_with("Retry-After "),
                "{name}: {:?}",
                x.message
            );
        }
    }
}

#[test]
fn plain_output_is_file_line_col_error() {
    let d = load_text_err("scenario \"x\" {\n  run 10\n  chain a -> b\n  windw w 1..2\n}\n");
    let plain = d.to_plain();
    let first = plain.lines().next().unwrap();
    assert!(
        first.starts_with("test.squall:4:3: error: expected `clock`, `run`, "),
        "{first}"
    );
    assert!(first.contains("`window`"), "{first}");
    assert!(first.ends_with("or `}`, found `windw`"), "{first}");
    assert_eq!(
        d.to_plain().lines().nth(1).unwrap(),
        "  help: did you mean `window`?"
    );
}

/// One bad file with exactly one diagnostic: its plain rendering is
/// `err/FILE.squall:LINE:COL: error: MESSAGE` and, with a help,
/// `  help: HELP`, where `LINE:COL` is the first occurrence of `at`.
struct Exact {
    file: &'static str,
    at: &'static str,
    message: &'static str,
    help: Option<&'static str>,
}

const fn case(
    file: &'static str,
    at: &'static str,
    message: &'static str,
    help: Option<&'static str>,
) -> Exact {
    Exact {
        file,
        at,
        message,
        help,
    }
}

const EXACT: &[Exact] = &[
    // a retry policy with no tries
    case(
        "client-retry-policy-with-no-tries",
        "0  backoff",
        "`attempts` counts tries including the first, so it is at least 1",
        Some("`attempts 1` means no retries"),
    ),
    // unknown_attempts 0
    case(
        "client-unknown-attempts-0",
        "0 }",
        "`unknown_attempts` counts tries including the first, so it is at least 1",
        Some("`attempts 1` means no retries"),
    ),
    // a backoff cap below its base
    case(
        "client-backoff-cap-below-its-base",
        "100ms",
        "the backoff cap (100) is below its base (200)",
        Some("the cap bounds the growing wait; make it at least the base"),
    ),
    // a multiplier below 1
    case(
        "client-multiplier-below-1",
        "0.5",
        "a backoff multiplier below 1 (0.5) would shrink the waits",
        None,
    ),
    // a Retry-After that cannot be parsed
    case(
        "client-retry-after-that-cannot-be-parsed",
        "\"yesterday\"",
        "`yesterday` is not a Retry-After squall can read",
        Some("write a delay such as `2s`, or an HTTP date (`Wed, 14 Jan 2026 09:00:00 GMT`) or RFC 3339 (`2026-01-14T09:00:00Z`)"),
    ),
    // a Retry-After date without an epoch
    case(
        "client-retry-after-date-without-an-epoch",
        "\"Wed",
        "a Retry-After date needs the scenario's `epoch` and a wall clock",
        Some("add `epoch \"2026-01-14T09:00:00Z\"` (the UTC time of tick 0) and `clock ms` or `clock s`"),
    ),
    // a Retry-After date before the epoch
    case(
        "client-retry-after-date-before-the-epoch",
        "\"Wed, 14 Jan 2026 08",
        "this Retry-After date is before the scenario's epoch",
        None,
    ),
    // a Retry-After in rounds under clock ms
    case(
        "client-retry-after-in-rounds",
        "2 rounds",
        "`round` does not fit `clock ms`: a round has no length in ms",
        Some("write the value in ms"),
    ),
    // retry_after neither honor nor ignore
    case(
        "client-retry-after-neither-honor-nor-ignore",
        "honr",
        "`retry_after honr` is not a choice",
        Some("did you mean `honor`?"),
    ),
    // an unknown rng
    case(
        "client-unknown-rng",
        "dok",
        "unknown rng `dok`",
        Some("did you mean `doc`?"),
    ),
    // an unknown generator algorithm
    case(
        "client-unknown-generator-algorithm",
        "mulbery32",
        "unknown generator `mulbery32`",
        Some("did you mean `mulberry32`?"),
    ),
    // a mulberry32 seed over 32 bits
    case(
        "client-mulberry32-seed-over-32-bits",
        "seed",
        "mulberry32 takes a 32-bit seed; 4294967296 is larger than 4294967295",
        None,
    ),
    // an unknown backoff
    case(
        "client-unknown-backoff",
        "jitterd",
        "unknown backoff `jitterd`",
        Some("did you mean `jittered`?"),
    ),
    // an unknown policy on a service
    case(
        "client-unknown-policy-on-a-service",
        "backgrund",
        "unknown policy `backgrund`",
        Some("did you mean `background`?"),
    ),
    // an unknown policy on an operation
    case(
        "client-unknown-policy-on-an-operation",
        "backgroud",
        "unknown policy `backgroud`",
        Some("did you mean `background`?"),
    ),
    // `*` as the method of an operation
    case(
        "client-star-as-the-method-of-an-operation",
        "op \"x\"",
        "a request needs a concrete method, found `*`",
        Some("`*` matches any method in a route, but a request is `GET`, `POST`, ..."),
    ),
    // `*` as the method of a source's requests
    case(
        "client-star-as-the-method-of-a-source",
        "request",
        "a request needs a concrete method, found `*`",
        Some("`*` matches any method in a route, but a request is `GET`, `POST`, ..."),
    ),
    // `attempts` on an operation whose service has no retry policy
    case(
        "client-op-attempts-without-a-retry-policy",
        "3 }",
        "`attempts` on an operation changes the retry policy of `app`, which has none",
        Some("give the entry service a `retry { ... }`, or name a policy with `policy NAME`"),
    ),
    // a breaker on a node that calls nothing
    case(
        "client-breaker-on-a-node-that-calls-nothing",
        "breaker",
        "`server` has a breaker but calls nothing",
        Some("a breaker guards calls to a dependency; put it on the service that calls `server`"),
    ),
    // a retry policy on a node that calls nothing
    case(
        "client-retry-policy-on-a-node-that-calls-nothing",
        "retry",
        "`server` retries but calls nothing",
        Some("retries belong to the caller; put this block on the service that calls `server`"),
    ),
    // a breaker without a cool-down
    case(
        "client-breaker-without-a-cool-down",
        "breaker",
        "a `breaker` needs a `cooldown`",
        Some("e.g. `breaker { after 3 failures  cooldown 5s }`"),
    ),
    // a breaker without a threshold
    case(
        "client-breaker-without-a-threshold",
        "breaker",
        "a `breaker` needs `after N failures`",
        Some("e.g. `breaker { after 3 failures  cooldown 5s }`"),
    ),
    // a `trace` of a node without a breaker
    case(
        "client-trace-of-a-node-without-a-breaker",
        "app }",
        "`app` has no breaker to trace",
        None,
    ),
    // `operations` of a source without `sequential`
    case(
        "client-operations-of-a-source-without-sequential",
        "ui }\n",
        "source `ui` has no `sequential` operations",
        None,
    ),
    // a script step with both a count and an end
    case(
        "client-script-step-with-both-a-count-and-an-end",
        "503 x 2",
        "a step lasts either `x N` calls or `until` a time, not both",
        None,
    ),
    // a misspelt field source
    case(
        "degradation-misspelt-field-source",
        "projecton",
        "unknown field source `projecton`",
        Some("did you mean `projection`?"),
    ),
    // a field source the node does not fan out to
    case(
        "degradation-field-source-not-fanned-out-to",
        "ledgerdb optional",
        "`tracking` does not call `ledgerdb`",
        Some("fields come from the nodes `tracking` fans out to: projection, pricing"),
    ),
    // a field source that calls further down
    case(
        "degradation-field-source-that-calls-further-down",
        "projection core",
        "field source `projection` calls other nodes",
        None,
    ),
    // a fan-out with no response
    case(
        "degradation-fan-out-with-no-response",
        "tracking -> [",
        "`tracking` calls several nodes but has no `response` saying what each gives",
        Some("add `service tracking { response { field NAME from NODE core 100 B ... } }`"),
    ),
    // a response on a node that also calls down a chain
    case(
        "degradation-response-on-a-node-that-also-chains",
        "response",
        "`tracking` has a `response` and also calls one node down a chain",
        Some("write the chain as `chain ... -> tracking -> [a, b]`"),
    ),
    // a staleness bound in bytes
    case(
        "degradation-staleness-bound-in-bytes",
        "60 B",
        "a staleness bound takes a duration such as `200ms` or `2s`, found a size",
        None,
    ),
    // a staleness bound in rounds under clock s
    case(
        "degradation-staleness-bound-in-rounds",
        "60 rounds",
        "`round` does not fit `clock s`: a round has no length in s",
        Some("write the value in s"),
    ),
    // a misspelt policy
    case(
        "degradation-misspelt-policy",
        "stale_fallbak",
        "unknown degradation policy `stale_fallbak`",
        Some("did you mean `stale_fallback`?"),
    ),
    // an unknown policy set by a variant
    case(
        "degradation-unknown-policy-set-by-a-variant",
        "nope",
        "unknown degradation policy `nope`",
        Some("`$policy` is used on line 8"),
    ),
    // a misspelt policy in a sweep
    case(
        "degradation-misspelt-policy-in-a-sweep",
        "stal_fallback",
        "unknown degradation policy `stal_fallback`",
        Some("did you mean `stale_fallback`?; `$policy` is used on line 8"),
    ),
    // a policy that is a number
    case(
        "degradation-policy-that-is-a-number",
        "3\n",
        "a degradation policy is a word: `all_or_nothing`, `skip_optional` or `stale_fallback`",
        Some("`$policy` is used on line 8"),
    ),
    // stale_fallback without a ledger
    case(
        "degradation-stale-fallback-without-a-ledger",
        "response",
        "`stale_fallback` needs a `ledger`: it serves last known values",
        Some("add `ledger { entries 5000  stale_for 60s }` to the response"),
    ),
    // a ledger without stale_for
    case(
        "degradation-ledger-without-stale-for",
        "ledger",
        "a `ledger` needs `stale_for`: how old a value it may serve",
        Some("e.g. `ledger { entries 5000  stale_for 60s }`"),
    ),
    // a duplicate field
    case(
        "degradation-duplicate-field",
        "status from pricing",
        "field `status` is declared twice",
        None,
    ),
    // a periodic fault every 0s
    case(
        "degradation-periodic-fault-every-0s",
        "0s  fail",
        "a period of 0 ticks strikes never",
        None,
    ),
    // a period in bytes
    case(
        "degradation-period-in-bytes",
        "10 B",
        "a period takes a duration such as `200ms` or `2s`, found a size",
        None,
    ),
    // a field size that is a duration
    case(
        "degradation-field-size-that-is-a-duration",
        "180 ms",
        "a field's size takes a size such as `180 B`, found a duration",
        None,
    ),
    // a fractional field size
    case(
        "degradation-fractional-field-size",
        "1.5 B",
        "a field's size must be a whole number of bytes, found 1.5",
        None,
    ),
    // a marker given twice
    case(
        "degradation-marker-given-twice",
        "marker 8 B",
        "`marker` is given twice in one `response`",
        None,
    ),
    // two response blocks
    case(
        "degradation-two-response-blocks",
        "response { field fee",
        "`tracking` has two `response` blocks",
        None,
    ),
    // a fault on a misspelt second node
    case(
        "degradation-fault-on-a-misspelt-second-node",
        "pricng",
        "unknown node `pricng`",
        Some("did you mean `pricing`?"),
    ),
    // fields() of a node without a response
    case(
        "degradation-fields-of-a-node-without-a-response",
        "projection)",
        "`projection` has no `response`",
        None,
    ),
    // ledger_entries() of a response without a ledger
    case(
        "degradation-ledger-entries-without-a-ledger",
        "tracking)",
        "the response of `tracking` has no `ledger`",
        None,
    ),
    // an isolation table of an unknown window
    case(
        "degradation-isolation-table-of-an-unknown-window",
        "ww",
        "unknown window `ww`",
        Some("did you mean `w`?"),
    ),
    // an isolation table without a window
    case(
        "degradation-isolation-table-without-a-window",
        "isolation",
        "an `isolation` table needs a `window`",
        Some("e.g. `window measured`"),
    ),
    // a line for an unknown variant
    case(
        "degradation-line-for-an-unknown-variant",
        "b \"x\"",
        "unknown variant `b`",
        Some("did you mean `a`?"),
    ),
    // after warmup without a warmup
    case(
        "degradation-after-warmup-without-a-warmup",
        "after warmup",
        "`after warmup`, but the scenario has no `warmup`",
        Some("add e.g. `warmup 2min`, or write the range out"),
    ),
    // a window after warmup without a warmup
    case(
        "degradation-window-after-warmup-without-a-warmup",
        "after warmup",
        "`after warmup`, but the scenario has no `warmup`",
        Some("add e.g. `warmup 2min`, or write the range out"),
    ),
    // a script step with no end before another step (it would hold for
    // ever): rejected, as the language reference's "the **last** step is
    // never over" leaves no other reading. Was `client/retry.rs`, which
    // accepted a rejection or a one-call step.
    case(
        "client-script-step-holds-for-ever",
        "503 then",
        "this step holds for ever, so the steps after it never answer",
        Some("give it a count (`503 x 2 then 200`) or an end (`503 until 11s then 200`)"),
    ),
    // a misspelt source that was the only field from its node: one mistake,
    // one error
    case(
        "degradation-misspelt-only-field-source",
        "projecton",
        "unknown field source `projecton`",
        Some("did you mean `projection`?"),
    ),
];

/// `(line, column)`, both 1-based, of byte offset `at` in `text`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// The diagnostics of `inputs/err/FILE.squall`, which must be exactly one.
fn only_one(file: &str) -> squall_lang::Diagnostics {
    let d = load_err(file);
    assert_eq!(d.list.len(), 1, "{file}:\n{}", d.to_plain());
    d
}

/// Where the first occurrence of `at` is in `inputs/err/FILE.squall`.
fn at(file: &str, at: &str) -> (usize, usize) {
    let text = input("err", file);
    let offset = text
        .find(at)
        .unwrap_or_else(|| panic!("{file}: `{at}` is not in the file"));
    line_col(&text, offset)
}

#[test]
fn each_exact_error_points_at_the_offending_text() {
    for case in EXACT {
        let d = only_one(case.file);
        let (line, col) = at(case.file, case.at);
        let mut want = format!(
            "err/{}.squall:{line}:{col}: error: {}\n",
            case.file, case.message
        );
        if let Some(h) = case.help {
            want.push_str(&format!("  help: {h}\n"));
        }
        assert_eq!(d.to_plain(), want, "{}", case.file);
    }
}

/// A negative wait cannot be written: the parser stops at the `-` and says
/// a value was expected there.
#[test]
fn a_negative_wait_is_a_parse_error() {
    for (file, value) in [
        ("client-negative-wait-in-a-policy", "-5ms"),
        ("client-negative-fixed-backoff", "-5ms"),
        ("client-negative-jitter-base", "-200ms"),
    ] {
        let d = only_one(file);
        let (line, col) = at(file, value);
        let plain = d.to_plain();
        let message = &d.list[0].message;
        assert!(
            plain.starts_with(&format!("err/{file}.squall:{line}:{col}: error: expected ")),
            "{plain}"
        );
        assert!(message.contains("a value"), "{message}");
        assert!(message.ends_with(&format!("found `{value}`")), "{message}");
    }
}

/// `probes 0` and `after 0 failures` are rejected, but not with the wording
/// of a retry policy's `attempts`.
#[test]
fn breaker_settings_of_zero_are_explained_in_breaker_terms() {
    for (file, zero) in [
        ("client-breaker-probes-0", "0 }"),
        ("client-breaker-after-0-failures", "0 failures"),
    ] {
        let d = only_one(file);
        let (line, col) = at(file, zero);
        let plain = d.to_plain();
        assert!(
            plain.starts_with(&format!("err/{file}.squall:{line}:{col}: ")),
            "{plain}"
        );
        assert!(plain.contains("at least 1"), "{plain}");
        assert!(
            !plain.contains("tries") && !plain.contains("retries"),
            "{plain}"
        );
    }
}

/// A fractional duration in `clock ms` names the unit `ms`, not `mss`.
#[test]
fn a_fractional_deadline_names_the_unit_correctly() {
    let file = "client-fractional-deadline";
    let d = only_one(file);
    let (line, col) = at(file, "1.5ms");
    let plain = d.to_plain();
    assert!(
        plain.starts_with(&format!(
            "err/{file}.squall:{line}:{col}: error: a deadline is 1.5 ms, not a whole number of ticks"
        )),
        "{plain}"
    );
    assert!(!plain.contains("mss"), "{plain}");
}

/// `marker`, `policy` and `ledger` given twice are errors; so are `entries`
/// and `stale_for` given twice inside a ledger (the last one does not win
/// silently).
#[test]
fn a_ledger_setting_given_twice_is_an_error() {
    let file = "degradation-ledger-setting-given-twice";
    let d = load_err(file);
    let plain = d.to_plain();
    let (line, col) = at(file, "stale_for 7s");
    assert!(
        plain.starts_with(&format!("err/{file}.squall:{line}:{col}: error: "))
            && plain.contains("twice"),
        "{plain}"
    );
}

/// A `step` without `per field` is a plain omission; the parser's message
/// says that `per field` is missing rather than asking for a rate.
#[test]
fn a_step_without_per_field_says_so() {
    let d = load_err("degradation-step-without-per-field");
    assert!(d.to_plain().contains("per field"), "{}", d.to_plain());
}

/// A table with two row axes takes one heading (joined) or one per axis;
/// three headings for two axes is a mistake, two are fine.
#[test]
fn more_labels_than_axes_is_an_error() {
    let file = "degradation-more-labels-than-axes";
    let d = load_err(file);
    let (line, col) = at(file, "label");
    assert!(
        d.to_plain()
            .starts_with(&format!("err/{file}.squall:{line}:{col}: error: ")),
        "{}",
        d.to_plain()
    );
    let two = input("err", file).replace(r#""a", "b", "c""#, r#""a", "b""#);
    squall_lang::load("two-labels.squall", &two).unwrap_or_else(|d| panic!("{}", d.to_plain()));
}

/// A node that fans out fetches its fields once: the semantics reference
/// (`book/src/reference/semantics.md`, composite responses) says "field
/// calls are not retried and no breaker guards them",
/// so a `retry` or a `breaker` on such a node is refused -- and the error
/// must not say the node "calls nothing", since it calls its sources. (Once
/// `tests/degradation/diagnostics.rs`, which asserted nothing when the file
/// loaded; the one right answer is this refusal.)
#[test]
fn a_retry_or_breaker_on_a_fan_out_node_is_refused() {
    for (file, block) in [
        ("degradation-retry-on-a-fan-out-node", "retry"),
        ("degradation-breaker-on-a-fan-out-node", "breaker"),
    ] {
        let d = only_one(file);
        let (line, col) = at(file, &format!("{block} {{"));
        let want = format!(
            "err/{file}.squall:{line}:{col}: error: `tracking` fetches the fields of its response \
             once; a {block} on those fetches is not modelled\n  help: put a {block} on the \
             service that calls `tracking`\n"
        );
        assert_eq!(d.to_plain(), want);
        assert!(!d.to_plain().contains("calls nothing"));
    }
}

// A misspelt time unit names the unit meant, not every keyword allowed there.
error!(
    unit_typo_msec,
    6, 54, "unknown time unit `msec`", "did you mean `ms`?"
);
error!(
    unit_typo_sec_glued,
    6, 52, "unknown time unit `sec`", "did you mean `s`?"
);
error!(
    unit_typo_seconds,
    6, 55, "unknown time unit `seconds`", "did you mean `s`?"
);
// Values the engine cannot compute with, and a duration whose unit is unsaid.
error!(number_too_large, 7, 21, "is too large", "1.8e308");
error!(multiplier_too_large, 6, 67, "is too large", "1.8e308");
error!(
    deadline_without_a_unit,
    7, 67, "has no unit: under `clock ms` it would be read as 2 ms", "`2ms`"
);
error!(
    degradation_phase_where_a_step_per_field_was_meant,
    13, 52, "did you mean `step 10s per field`?", "`phase 10s step 0 per field`"
);

/// `per_second(X)`: a rate per tick as one per second, on a wall clock only,
/// and only of a rate.
#[test]
fn per_second_needs_a_wall_clock_and_a_rate() {
    let scenario = |clock: &str, run: &str, column: &str| {
        format!(
            "scenario \"x\" {{\n  clock {clock}\n  run {run}\n  source s {{ rate 1  enters a }}\n  chain a -> b\n  window all 1..end\n  report {{\n    table \"t\" {{ rows windows  at b  column \"c\" = {column} :.0 }}\n  }}\n}}\n"
        )
    };
    let d = load_text_err(&scenario("round", "10", "per_second(call_rate)"));
    let plain = d.to_plain();
    assert!(
        plain.starts_with("test.squall:8:50: error: `per_second` needs a wall clock"),
        "{plain}"
    );
    assert!(plain.contains("set `clock ms` or `clock s`"), "{plain}");
    let d = load_text_err(&scenario("ms", "10s", "per_second(calls)"));
    let plain = d.to_plain();
    assert!(
        plain.starts_with("test.squall:8:61: error: `calls` is not a rate per tick"),
        "{plain}"
    );
    assert!(plain.contains("e.g. `per_second(call_rate)`"), "{plain}");
    let ok = squall_lang::load(
        "test.squall",
        &scenario(
            "ms",
            "10s",
            "per_second(call_rate) + per_second(all.edge_rate)",
        )
        .replace("rate 1 ", "rate 1/s "),
    );
    assert!(ok.is_ok(), "{:?}", ok.err().map(|d| d.to_plain()));
}
