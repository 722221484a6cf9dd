//! What a user sees for bad degradation input: one error, at the offending
//! text (file, line, column), saying what is wrong and, where it helps, how
//! to fix it. Never a panic. The plain renderings are snapshotted together.

use std::panic::{catch_unwind, AssertUnwindSafe};

use squall_report::{Study, StudyOptions};

use squall_lang::RunKey;

use crate::support::{composite, line_col, read, run};

const HEADER: &str = "scenario \"d\" {
  clock s
  warmup 10s
  run 60s
  source samples { rate 1/s  enters tracking }
  chain tracking -> [projection, pricing]
";

/// A response that is fine as it stands.
const RESPONSE: &str = "  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B } }\n";

struct Case {
    name: &'static str,
    /// Lines after the header (`RESPONSE` is not added).
    body: &'static str,
    /// Leave `warmup` out of the header.
    no_warmup: bool,
    /// The text the error points at: its first occurrence in the file.
    at: &'static str,
    message: &'static str,
    help: Option<&'static str>,
}

const fn case(
    name: &'static str,
    body: &'static str,
    at: &'static str,
    message: &'static str,
    help: Option<&'static str>,
) -> Case {
    Case {
        name,
        body,
        no_warmup: false,
        at,
        message,
        help,
    }
}

const CASES: &[Case] = &[
    case(
        "a misspelt field source",
        "  service tracking { response { field status from projection core 180 B  field route from projecton core 120 B  field fee from pricing optional 90 B } }\n",
        "projecton",
        "unknown field source `projecton`",
        Some("did you mean `projection`?"),
    ),
    case(
        "a field source the node does not fan out to",
        "  chain audit -> ledgerdb\n  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B  field trail from ledgerdb optional 9 B } }\n",
        "ledgerdb optional",
        "`tracking` does not call `ledgerdb`",
        Some("fields come from the nodes `tracking` fans out to: projection, pricing"),
    ),
    case(
        "a field source that calls further down",
        "  chain projection -> db\n  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B } }\n",
        "projection core",
        "field source `projection` calls other nodes",
        None,
    ),
    case(
        "a fan-out with no response",
        "",
        "tracking -> [",
        "`tracking` calls several nodes but has no `response` saying what each gives",
        Some("add `service tracking { response { field NAME from NODE core 100 B ... } }`"),
    ),
    case(
        "a response on a node that also calls down a chain",
        "  chain tracking -> db\n  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B } }\n",
        "response",
        "`tracking` has a `response` and also calls one node down a chain",
        Some("write the chain as `chain ... -> tracking -> [a, b]`"),
    ),
    case(
        "a staleness bound in bytes",
        "  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B  policy stale_fallback  ledger { stale_for 60 B } } }\n",
        "60 B",
        "a staleness bound takes a duration such as `200ms` or `2s`, found a size",
        None,
    ),
    case(
        "a staleness bound in rounds under clock s",
        "  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B  policy stale_fallback  ledger { stale_for 60 rounds } } }\n",
        "60 rounds",
        "`round` does not fit `clock s`: a round has no length in s",
        Some("write the value in s"),
    ),
    case(
        "a misspelt policy",
        "  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B  policy stale_fallbak } }\n",
        "stale_fallbak",
        "unknown degradation policy `stale_fallbak`",
        Some("did you mean `stale_fallback`?"),
    ),
    case(
        "an unknown policy set by a variant",
        "  param policy = skip_optional\n  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B  policy $policy } }\n  variant v { set policy = nope }\n",
        "nope",
        "unknown degradation policy `nope`",
        Some("`$policy` is used on line 8"),
    ),
    case(
        "a misspelt policy in a sweep",
        "  param policy = skip_optional\n  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B  policy $policy  ledger { stale_for 5s } } }\n  sweep p { policy in [all_or_nothing, stal_fallback] }\n",
        "stal_fallback",
        "unknown degradation policy `stal_fallback`",
        Some("did you mean `stale_fallback`?; `$policy` is used on line 8"),
    ),
    case(
        "a policy that is a number",
        "  param policy = 3\n  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B  policy $policy } }\n",
        "3\n",
        "a degradation policy is a word: `all_or_nothing`, `skip_optional` or `stale_fallback`",
        Some("`$policy` is used on line 8"),
    ),
    case(
        "stale_fallback without a ledger",
        "  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B  policy stale_fallback } }\n",
        "response",
        "`stale_fallback` serves last known values, so it needs a `ledger`",
        Some("add `ledger { entries 5000  stale_for 60s }` to the response"),
    ),
    case(
        "a ledger without stale_for",
        "  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B  policy stale_fallback  ledger { entries 10 } } }\n",
        "ledger",
        "a `ledger` needs `stale_for`: how old a value it may serve",
        Some("e.g. `ledger { entries 5000  stale_for 60s }`"),
    ),
    Case {
        name: "after warmup without a warmup",
        body: "  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B } }\n  fault down { on pricing  during after warmup  fail timeout }\n",
        no_warmup: true,
        at: "after warmup",
        message: "`after warmup`, but the scenario has no `warmup`",
        help: Some("add e.g. `warmup 2min`, or write the range out"),
    },
    Case {
        name: "a window after warmup without a warmup",
        body: "  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B } }\n  window measured after warmup\n",
        no_warmup: true,
        at: "after warmup",
        message: "`after warmup`, but the scenario has no `warmup`",
        help: Some("add e.g. `warmup 2min`, or write the range out"),
    },
    case(
        "a duplicate field",
        "  service tracking { response { field status from projection core 180 B  field status from pricing optional 90 B } }\n",
        "status from pricing",
        "field `status` is declared twice",
        None,
    ),
    case(
        "a periodic fault every 0s",
        "  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B } }\n  fault blips { on projection, pricing  every 0s  fail timeout }\n",
        "0s  fail",
        "a period of 0 ticks strikes never",
        None,
    ),
    case(
        "a period in bytes",
        "  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B } }\n  fault blips { on pricing  every 10 B  fail timeout }\n",
        "10 B",
        "a period takes a duration such as `200ms` or `2s`, found a size",
        None,
    ),
    case(
        "a field size that is a duration",
        "  service tracking { response { field status from projection core 180 ms  field fee from pricing optional 90 B } }\n",
        "180 ms",
        "a field's size takes a size such as `180 B`, found a duration",
        None,
    ),
    case(
        "a fractional field size",
        "  service tracking { response { field status from projection core 1.5 B  field fee from pricing optional 90 B } }\n",
        "1.5 B",
        "a field's size must be a whole number of bytes, found 1.5",
        None,
    ),
    case(
        "a marker given twice",
        "  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B  marker 6 B  marker 8 B } }\n",
        "marker 8 B",
        "`marker` is given twice in one `response`",
        None,
    ),
    case(
        "two response blocks",
        "  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B } }\n  service tracking { response { field fee from pricing optional 90 B  field status from projection core 180 B } }\n",
        "response { field fee",
        "`tracking` has two `response` blocks",
        None,
    ),
    case(
        "a fault on a misspelt second node",
        "  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B } }\n  fault down { on pricing, pricng  during 20..end  fail timeout }\n",
        "pricng",
        "unknown node `pricng`",
        Some("did you mean `pricing`?"),
    ),
    case(
        "fields() of a node without a response",
        "  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B } }\n  report { line \"{fields(projection)}\" }\n",
        "projection)",
        "`projection` has no `response`",
        None,
    ),
    case(
        "ledger_entries() of a response without a ledger",
        "  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B } }\n  report { line \"{ledger_entries(tracking)}\" }\n",
        "tracking)",
        "the response of `tracking` has no `ledger`",
        None,
    ),
    case(
        "an isolation table of an unknown window",
        "  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B } }\n  window w 1..end\n  variant a { }\n  report { isolation \"i\" of tracking { variants [a]  window ww } }\n",
        "ww",
        "unknown window `ww`",
        Some("did you mean `w`?"),
    ),
    case(
        "an isolation table without a window",
        "  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B } }\n  window w 1..end\n  variant a { }\n  report { isolation \"i\" of tracking { variants [a] } }\n",
        "isolation",
        "an `isolation` table needs a `window`",
        Some("e.g. `window measured`"),
    ),
    case(
        "a line for an unknown variant",
        "  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B } }\n  variant a { }\n  report { line b \"x\" }\n",
        "b \"x\"",
        "unknown variant `b`",
        Some("did you mean `a`?"),
    ),
];

