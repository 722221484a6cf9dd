//! What a user sees for bad client-side input: one error, at the offending
//! text, saying what is wrong (and, where it helps, how to fix it). Never a
//! panic. The plain renderings are snapshotted together.

const HEADER: &str = "scenario \"d\" {\n  clock ms\n  run 10s\n  chain app -> server\n";

struct Case {
    name: &'static str,
    /// Lines after the header.
    body: &'static str,
    /// The text the error points at (its first occurrence in the body).
    at: &'static str,
    message: &'static str,
    help: Option<&'static str>,
}

const CASES: &[Case] = &[
    Case {
        name: "a retry policy with no tries",
        body: "  service app { retry { attempts 0  backoff fixed 100ms } }\n",
        at: "0  backoff",
        message: "`attempts` counts tries including the first, so it is at least 1",
        help: Some("`attempts 1` means no retries"),
    },
    Case {
        name: "unknown_attempts 0",
        body: "  service app { retry { attempts 3  backoff fixed 1ms  unknown_attempts 0 } }\n",
        at: "0 }",
        message: "`unknown_attempts` counts tries including the first, so it is at least 1",
        help: Some("`attempts 1` means no retries"),
    },
    Case {
        name: "a backoff cap below its base",
        body: "  backoff b = exponential 200ms x 2 cap 100ms\n  service app { retry { attempts 3  backoff b } }\n",
        at: "100ms",
        message: "the backoff cap (100) is below its base (200)",
        help: Some("the cap bounds the growing wait; make it at least the base"),
    },
    Case {
        name: "a multiplier below 1",
        body: "  service app { retry { attempts 3  backoff exponential 100ms x 0.5 } }\n",
        at: "0.5",
        message: "a backoff multiplier below 1 (0.5) would shrink the waits",
        help: None,
    },
    Case {
        name: "a Retry-After that cannot be parsed",
        body: "  endpoint server { default { 429 retry_after \"yesterday\" } }\n",
        at: "\"yesterday\"",
        message: "Retry-After `yesterday` is neither a delay nor a date squall can read",
        help: Some(
            "write a delay such as `2s`, or an HTTP date such as `Wed, 14 Jan 2026 09:00:02 GMT`",
        ),
    },
    Case {
        name: "a Retry-After date without an epoch",
        body: "  endpoint server { default { 429 retry_after \"Wed, 14 Jan 2026 09:00:02 GMT\" } }\n",
        at: "\"Wed",
        message: "a Retry-After date needs the scenario's `epoch` and a wall clock",
        help: Some(
            "add `epoch \"Wed, 14 Jan 2026 09:00:00 GMT\"` (the time of tick 0) and `clock ms` or `clock s`",
        ),
    },
    Case {
        name: "a Retry-After date before the epoch",
        body: "  epoch \"Wed, 14 Jan 2026 09:00:00 GMT\"\n  endpoint server { default { 429 retry_after \"Wed, 14 Jan 2026 08:00:00 GMT\" } }\n",
        at: "\"Wed, 14 Jan 2026 08",
        message: "this Retry-After date is before the scenario's epoch",
        help: None,
    },
    Case {
        name: "a Retry-After in rounds under clock ms",
        body: "  endpoint server { default { 429 retry_after 2 rounds } }\n",
        at: "2 rounds",
        message: "`round` does not fit `clock ms`: a round has no length in ms",
        help: Some("write the value in ms"),
    },
    Case {
        name: "retry_after neither honor nor ignore",
        body: "  service app { retry { attempts 3  backoff fixed 1ms  retry_after honr } }\n",
        at: "honr",
        message: "`retry_after honr` is not a choice",
        help: Some("did you mean `honor`?"),
    },
    Case {
        name: "an unknown rng",
        body: "  rng doc { mulberry32 seed 1 }\n  backoff b = full_jitter 200ms x 2 rng dok\n  service app { retry { attempts 3  backoff b } }\n",
        at: "dok",
        message: "unknown rng `dok`",
        help: Some("did you mean `doc`?"),
    },
    Case {
        name: "an unknown generator algorithm",
        body: "  rng r { mulbery32 seed 1 }\n",
        at: "mulbery32",
        message: "unknown generator `mulbery32`",
        help: Some("did you mean `mulberry32`?"),
    },
    Case {
        name: "a mulberry32 seed over 32 bits",
        body: "  rng r { mulberry32 seed 4294967296 }\n",
        at: "seed",
        message: "mulberry32 takes a 32-bit seed; 4294967296 is larger than 4294967295",
        help: None,
    },
    Case {
        name: "an unknown backoff",
        body: "  backoff jittered = full_jitter 200ms x 2\n  service app { retry { attempts 3  backoff jitterd } }\n",
        at: "jitterd",
        message: "unknown backoff `jitterd`",
        help: Some("did you mean `jittered`?"),
    },
    Case {
        name: "an unknown policy on a service",
        body: "  policy background { attempts 3  backoff fixed 1s }\n  service app { retry backgrund }\n",
        at: "backgrund",
        message: "unknown policy `backgrund`",
        help: Some("did you mean `background`?"),
    },
    Case {
        name: "an unknown policy on an operation",
        body: "  policy background { attempts 3  backoff fixed 1s }\n  service app { retry background }\n  source ui { enters app  sequential { op \"x\" GET /x policy backgroud } }\n",
        at: "backgroud",
        message: "unknown policy `backgroud`",
        help: Some("did you mean `background`?"),
    },
    Case {
        name: "`*` as the method of an operation",
        body: "  source ui { enters app  sequential { op \"x\" * /a } }\n",
        at: "op \"x\"",
        message: "a request needs a concrete method, found `*`",
        help: Some("`*` matches any method in a route, but a request is `GET`, `POST`, ..."),
    },
    Case {
        name: "`*` as the method of a source's requests",
        body: "  source ui { enters app  at [1ms]  request * /a }\n",
        at: "request",
        message: "a request needs a concrete method, found `*`",
        help: Some("`*` matches any method in a route, but a request is `GET`, `POST`, ..."),
    },
    Case {
        name: "`attempts` on an operation whose service has no retry policy",
        body: "  source ui { enters app  sequential { op \"x\" GET /x attempts 3 } }\n",
        at: "3 }",
        message: "`attempts` on an operation changes the retry policy of `app`, which has none",
        help: Some(
            "give the entry service a `retry { ... }`, or name a policy with `policy NAME`",
        ),
    },
    Case {
        name: "a breaker on a node that calls nothing",
        body: "  service server { breaker { after 3 failures  cooldown 5s } }\n",
        at: "breaker",
        message: "`server` has a breaker but calls nothing",
        help: Some(
            "a breaker guards calls to a dependency; put it on the service that calls `server`",
        ),
    },
    Case {
        name: "a retry policy on a node that calls nothing",
        body: "  service server { retry { attempts 3  backoff fixed 1ms } }\n",
        at: "retry",
        message: "`server` retries but calls nothing",
        help: Some(
            "retries belong to the caller; put this block on the service that calls `server`",
        ),
    },
    Case {
        name: "a breaker without a cool-down",
        body: "  service app { breaker { after 3 failures } }\n",
        at: "breaker",
        message: "a `breaker` needs a `cooldown`",
        help: Some("e.g. `breaker { after 3 failures  cooldown 5s }`"),
    },
    Case {
        name: "a breaker without a threshold",
        body: "  service app { breaker { cooldown 5s } }\n",
        at: "breaker",
        message: "a `breaker` needs `after N failures`",
        help: Some("e.g. `breaker { after 3 failures  cooldown 5s }`"),
    },
    Case {
        name: "a `trace` of a node without a breaker",
        body: "  source ui { enters app  at [1ms] }\n  report { trace \"t\" of app }\n",
        at: "app }",
        message: "`app` has no breaker to trace",
        help: None,
    },
    Case {
        name: "`operations` of a source without `sequential`",
        body: "  source ui { enters app  at [1ms] }\n  report { operations \"o\" of ui }\n",
        at: "ui }\n",
        message: "source `ui` has no `sequential` operations",
        help: None,
    },
    Case {
        name: "a script step with both a count and an end",
        body: "  endpoint server { default { 503 x 2 until 1s then 200 } }\n",
        at: "503 x 2",
        message: "a step lasts either `x N` calls or `until` a time, not both",
        help: None,
    },
];

