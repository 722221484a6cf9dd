//! Meaning (issue 20): what the language accepted and then read otherwise,
//! each now refused at its line and column, and the command-line bounds
//! left from the last round. Each case is `squall check` on a one-line
//! change of a committed scenario, so the rest of the file is known valid.

use std::path::Path;

use crate::support::{root as repo, run_in};

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("no temp dir: {e}"))
}

/// `scenarios/NAME` with `from` replaced by `to` (which must occur).
fn changed(name: &str, from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(repo().join("scenarios").join(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(text.contains(from), "{name} has no `{from}`");
    text.replacen(from, to, 1)
}

/// `squall check` of `text`: exit code and standard error.
fn check(dir: &Path, text: &str) -> (i32, String) {
    std::fs::write(dir.join("s.squall"), text).unwrap_or_else(|e| panic!("{e}"));
    let (code, _, err) = run_in(dir, &["check", "s.squall"]);
    (code, err)
}

/// The line and column of `needle`'s first byte in `text`, 1-based, as
/// diagnostics print them.
fn place(text: &str, needle: &str) -> String {
    let at = text.find(needle).unwrap_or_else(|| panic!("no `{needle}`"));
    let line = text[..at].matches('\n').count() + 1;
    let col = at - text[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
    format!("s.squall:{line}:{col}")
}

#[test]
fn a_success_status_is_refused_as_an_error() {
    let dir = temp();
    let d = dir.path();
    // `errors 30% as 200`: the 200 would count as a failure.
    let text = changed("checkout.squall", "errors 30% as 503", "errors 30% as 200");
    let (code, err) = check(d, &text);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("200 is a success status"), "{err}");
    assert!(err.contains(&place(&text, "200 }")), "{err}");
    // `limit ... status 204`.
    let text = changed(
        "checkout.squall",
        "workers 20  queue 100 }",
        "workers 20  queue 100  limit 100/s status 204 }",
    );
    let (code, err) = check(d, &text);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("204 is a success status"), "{err}");
    assert!(err.contains(&place(&text, "204")), "{err}");
    // A fault's `fail 200`.
    let text = changed("jitter.squall", "fail 503", "fail 200");
    let (code, err) = check(d, &text);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`fail` answers with an error"), "{err}");
    // Error statuses stay accepted: 429 is the limit's own default.
    let text = changed(
        "checkout.squall",
        "workers 20  queue 100 }",
        "workers 20  queue 100  limit 100/s status 429 }",
    );
    assert_eq!(check(d, &text).0, 0);
}

#[test]
fn a_node_named_twice_in_on_is_refused() {
    let dir = temp();
    let text = changed(
        "jitter.squall",
        "on none_server, full_server, equal_server",
        "on none_server, full_server, none_server",
    );
    let (code, err) = check(dir.path(), &text);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("names `none_server` twice"), "{err}");
    // The second mention is the one pointed at.
    let second = text
        .find("full_server, none_server")
        .map(|i| i + "full_server, ".len());
    let col_text = &text[..second.unwrap_or(0)];
    let line = col_text.matches('\n').count() + 1;
    assert!(err.contains(&format!("s.squall:{line}:")), "{err}");
}

#[test]
fn a_negative_tolerance_is_refused_with_its_own_message() {
    let dir = temp();
    let d = dir.path();
    let from = "expect storm.before.completion_rate > 0.99";
    for (to, shown) in [
        ("expect storm.before.completion_rate == 1 within -5%", "-5%"),
        (
            "expect storm.before.completion_rate == 1 within -0.5",
            "-0.5",
        ),
    ] {
        let text = changed("checkout.squall", from, to);
        let (code, err) = check(d, &text);
        assert_eq!(code, 2, "{to}: {err}");
        // Before: `-5%` gave "expected `clock`, `run`, ... found `%`", and
        // `-0.5` was accepted (an expect that can never pass).
        assert!(err.contains("never negative"), "{to}: {err}");
        assert!(err.contains(&place(&text, shown)), "{to}: {err}");
    }
}