/// The scenario text of a body.
fn file(body: &str, no_warmup: bool) -> String {
    let header = if no_warmup {
        HEADER.replace("  warmup 10s\n", "")
    } else {
        HEADER.to_string()
    };
    format!("{header}{body}}}\n")
}

/// Loads `text`; it must fail. Returns the diagnostics.
fn reject(name: &str, text: &str) -> squall_lang::Diagnostics {
    match squall_lang::load("d.squall", text) {
        Ok(_) => panic!("{name}: the file loads, but should not:\n{text}"),
        Err(d) => d,
    }
}

#[test]
fn each_error_points_at_the_offending_text() {
    let mut all = String::new();
    for case in CASES {
        let text = file(case.body, case.no_warmup);
        let d = reject(case.name, &text);
        assert_eq!(d.list.len(), 1, "{}:\n{}", case.name, d.to_plain());
        let offset = text
            .find(case.at)
            .unwrap_or_else(|| panic!("{}: `{}` is not in the file", case.name, case.at));
        let (line, col) = line_col(&text, offset);
        let mut want = format!("d.squall:{line}:{col}: error: {}\n", case.message);
        if let Some(h) = case.help {
            want.push_str(&format!("  help: {h}\n"));
        }
        assert_eq!(d.to_plain(), want, "{}:\n{text}", case.name);
        all.push_str(&format!(
            "=== {}\n{}{}\n",
            case.name,
            case.body,
            d.to_plain()
        ));
    }
    insta::assert_snapshot!("degradation_diagnostics", all);
}

