//! `optimistic [conflict CODE]` on a service, and `at [t x N]` on a
//! source (the study of optimistic-concurrency conflicts, N clients
//! starting together): what they resolve to, a variant that changes the
//! setting, `squall fmt` keeping both, and their located errors.

use squall_lang::{RunKey, Schedule};

use crate::common::{at, load_text_err, one_error, positions};

const FILE: &str = r#"scenario "conflicts" {
  clock ms
  run 10s
  source writers { at [1ms x 3, 5ms]  enters client }
  chain client -> db
  service client { retry { attempts 10  backoff fixed 5ms } }
  service db { latency 10ms  optimistic }
  variant base "as declared" { }
  variant gone "412 for a lost race" { service db { optimistic conflict 412 } }
}
"#;

fn load(text: &str, variant: &str) -> squall_lang::Model {
    let s = squall_lang::load("test.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let v = s.variants.iter().position(|v| v.name == variant).unwrap();
    s.model_for(RunKey::Variant(v), &[]).unwrap()
}

/// The conflict status of each node (`None`: not `optimistic`).
fn conflicts(text: &str, variant: &str) -> Vec<Option<u32>> {
    load(text, variant)
        .nodes
        .iter()
        .map(|n| n.server.as_ref().and_then(|s| s.optimistic))
        .collect()
}

/// As written: db answers a lost race with 409 (HTTP's Conflict, the
/// default); the variant replaces it with 412; the client is no versioned
/// node. `at [1ms x 3, 5ms]` is four send times, three of them at 1 ms.
#[test]
fn optimistic_resolves_and_a_variant_replaces_it() {
    assert_eq!(conflicts(FILE, "base"), [None, Some(409)]);
    assert_eq!(conflicts(FILE, "gone"), [None, Some(412)]);
    let m = load(FILE, "base");
    assert_eq!(m.sources[0].schedule, Schedule::At(vec![1, 1, 1, 5]));
}

/// `squall fmt` keeps both forms, and the formatted text resolves the same.
#[test]
fn fmt_keeps_optimistic_and_repeated_send_times() {
    let pretty = squall_lang::format::format_source(FILE).expect("formats");
    assert!(pretty.contains("optimistic conflict 412"), "{pretty}");
    assert!(pretty.contains("at [1ms x 3, 5ms]"), "{pretty}");
    for v in ["base", "gone"] {
        assert_eq!(conflicts(&pretty, v), conflicts(FILE, v), "{v}");
    }
    assert_eq!(
        squall_lang::format::format_source(&pretty).expect("formats"),
        pretty
    );
}

fn with_db(db: &str) -> String {
    FILE.replace("service db { latency 10ms  optimistic }", db)
}

/// Without a service time a call's read and commit fall in one moment and
/// no write could ever conflict: refused where written, on the service and
/// again in the variant that sets it.
#[test]
fn optimistic_needs_a_latency() {
    let text = with_db("service db { optimistic }");
    let d = load_text_err(&text);
    let plain = d.to_plain();
    let says = "error: an `optimistic` node needs `latency`";
    assert_eq!(plain.matches(says).count(), 2, "{plain}");
    assert_eq!(
        positions(&d),
        [
            at(&text, "optimistic }"),
            at(&text, "optimistic conflict 412")
        ]
    );
}

/// A lost race answers an error: a success status is refused at the code.
#[test]
fn a_success_status_for_a_conflict_is_refused() {
    let text = with_db("service db { latency 10ms  optimistic conflict 200 }");
    one_error(
        &text,
        "200 }",
        "`optimistic` answers with an error, and 200 is a success status (2xx)",
    );
}

/// A work queue's consumers take messages, not versioned writes.
#[test]
fn a_work_queue_takes_no_optimistic() {
    let text = r#"scenario "q" {
  clock ms
  run 1s
  source jobs { rate 10/s  enters q }
  chain q
  service q { consumers 2  work 5ms  optimistic }
}
"#;
    one_error(
        text,
        "optimistic",
        "`optimistic` is not a work queue's setting",
    );
}

/// `x 0` sends nothing, and is refused at the count; so is a fraction.
#[test]
fn a_send_time_sends_at_least_one_request() {
    let text = FILE.replace("at [1ms x 3, 5ms]", "at [1ms x 0]");
    one_error(&text, "0]", "`x 0`: a send time sends 1 or more requests");
    let text = FILE.replace("at [1ms x 3, 5ms]", "at [1ms x 2.5]");
    one_error(
        &text,
        "2.5]",
        "a number of requests at a send time must be a whole number, found 2.5",
    );
}