/// `(line, column)`, both 1-based, of byte offset `at` in `text`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Loads `body` under the common header; it must fail with exactly one
/// diagnostic. Returns the file and the plain rendering.
fn reject(name: &str, body: &str) -> (String, squall_lang::Diagnostics) {
    let text = format!("{HEADER}{body}}}\n");
    match squall_lang::load("d.squall", &text) {
        Ok(_) => panic!("{name}: the file loads, but should not:\n{text}"),
        Err(d) => {
            assert_eq!(d.list.len(), 1, "{name}:\n{}", d.to_plain());
            (text, d)
        }
    }
}

#[test]
fn each_error_points_at_the_offending_text() {
    let mut all = String::new();
    for case in CASES {
        let (text, d) = reject(case.name, case.body);
        let offset = HEADER.len()
            + case
                .body
                .find(case.at)
                .unwrap_or_else(|| panic!("{}: `{}` is not in the body", case.name, case.at));
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
    insta::assert_snapshot!("client_diagnostics", all);
}

/// A negative wait cannot be written: the parser stops at the `-` and says
/// a value was expected there.
#[test]
fn a_negative_wait_is_a_parse_error() {
    let mut all = String::new();
    for (body, at) in [
        (
            "  service app { retry { attempts 3  backoff fixed -5ms } }\n",
            "-5ms",
        ),
        ("  backoff b = fixed -5ms\n", "-5ms"),
        ("  backoff b = full_jitter -200ms x 2 cap 5s\n", "-200ms"),
    ] {
        let (text, d) = reject("negative wait", body);
        let (line, col) = line_col(&text, HEADER.len() + body.find(at).expect("in the body"));
        let plain = d.to_plain();
        let message = &d.list[0].message;
        assert!(
            plain.starts_with(&format!("d.squall:{line}:{col}: error: expected ")),
            "{plain}"
        );
        assert!(message.contains("a value"), "{message}");
        assert!(message.ends_with(&format!("found `{at}`")), "{message}");
        all.push_str(&format!("=== {body}{plain}\n"));
    }
    insta::assert_snapshot!("negative_wait_diagnostics", all);
}

/// `probes 0` and `after 0 failures` are rejected, but with the wording of
/// a retry policy's `attempts`.
#[test]
fn breaker_settings_of_zero_are_explained_in_breaker_terms() {
    for (body, at) in [
        (
            "  service app { breaker { after 3 failures  cooldown 1s  probes 0 } }\n",
            "0 }",
        ),
        (
            "  service app { breaker { after 0 failures  cooldown 1s } }\n",
            "0 failures",
        ),
    ] {
        let (text, d) = reject("zero", body);
        let (line, col) = line_col(&text, HEADER.len() + body.find(at).expect("in the body"));
        let plain = d.to_plain();
        assert!(
            plain.starts_with(&format!("d.squall:{line}:{col}: ")),
            "{plain}"
        );
        assert!(plain.contains("at least 1"), "{plain}");
        assert!(
            !plain.contains("tries") && !plain.contains("retries"),
            "{plain}"
        );
    }
}

/// A fractional duration in `clock ms` names the unit `mss`.
#[test]
fn a_fractional_deadline_names_the_unit_correctly() {
    let body = "  service app { retry { attempts 3  backoff fixed 1ms  deadline 1.5ms } }\n";
    let (text, d) = reject("fraction", body);
    let (line, col) = line_col(
        &text,
        HEADER.len() + body.find("1.5ms").expect("in the body"),
    );
    let plain = d.to_plain();
    assert!(
        plain.starts_with(&format!(
            "d.squall:{line}:{col}: error: a deadline is 1.5 ms, not a whole number of ticks"
        )),
        "{plain}"
    );
    assert!(!plain.contains("mss"), "{plain}");
}
