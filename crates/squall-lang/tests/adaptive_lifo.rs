//! `discipline adaptive_lifo { ... }` and a source's `priority`: what
//! they resolve to (folly's and HBase's defaults, the clock's units),
//! `squall fmt` keeping them, and their located errors.

use squall_lang::{AdaptiveLifo, QueueDiscipline, RunKey};

use crate::common::{at, load_text_err, one_error};

const FILE: &str = r#"scenario "adaptive" {
  clock ms
  run 1s
  source shop { rate 10/s  enters db  priority 1 }
  source batch { rate 10/s  enters db }
  chain db
  service db { latency 5ms  workers 4  queue 100  discipline adaptive_lifo }
  variant base "as declared" { }
  variant tuned "CoDel tuned" {
    service db { discipline adaptive_lifo { target_delay 2ms  interval 50ms  lifo_threshold 0.5 } }
  }
  variant hhvm "a count" { service db { discipline adaptive_lifo { lifo_switch_threshold 8 } } }
}
"#;

fn model(text: &str, variant: &str) -> squall_lang::Model {
    let s = squall_lang::load("test.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let v = s.variants.iter().position(|v| v.name == variant).unwrap();
    s.model_for(RunKey::Variant(v), &[]).unwrap()
}

fn discipline(text: &str, variant: &str) -> QueueDiscipline {
    model(text, variant).nodes[0]
        .server
        .as_ref()
        .unwrap()
        .discipline
        .clone()
}

/// Defaults: folly's 5 ms and 100 ms, HBase's 0.8 of the queue's 100;
/// a variant's settings replace them, and HHVM's count is taken as is.
#[test]
fn defaults_and_settings_resolve() {
    let a = |target_delay, interval, lifo_above| {
        QueueDiscipline::AdaptiveLifo(Box::new(AdaptiveLifo {
            target_delay,
            interval,
            lifo_above,
        }))
    };
    assert_eq!(discipline(FILE, "base"), a(5.0, 100.0, 80.0));
    assert_eq!(discipline(FILE, "tuned"), a(2.0, 50.0, 50.0));
    assert_eq!(discipline(FILE, "hhvm"), a(5.0, 100.0, 8.0));
    let m = model(FILE, "base");
    let priorities: Vec<u32> = m.sources.iter().map(|s| s.priority).collect();
    assert_eq!(priorities, [1, 0]);
}

/// Under `clock s` the defaults are the same times in seconds.
#[test]
fn defaults_follow_the_clock() {
    let text = FILE.replace("clock ms", "clock s");
    let QueueDiscipline::AdaptiveLifo(a) = discipline(&text, "base") else {
        panic!("not adaptive");
    };
    assert!((a.target_delay - 0.005).abs() < 1e-12, "{a:?}");
    assert!((a.interval - 0.1).abs() < 1e-12, "{a:?}");
}

/// `squall fmt` writes the block back (one line when it fits) and the
/// formatted text resolves the same; formatting it again changes nothing.
#[test]
fn fmt_keeps_the_block_and_the_priority() {
    let pretty = squall_lang::format::format_source(FILE).expect("formats");
    assert!(
        pretty.contains("discipline adaptive_lifo { lifo_switch_threshold 8 }"),
        "{pretty}"
    );
    assert!(pretty.contains("target_delay 2ms"), "{pretty}");
    assert!(pretty.contains("priority 1"), "{pretty}");
    for v in ["base", "tuned", "hhvm"] {
        assert_eq!(discipline(&pretty, v), discipline(FILE, v), "{v}");
    }
    assert_eq!(model(&pretty, "base").sources[0].priority, 1);
    assert_eq!(
        squall_lang::format::format_source(&pretty).expect("formats"),
        pretty
    );
}

/// A scenario whose only service is `db`.
fn with_db(db: &str) -> String {
    format!(
        r#"scenario "adaptive" {{
  clock ms
  run 1s
  source shop {{ rate 10/s  enters db }}
  chain db
  {db}
}}
"#
    )
}

/// A misspelt setting names the nearest one, at the setting.
#[test]
fn a_misspelt_setting_suggests_the_nearest() {
    let text = with_db(
        "service db { workers 4  queue 100  discipline adaptive_lifo { targt_delay 5ms } }",
    );
    one_error(
        &text,
        "targt_delay",
        "`discipline adaptive_lifo` has no setting `targt_delay`",
    );
    let d = load_text_err(&text);
    assert_eq!(
        d.list[0].help.as_deref(),
        Some("did you mean `target_delay`?")
    );
}

/// FIFO and LIFO take no settings.
#[test]
fn plain_disciplines_take_no_settings() {
    let text = with_db("service db { workers 4  discipline lifo { interval 5ms } }");
    one_error(
        &text,
        "interval 5ms",
        "`discipline lifo` has no setting `interval`",
    );
    let d = load_text_err(&text);
    assert_eq!(
        d.list[0].help.as_deref(),
        Some("`discipline lifo` takes no settings")
    );
}

/// folly refuses an interval not above the target delay.
#[test]
fn the_interval_is_longer_than_the_target() {
    let text = with_db(
        "service db { workers 4  queue 10  discipline adaptive_lifo { target_delay 50ms  interval 50ms } }",
    );
    one_error(
        &text,
        "50ms }",
        "a CoDel `interval` must be longer than its `target_delay`, and both above 0",
    );
}

/// A queue without a bound has no share to switch at: HHVM's count is
/// asked for, at the discipline's word; both thresholds at once are
/// refused too.
#[test]
fn an_unbounded_queue_needs_a_count() {
    let text = with_db("service db { workers 4  discipline adaptive_lifo }");
    one_error(
        &text,
        "adaptive_lifo }",
        "adaptive LIFO on a queue without a bound needs `lifo_switch_threshold`",
    );
    let text = with_db(
        "service db { workers 4  queue 10  discipline adaptive_lifo { lifo_threshold 0.5  lifo_switch_threshold 4 } }",
    );
    one_error(
        &text,
        "4 }",
        "adaptive LIFO switches at a share of the queue or at a count, not both",
    );
    let text = with_db(
        "service db { workers 4  queue 10  discipline adaptive_lifo { lifo_threshold 80 } }",
    );
    one_error(
        &text,
        "80 }",
        "`lifo_threshold` is a share in 0..1, found 80",
    );
}

/// Under `clock round` folly's wall-clock defaults do not exist.
#[test]
fn rounds_have_no_default_times() {
    let text = r#"scenario "r" {
  clock round
  run 10 rounds
  source users { rate 1/round  enters db }
  chain db
  service db { latency 1 round  workers 1  queue 10  discipline adaptive_lifo { interval 4 rounds } }
}
"#;
    one_error(
        text,
        "discipline adaptive_lifo",
        "`target_delay` has no default under `clock round`",
    );
}

/// A priority orders calls waiting for a worker: in a model without
/// `workers` anywhere it is refused where written.
#[test]
fn a_priority_needs_workers() {
    let text = r#"scenario "r" {
  clock round
  run 10 rounds
  source users { rate 1/round  enters db  priority 2 }
  chain db
  service db { capacity 5/round }
}
"#;
    one_error(text, "priority 2", "a source's `priority` needs `workers`");
    let (line, _) = at(text, "priority 2");
    assert_eq!(line, 4);
}
