//! `provider` and `sender` blocks (document 004's constructs): what they
//! resolve to, a variant's changes, `squall fmt`'s round trip, and the
//! located diagnostic of each kind of mistake.

use squall_lang::model::sending::*;
use squall_lang::{Overrides, RunKey};

use crate::common::{load_text_err, positions};

const BASE: &str = r#"scenario "send" {
  clock ms
  run 10min
  epoch "2026-01-14T09:00:00Z"

  provider sms {
    ceiling 12.5/s
    burst 5
    throttle 429 weight 0.7
    throttle 0x58 weight 0.3
    retry_after seconds
    bad 0.125% as [400, 404]
  }

  sender outbox to sms {
    records 9000 at 20/s
    senders 8
    rate 18/s
    latency 80ms
    window_attempts 900 per 1min
    terminal [400, 401, 403, 404, 422]
    retryable [429, 500..599, 0x58, 0x14]
    attempts 8
    unknown_attempts 2
    max_age 30min
    jitter 500ms cap 60s
    adaptive aimd { threshold 5%  decrease 0.5  step 0.5/s  every 1s  window 5s  min 1/s  max 1000/s }
  }

  variant fixed { }
  variant naive { sender outbox { client naive } }
  variant fast { provider sms { ceiling 50/s } sender outbox { adaptive aws_adaptive } }
}
"#;