#[test]
fn after_warmup_with_warmup_0_says_the_warm_up_is_empty() {
    let dir = temp();
    let text = changed("degradation.squall", "warmup 2min", "warmup 0min");
    let (code, err) = check(dir.path(), &text);
    assert_eq!(code, 2, "{err}");
    // Before: "the scenario has no `warmup`", though it declares one.
    assert!(err.contains("`warmup` is 0 ticks"), "{err}");
    assert!(!err.contains("has no `warmup`"), "{err}");
}

#[test]
fn jobs_past_the_bound_are_refused_with_the_bound() {
    let dir = temp();
    std::fs::copy(
        repo().join("scenarios/retry-storm.squall"),
        dir.path().join("rs.squall"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for cmd in ["run", "sweep"] {
        let (code, out, err) = run_in(dir.path(), &[cmd, "rs.squall", "--jobs", "100000"]);
        assert_eq!(code, 3, "{cmd}: {err}");
        assert!(err.contains("at most 1024 threads"), "{cmd}: {err}");
        assert!(out.is_empty(), "{cmd} ran");
    }
}

#[test]
fn an_unreadable_snapshot_is_not_reported_as_missing() {
    let dir = temp();
    let d = dir.path();
    std::fs::copy(
        repo().join("scenarios/retry-storm.squall"),
        d.join("rs.squall"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // Not UTF-8: unreadable as text whoever runs the test (root ignores
    // permissions, so a mode would not do).
    std::fs::create_dir_all(d.join("snapshots")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(d.join("snapshots/rs.md"), [0xff, 0xfe, 0x00]).unwrap_or_else(|e| panic!("{e}"));
    let (code, out, err) = run_in(d, &["test", "rs.squall"]);
    let all = format!("{out}{err}");
    assert_eq!(code, 1, "{all}");
    assert!(all.contains("cannot read the snapshot"), "{all}");
    assert!(!all.contains("no snapshot"), "{all}");
    // `--accept` does not replace what it could not read.
    let (code, _, _) = run_in(d, &["test", "rs.squall", "--accept"]);
    assert_eq!(code, 1);
    assert_eq!(
        std::fs::read(d.join("snapshots/rs.md")).ok(),
        Some(vec![0xff, 0xfe, 0x00])
    );
}

#[test]
fn check_warns_of_the_work_budget_once_with_the_count() {
    // 10^6 requests x 10 tries x 20 fields = 2 x 10^8 calls for the
    // variant, over the default budget of 10^8 (tests/invocation.rs works
    // the same bound); a sweep of 40 points over 11..50 tries gives 40 more
    // runs, each over it and none the same as the variant's.
    let fields: String = (0..20)
        .map(|i| format!("      field f{i} from {} core 1 B\n", ["x", "y"][i % 2]))
        .collect();
    let points: Vec<String> = (11..=50).map(|i| i.to_string()).collect();
    let text = format!(
        "scenario \"fan\" {{\n  run 1000 rounds\n  param tries = 10\n  source users {{ rate 1000/round  enters api }}\n  chain api -> agg -> [x, y]\n  service api {{ retry {{ attempts $tries  backoff fixed 0 rounds }} }}\n  service agg {{\n    response {{\n{fields}      marker 1 B\n      policy skip_optional\n    }}\n  }}\n  variant base {{ }}\n  sweep wide {{\n    tries in [{}]\n    variant base\n  }}\n}}\n",
        points.join(", ")
    );
    let dir = temp();
    let (code, err) = check(dir.path(), &text);
    assert_eq!(code, 0, "{err}");
    // One warning line: the variant's run, and the 40 points alike.
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("(and 40 other runs alike)"), "{err}");
    assert!(err.contains("200000000 calls"), "{err}");
}
