//! Faults on a link (`on api -> db`) and on the answer leg (`answer
//! latency + D`): what they resolve to, `without` removing one, `squall
//! fmt` keeping them, and their located errors (each refusal also has a
//! snapshot under `inputs/err/link-*`).

use squall_lang::RunKey;

use crate::common::{load_text_err, one_error};

const FILE: &str = r#"scenario "links" {
  clock ms
  run 1s
  source users { rate 10/s  arrivals poisson  enters edge }
  chain edge -> api -> db
  service edge, api { timeout 50ms  retry { attempts 3  backoff fixed 1ms } }
  service db { latency 5ms }
  fault slow { on edge -> api, api -> db  during 100ms..200ms  latency + 20ms  answer latency + 5ms }
  fault cut { on api -> db  during 300ms..400ms  partition }
  fault lossy { on api -> db  during 500ms..600ms  errors 25% as 503 }
  fault lost { on api -> db  during 700ms..800ms  fail timeout }
  fault late { on db  during 700ms..800ms  answer latency + 3ms }
  variant base "as declared" { }
  variant healed "no partition" { without cut }
}
"#;

fn model(text: &str, variant: &str) -> squall_lang::Model {
    let s = squall_lang::load("test.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let v = s.variants.iter().position(|v| v.name == variant).unwrap();
    s.model_for(RunKey::Variant(v), &[]).unwrap()
}

/// One fault per link, its caller in `link` and its callee in `node`;
/// the effects in ticks of `clock ms`; a node fault has no `link`.
#[test]
fn links_resolve_to_caller_and_callee() {
    let m = model(FILE, "base");
    let links: Vec<_> = m
        .faults
        .iter()
        .map(|f| (f.name.as_str(), f.link, f.node))
        .collect();
    assert_eq!(
        links,
        [
            ("slow", Some(0), 1),
            ("slow", Some(1), 2),
            ("cut", Some(1), 2),
            ("lossy", Some(1), 2),
            ("lost", Some(1), 2),
            ("late", None, 2),
        ]
    );
    assert_eq!(m.faults[0].timed.latency_add, Some(20.0));
    assert_eq!(m.faults[0].timed.answer_add, Some(5.0));
    assert!(m.faults[2].timed.partition);
    assert_eq!(m.faults[3].timed.errors, Some((0.25, 503)));
    assert!(m.faults[4].fail.is_some());
    assert_eq!(m.faults[5].timed.answer_add, Some(3.0));
    // A link fault strikes no node (the node's own fault code skips it).
    assert!(!m.faults[0].strikes_replica(0));
    assert!(m.faults[5].strikes_replica(0));
}

/// `without cut` removes the link fault as any fault.
#[test]
fn without_removes_a_link_fault() {
    let m = model(FILE, "healed");
    assert!(m.faults.iter().all(|f| f.name != "cut"));
    assert_eq!(m.faults.len(), 5);
}

/// `squall fmt` writes links and the new effects back, and the formatted
/// text resolves to the same model.
#[test]
fn fmt_keeps_links() {
    let pretty = squall_lang::format::format_source(FILE).expect("formats");
    for needle in [
        "on edge -> api, api -> db",
        "answer latency + 5ms",
        "partition",
        "fail timeout",
    ] {
        assert!(pretty.contains(needle), "{needle}: {pretty}");
    }
    assert_eq!(model(&pretty, "base"), model(FILE, "base"));
    let squeezed = FILE.replace("on api -> db  during 300ms", "on api->db  during 300ms");
    assert_eq!(model(&squeezed, "base"), model(FILE, "base"));
}

/// Each refusal, located where it is written.
#[test]
fn refusals_are_located() {
    let bad = FILE.replace("on api -> db  during 500ms", "on api -> dbx  during 500ms");
    one_error(&bad, "dbx", "unknown node `dbx`");
    let bad = FILE.replace("on api -> db  during 500ms", "on db -> edge  during 500ms");
    one_error(&bad, "db -> edge", "`db` does not call `edge`");
    let bad = FILE.replace("on api -> db  during 500ms", "on edge -> db  during 500ms");
    one_error(&bad, "edge -> db", "`edge` does not call `db`");
    let bad = FILE.replace(
        "on api -> db  during 500ms",
        "on api -> db, db  during 500ms",
    );
    one_error(
        &bad,
        "db  during 500ms",
        "fault `lossy` strikes nodes and links at once",
    );
    let bad = FILE.replace("errors 25% as 503", "capacity 2/s");
    one_error(
        &bad,
        "2/s",
        "`capacity` acts at a node, and fault `lossy` strikes links",
    );
    let bad = FILE.replace("errors 25% as 503", "latency x 2");
    one_error(
        &bad,
        "latency x 2",
        "`latency x` acts at a node, and fault `lossy` strikes links",
    );
    let bad = FILE.replace("answer latency + 3ms", "partition");
    one_error(
        &bad,
        "partition }\n  variant",
        "`partition` cuts a link, and fault `late` strikes nodes",
    );
    // Without the api's timeout, a lost try would wait forever.
    let bad = FILE
        .replace(
            "service edge, api { timeout 50ms ",
            "service edge { timeout 50ms ",
        )
        .replace(
            "  fault lost { on api -> db  during 700ms..800ms  fail timeout }\n",
            "",
        );
    one_error(
        &bad,
        "api -> db  during 300ms",
        "a try lost on the link `api -> db` would wait forever",
    );

    // A hedging api sets no per-try timeout (its timer sends the next
    // hedge): the help asks for the deadline.
    let bad = FILE.replace(
        "service edge, api { timeout 50ms ",
        "service api { hedge grpc { max_attempts 2  hedging_delay 10ms } }\n  service edge { timeout 50ms ",
    )
    .replace("  fault lost { on api -> db  during 700ms..800ms  fail timeout }\n", "");
    one_error(
        &bad,
        "api -> db  during 300ms",
        "a try lost on the link `api -> db` would wait forever",
    );
    let plain = load_text_err(&bad).to_plain();
    assert!(
        plain.contains("`api` hedges, so its tries end only at a deadline"),
        "{plain}"
    );
}