fn specs(text: &str, variant: usize) -> Vec<(String, SendSpec)> {
    let s = squall_lang::load("send.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    s.sending(&s.overrides(RunKey::Variant(variant), &[]))
        .unwrap_or_else(|d| panic!("{d:?}"))
}

#[test]
fn blocks_resolve_to_a_study_in_ticks() {
    let got = specs(BASE, 0);
    assert_eq!(got.len(), 1);
    let (name, s) = &got[0];
    assert_eq!(name, "outbox");
    assert_eq!(s.ticks, 600_000);
    assert_eq!(s.bin, 60_000);
    assert_eq!(s.records.count, 9000);
    assert_eq!(s.records.rate, Some(0.02));
    assert_eq!(s.pool.senders, 8);
    assert_eq!(s.pool.rate, 0.018);
    assert_eq!(s.pool.latency, 80.0);
    assert_eq!(
        s.pool.window_cap,
        Some(WindowCap {
            attempts: 900,
            window: 60_000.0
        })
    );
    let p = &s.provider;
    assert_eq!(p.ceiling, 0.0125);
    assert_eq!(p.burst, 5.0);
    assert_eq!(p.success, ProviderCode::Http(200));
    assert_eq!(
        p.throttles,
        vec![
            (ProviderCode::Http(429), 0.7),
            (ProviderCode::Protocol(0x58), 0.3)
        ]
    );
    assert_eq!(p.retry_after, RetryAfterForm::Seconds);
    assert_eq!(p.bad_share, 0.00125);
    assert_eq!(
        p.bad_codes,
        vec![ProviderCode::Http(400), ProviderCode::Http(404)]
    );
    let ClientSpec::Classified(c) = &s.client else {
        panic!("{:?}", s.client)
    };
    // Success first, then the lines in the order written.
    assert_eq!(
        c.classifier.rules[0],
        (
            CodeMatch::Exact(ProviderCode::Http(200)),
            CodeClass::Success
        )
    );
    assert_eq!(
        c.classifier.classify(ProviderCode::Http(422)),
        CodeClass::Terminal
    );
    assert_eq!(
        c.classifier.classify(ProviderCode::Http(503)),
        CodeClass::Retryable
    );
    assert_eq!(
        c.classifier.classify(ProviderCode::Protocol(0x14)),
        CodeClass::Retryable
    );
    assert_eq!(
        c.classifier.classify(ProviderCode::Http(409)),
        CodeClass::Unknown
    );
    // Throttles default to the provider's.
    assert_eq!(
        c.throttles,
        vec![
            CodeMatch::Exact(ProviderCode::Http(429)),
            CodeMatch::Exact(ProviderCode::Protocol(0x58))
        ]
    );
    assert_eq!((c.max_attempts, c.unknown_attempts), (8, 2));
    assert_eq!(c.max_age, Some(1_800_000.0));
    assert_eq!((c.jitter_base, c.jitter_cap), (500.0, 60_000.0));
    assert!(c.honor_retry_after);
    // AIMD thinks in seconds.
    assert_eq!(
        s.adaptive,
        Some(AdaptiveSpec::Aimd(AimdSpec {
            threshold: 0.05,
            decrease: 0.5,
            step: 0.5,
            every: 1.0,
            window: 5.0,
            min: 1.0,
            max: 1000.0,
        }))
    );
}

#[test]
fn a_variant_replaces_the_keys_it_names() {
    let (_, naive) = &specs(BASE, 1)[0];
    assert!(matches!(naive.client, ClientSpec::Naive { .. }));
    // The naive client ignores the classified client's settings, adaptive
    // rate included.
    assert_eq!(naive.adaptive, None);
    let (_, fast) = &specs(BASE, 2)[0];
    assert_eq!(fast.provider.ceiling, 0.05);
    assert_eq!(fast.provider.burst, 5.0);
    assert_eq!(fast.adaptive, Some(AdaptiveSpec::AwsAdaptive));
    assert!(matches!(fast.client, ClientSpec::Classified(_)));
    // A scenario without senders has no sending study.
    let plain = squall_lang::load(
        "p.squall",
        "scenario \"p\" { run 5 rounds  source s { rate 1/round enters a }  chain a -> b }",
    )
    .unwrap();
    assert!(plain.sending(&Overrides::default()).unwrap().is_empty());
}

#[test]
fn fmt_round_trips() {
    let once = squall_lang::format::format_source(BASE).unwrap();
    let twice = squall_lang::format::format_source(&once).unwrap();
    assert_eq!(once, twice);
    assert_eq!(specs(&once, 2), specs(BASE, 2));
    assert!(once.contains("    throttle 0x58 weight 0.3\n"), "{once}");
    assert!(
        once.contains("retryable [429, 500..599, 0x58, 0x14]"),
        "{once}"
    );
}

/// `(text to replace, replacement, message part, help part)`: the first
/// diagnostic is at the replacement and says what is wrong.
const MISTAKES: &[(&str, &str, &str, &str)] = &[
    (
        "ceiling 12.5/s",
        "celing 12.5/s",
        "unknown setting `celing` in provider `sms`",
        "did you mean `ceiling`?",
    ),
    (
        "sender outbox to sms",
        "sender outbox to smss",
        "unknown provider `smss`",
        "did you mean `sms`?",
    ),
    (
        "records 9000 at 20/s",
        "records 9000.5",
        "`records` must be a whole number",
        "",
    ),
    (
        "adaptive aimd {",
        "adaptive aimdd {",
        "unknown setting `aimdd`",
        "",
    ),
    (
        "throttle 0x58 weight 0.3",
        "throttle 0x58 weight 0",
        "a weight must be above zero",
        "",
    ),
    (
        "bad 0.125% as [400, 404]",
        "bad 0.125% as [400..0x58]",
        "a range of codes runs from a lower HTTP status",
        "500..599",
    ),
    (
        "bad 0.125% as [400, 404]",
        "bad 125% as [400]",
        "`bad` is a share from 0 to 100 %",
        "",
    ),
    (
        "terminal [400, 401, 403, 404, 422]",
        "terminal [40, 401]",
        "`40` is not an HTTP status",
        "0x58",
    ),
    (
        "jitter 500ms cap 60s",
        "jitter 500ms 60s",
        "`jitter` needs `cap`",
        "jitter 500ms cap 60s",
    ),
    ("latency 80ms", "latency 80", "has no unit", "80ms"),
    (
        "attempts 8\n",
        "attempts 8\n    attempts 9\n",
        "`attempts` is set twice in sender `outbox`",
        "",
    ),
    (
        "{ sender outbox { client naive } }",
        "{ sender outbx { client naive } }",
        "unknown sender `outbx`",
        "did you mean `outbox`?",
    ),
    (
        "retry_after seconds",
        "retry_after secs",
        "`retry_after` takes `none`, `seconds` or `date`",
        "",
    ),
    (
        "rate 18/s",
        "rate 18/fortnight",
        "unknown unit `fortnight`",
        "",
    ),
    (
        "window_attempts 900 per 1min",
        "window_attempts 0 per 1min",
        "a window of 0 attempts never sends",
        "",
    ),
    (
        "latency 80ms",
        "latency 80ms\n    bin 1ms",
        "bins of the sender's series; at most 10000",
        "bin 10min",
    ),
    // Issue 20: `check` refuses what `run` cannot hold, where it is
    // written (the engine holds at most 10^7 records a run).
    (
        "records 9000 at 20/s",
        "records 100000000 at 20/s",
        "100000000 records; a run holds at most 10000000",
        "scale the study down",
    ),
    ("  epoch \"2026-01-14T09:00:00Z\"\n", "", "", ""),
];

#[test]
fn mistakes_get_located_diagnostics() {
    for &(from, to, msg, help) in MISTAKES {
        assert!(BASE.contains(from), "{from}");
        let text = BASE.replacen(from, to, 1);
        if msg.is_empty() {
            // Without an epoch, Retry-After in seconds still works.
            squall_lang::load("t.squall", &text).unwrap();
            continue;
        }
        let d = load_text_err(&text);
        let Some(i) = d.list.iter().position(|x| x.message.contains(msg)) else {
            panic!("{to}: {:?}", d.list)
        };
        let found = &d.list[i];
        assert!(
            found.help.as_deref().unwrap_or("").contains(help),
            "{to}: {:?}",
            found.help
        );
        // At the changed text (or inside it).
        let at = text.find(to).unwrap();
        let (line, _) = positions(&d)[i];
        let want = text[..at].lines().count() + usize::from(text[..at].ends_with('\n'));
        assert!(
            line >= want && line <= want + to.lines().count(),
            "{to}: line {line}, expected about {want}"
        );
    }
    // A date Retry-After needs the epoch; a round clock cannot send.
    let d = load_text_err(
        &BASE
            .replace("retry_after seconds", "retry_after date")
            .replace("  epoch \"2026-01-14T09:00:00Z\"\n", ""),
    );
    assert!(d.list[0].message.contains("needs the scenario's `epoch`"));
    let d = load_text_err(
        &BASE
            .replace("clock ms", "clock round")
            .replace("run 10min", "run 100 rounds"),
    );
    assert!(
        d.list
            .iter()
            .any(|x| x.message.contains("a sender needs a wall clock")),
        "{:?}",
        d.list
    );
}

/// Senders of one run share its record limit (10^7, the engine's): two
/// senders of 6 000 000 records each are refused at the second one's
/// `records` (line 7), which passes it; each alone is fine.
#[test]
fn the_record_limit_counts_every_sender_of_a_run() {
    let text = r#"scenario "two" {
  clock ms
  run 1min
  provider p { ceiling 10/s  throttle 429 }
  sender a to p { records 6000000  rate 1/s  client naive }
  sender b to p {
    records 6000000
    rate 1/s
    client naive
  }
}
"#;
    let d = load_text_err(text);
    assert_eq!(d.list.len(), 1, "{:?}", d.list);
    assert!(
        d.list[0]
            .message
            .contains("the senders' records add up to 12000000; a run holds at most 10000000"),
        "{}",
        d.list[0].message
    );
    assert_eq!(positions(&d)[0].0, 7);
    squall_lang::load(
        "one.squall",
        &text.replace("records 6000000\n", "records 4000000\n"),
    )
    .unwrap();
}