/// The response the cases start from is fine as it stands: it loads, runs
/// and assembles its two fields.
#[test]
fn the_base_of_the_cases_loads() {
    let ran = run("d.squall", &file(RESPONSE, false));
    let run = ran.run_of(RunKey::Variant(0));
    let tracking = run
        .model
        .nodes
        .iter()
        .find(|n| n.name == "tracking")
        .expect("tracking");
    let c = tracking.composite.as_ref().expect("a composite response");
    assert_eq!(c.fields.len(), 2);
    let (series, ok) = composite(&run.obs, "tracking");
    assert_eq!(ok.iter().sum::<u32>(), 70);
    assert_eq!(series.full.iter().sum::<u32>(), 70);
}

/// A misspelt source that was the only field from its node is one mistake
/// and should be one error. Today the misspelling also leaves `projection`
/// without a field, and that second error comes first in the output.
#[test]
fn a_misspelt_only_source_is_one_error() {
    let text = file(
        "  service tracking { response { field status from projecton core 180 B  field fee from pricing optional 90 B } }\n",
        false,
    );
    let d = reject("typo", &text);
    assert_eq!(
        d.to_plain(),
        "d.squall:7:51: error: unknown field source `projecton`\n  help: did you mean `projection`?\n"
    );
}

/// `marker`, `policy` and `ledger` given twice are errors; so should be
/// `entries` and `stale_for` given twice inside a ledger. Today the last one
/// silently wins.
#[test]
fn a_ledger_setting_given_twice_is_an_error() {
    let text = file(
        "  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B  policy stale_fallback  ledger { stale_for 5s  stale_for 7s } } }\n",
        false,
    );
    let d = reject("twice", &text);
    let plain = d.to_plain();
    let (line, col) = line_col(&text, text.find("stale_for 7s").expect("in the file"));
    assert!(
        plain.starts_with(&format!("d.squall:{line}:{col}: error: ")) && plain.contains("twice"),
        "{plain}"
    );
}

