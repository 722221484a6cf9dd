//! Explicit assertions beside the snapshots: for the key cases, the first
//! diagnostic's line, column, message and help, so that a snapshot accepted
//! in a hurry cannot hide a diagnostic that moved or lost its hint.

use crate::common::{load_err, load_text_err, positions};

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
            // Messages are lowercase, as the house style asks.
            let first = x.message.chars().next().unwrap();
            assert!(!first.is_uppercase(), "{name}: {:?}", x.message);
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