/// A sender fed by a source (`enters outbox`), with its mistakes.
const FED: &str = r#"scenario "fed" {
  clock ms
  run 10s
  provider sms { ceiling 40/s  throttle 429 }
  sender outbox to sms { rate 18/s  client naive }
  source new { rate 10/s  rate 30/s during 2s..3s  enters outbox }
}
"#;

#[test]
fn a_source_feeds_a_sender() {
    let got = specs(FED, 0);
    let s = &got[0].1;
    let feed = s.feed.as_ref().expect("a feed");
    // 10/s and 30/s are 0.01 and 0.03 a tick; 2s..3s is ticks 2000..=3000.
    assert_eq!(feed.rate, 0.01);
    assert_eq!(feed.periods.len(), 1);
    assert_eq!((feed.periods[0].from, feed.periods[0].to), (2000, 3000));
    assert_eq!(feed.periods[0].rate, 0.03);
    // The expected records size the run: ticks 0..=10 000 are 10 001
    // ticks, 1 001 of them in the period: 0.01 x 9 000 + 0.03 x 1 001 =
    // 90 + 30.03 = 120.03, rounded up to 121.
    assert_eq!(s.records.count, 121);
    assert_eq!(s.records.rate, None);
    // A variant changes a feeding source's rates like any source's: its
    // lines replace the source's (20/s is 0.02 a tick, no period left).
    let text = FED.replace(
        "enters outbox }\n",
        "enters outbox }\n  variant calm { }\n  variant busy { source new { rate 20/s } }\n",
    );
    let calm = specs(&text, 0);
    assert_eq!(calm[0].1.feed.as_ref().unwrap().rate, 0.01);
    let busy = specs(&text, 1);
    let feed = busy[0].1.feed.as_ref().unwrap();
    assert_eq!((feed.rate, feed.periods.len()), (0.02, 0));
}

#[test]
fn feeding_mistakes_are_located() {
    // (change, message, where it points)
    let cases = [
        (
            FED.replace(
                "rate 18/s  client naive",
                "records 10  rate 18/s  client naive",
            ),
            "has `records` and is fed by source `new`",
            "records 10",
        ),
        (
            FED.replace(
                "  source new { rate 10/s  rate 30/s during 2s..3s  enters outbox }\n",
                "",
            ),
            "has no `records` and no source feeds it",
            "outbox to",
        ),
        (
            FED.replace("enters outbox }", "enters outbox  request GET /x }"),
            "its records have no `request`",
            "GET /x",
        ),
        (
            FED.replace("enters outbox }", "enters outbox  deadline 2s }"),
            "its records have no `deadline`",
            "deadline 2s",
        ),
        (
            FED.replace(
                "enters outbox }\n",
                "enters outbox }\n  source more { rate 1/s  enters outbox }\n",
            ),
            "is fed by source `new` already",
            "outbox }\n}",
        ),
    ];
    for (text, msg, at) in cases {
        let d = load_text_err(&text);
        let Some(i) = d.list.iter().position(|x| x.message.contains(msg)) else {
            panic!("{msg}: {:?}", d.list)
        };
        let want = text[..text.find(at).unwrap()].lines().count();
        assert_eq!(positions(&d)[i].0, want, "{msg}: {:?}", d.list[i]);
    }
}