/// A `step` without `per field` is a plain omission; the parser's message
/// should say that `per field` is missing, not ask for a rate.
#[test]
fn a_step_without_per_field_says_so() {
    let text = file(
        &format!(
            "{RESPONSE}  fault f {{ on pricing  every 10s phase 1s step 2s  fail timeout }}\n"
        ),
        false,
    );
    let d = reject("step", &text);
    assert!(d.to_plain().contains("per field"), "{}", d.to_plain());
}

/// Every line of the document's scenario left out in turn, and the file cut
/// short at many points: squall answers with a scenario or with
/// diagnostics, never a panic; what loads also runs and balances.
#[test]
fn nothing_panics_on_a_damaged_scenario() {
    let text = read("scenarios/degradation.squall");
    let lines: Vec<&str> = text.lines().collect();
    let mut damaged: Vec<String> = (0..lines.len())
        .map(|skip| {
            lines
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != skip)
                .map(|(_, l)| format!("{l}\n"))
                .collect()
        })
        .collect();
    let mut cut = 0;
    while cut < text.len() {
        if text.is_char_boundary(cut) {
            damaged.push(text[..cut].to_string());
        }
        cut += 37;
    }
    let (mut loaded, mut rejected) = (0, 0);
    for (i, t) in damaged.iter().enumerate() {
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            match squall_lang::load("damaged.squall", t) {
                Err(d) => {
                    assert!(!d.list.is_empty());
                    for x in &d.list {
                        assert!(x.span.end <= t.len(), "a span outside the file");
                    }
                    false
                }
                Ok(s) => {
                    if let Ok(study) = Study::run(&s, StudyOptions::default()) {
                        for r in study.runs.values() {
                            assert!(r.obs.accounting.balances(), "{:?}", r.key);
                        }
                        let _ = study.report().to_text();
                    }
                    true
                }
            }
        }));
        match outcome {
            Ok(true) => loaded += 1,
            Ok(false) => rejected += 1,
            Err(_) => panic!("damaged file {i} panics:\n{t}"),
        }
    }
    assert!(loaded >= 20, "{loaded} damaged files load");
    assert!(rejected >= 100, "{rejected} damaged files are rejected");
}

/// A table with two row axes takes one heading (joined) or one per axis;
/// three headings for two axes is a mistake.
#[test]
fn more_labels_than_axes_is_an_error() {
    let text = |labels: &str| {
        file(
            &format!(
                "  param policy = skip_optional\n{}  window w 1..end\n  variant v {{ }}\n  sweep p {{ policy in [all_or_nothing, skip_optional] }}\n  report {{ table \"t\" {{ rows variants [v] x sweep p  at tracking  label {labels}  column \"n\" = w.answered }} }}\n",
                RESPONSE.replace("90 B }", "90 B  policy $policy }")
            ),
            false,
        )
    };
    // Two headings for two axes: fine.
    let two = text("\"a\", \"b\"");
    squall_lang::load("d.squall", &two).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let three = text("\"a\", \"b\", \"c\"");
    let d = reject("labels", &three);
    let (line, col) = line_col(&three, three.find("label").expect("in the file"));
    assert!(
        d.to_plain()
            .starts_with(&format!("d.squall:{line}:{col}: error: ")),
        "{}",
        d.to_plain()
    );
}

/// A node that fans out calls its sources, so "calls nothing" is false.
/// Whether a composite node may retry (or guard its sources with a
/// breaker) is a design question; either way the error must not say the
/// node calls nothing.
#[test]
fn a_fan_out_node_is_not_said_to_call_nothing() {
    for block in [
        "retry { attempts 3  backoff fixed 1s }",
        "breaker { after 3 failures  cooldown 5s }",
    ] {
        let text = file(
            &format!("{RESPONSE}  service tracking {{ {block} }}\n"),
            false,
        );
        if let Err(d) = squall_lang::load("d.squall", &text) {
            assert!(!d.to_plain().contains("calls nothing"), "{}", d.to_plain());
        }
    }
}
