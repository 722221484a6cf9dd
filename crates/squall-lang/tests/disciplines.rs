//! `discipline fifo|lifo` on a service with `workers`: what it resolves
//! to, a variant that changes it, `squall fmt` keeping it, and its located
//! errors (an unknown word with the nearest one suggested, a discipline
//! without workers, a discipline on a work queue).

use squall_lang::{QueueDiscipline, RunKey};

use crate::common::{at, load_text_err, one_error, positions};

const FILE: &str = r#"scenario "disciplines" {
  clock ms
  run 1s
  source users { rate 10/s  enters api }
  chain api -> db
  service api { latency 1ms  workers 2 }
  service db { latency 5ms  workers 4  queue 100  discipline lifo }
  variant base "as declared" { }
  variant fair "db back to FIFO" { service db { discipline fifo } }
  variant last "api LIFO too" { service api { discipline lifo } }
}
"#;

fn disciplines(text: &str, variant: &str) -> Vec<QueueDiscipline> {
    let s = squall_lang::load("test.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let v = s.variants.iter().position(|v| v.name == variant).unwrap();
    let m = s.model_for(RunKey::Variant(v), &[]).unwrap();
    m.nodes
        .iter()
        .map(|n| {
            n.server
                .as_ref()
                .map(|s| s.discipline.clone())
                .unwrap_or_default()
        })
        .collect()
}

/// As written: api has none (FIFO, the default), db `lifo`; a variant
/// replaces db's with `fifo` or adds one to api, and leaves the rest.
#[test]
fn a_discipline_resolves_and_a_variant_replaces_it() {
    use QueueDiscipline::{Fifo, Lifo};
    assert_eq!(disciplines(FILE, "base"), [Fifo, Lifo]);
    assert_eq!(disciplines(FILE, "fair"), [Fifo, Fifo]);
    assert_eq!(disciplines(FILE, "last"), [Lifo, Lifo]);
    // Workers and queue are untouched by the discipline.
    let s = squall_lang::load("test.squall", FILE).unwrap();
    let m = s.model_for(RunKey::Variant(0), &[]).unwrap();
    let db = m.nodes[1].server.as_ref().unwrap();
    assert_eq!((db.workers, db.queue), (Some(4), Some(100)));
}

/// `squall fmt` writes the setting back as written, and the formatted
/// text resolves to the same disciplines.
#[test]
fn fmt_keeps_the_discipline() {
    let pretty = squall_lang::format::format_source(FILE).expect("formats");
    assert!(pretty.contains("discipline lifo"), "{pretty}");
    assert!(pretty.contains("discipline fifo"), "{pretty}");
    for v in ["base", "fair", "last"] {
        assert_eq!(disciplines(&pretty, v), disciplines(FILE, v), "{v}");
    }
    assert_eq!(
        squall_lang::format::format_source(&pretty).expect("formats"),
        pretty
    );
}

fn with_db(db: &str) -> String {
    FILE.replace(
        "service db { latency 5ms  workers 4  queue 100  discipline lifo }",
        db,
    )
}

/// An unknown word names the discipline it is closest to.
#[test]
fn an_unknown_discipline_suggests_the_nearest() {
    let text = with_db("service db { latency 5ms  workers 4  discipline lifi }");
    one_error(&text, "lifi", "unknown queue discipline `lifi`");
    let d = load_text_err(&text);
    assert_eq!(d.list[0].help.as_deref(), Some("did you mean `lifo`?"));
    assert_eq!(
        d.list[0].label,
        "expected `fifo`, `lifo`, `adaptive_lifo` or `codel`"
    );
    // Nothing close: no guess.
    let text = with_db("service db { latency 5ms  workers 4  discipline random }");
    let d = load_text_err(&text);
    assert_eq!(d.list[0].help, None);
}

/// A discipline orders calls waiting for a worker: without `workers` there
/// are none, and the setting is refused where it is written: on the
/// service, and again in the variant that sets one on the same service.
#[test]
fn a_discipline_needs_workers() {
    let text = with_db("service db { latency 5ms  discipline lifo }");
    let d = load_text_err(&text);
    let plain = d.to_plain();
    let says = "error: a `discipline` needs `workers`: it orders the calls waiting for a worker";
    assert_eq!(plain.matches(says).count(), 2, "{plain}");
    assert_eq!(
        positions(&d),
        [at(&text, "discipline lifo"), at(&text, "discipline fifo")]
    );
}

/// A work queue orders its messages by itself: `discipline` is not one of
/// its settings.
#[test]
fn a_work_queue_takes_no_discipline() {
    let text = r#"scenario "q" {
  clock ms
  run 1s
  source jobs { rate 10/s  enters q }
  chain q
  service q { consumers 2  work 5ms  discipline lifo }
}
"#;
    one_error(
        text,
        "discipline lifo",
        "`discipline` is not a work queue's setting",
    );
}

/// Given twice on one service: refused at the second.
#[test]
fn a_discipline_given_twice_is_refused() {
    let text = with_db("service db { workers 4  discipline lifo  discipline fifo }");
    let d = load_text_err(&text);
    let plain = d.to_plain();
    assert!(plain.contains("`discipline`"), "{plain}");
    assert_eq!(d.list.len(), 1, "{plain}");
    let (line, col) = d.list[0].span.line_col(&d.source);
    assert_eq!((line, col), at(&text, "discipline fifo"));
}
