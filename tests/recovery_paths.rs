//! Recovery reads the requests through the node (issue 19): a node is back
//! to normal when its calls are within the threshold *and* the requests of
//! the sources whose paths pass it complete at their normal share. The
//! share of *all* requests is the same when every request passes the node,
//! not when a second source never reaches it: its completed requests would
//! hide the node's own failing ones. Each case is worked by hand below.

use squall_engine::{Observations, Simulation};
use squall_lang::RunKey;
use squall_report::bins::Recovery;

use crate::support::{eval_measure, load_text, node, run_study};

/// Two sources on two chains, one tick a bin (nothing takes time):
/// `users`, 4 requests a round through `app -> db`, and `other`, 76 a
/// round into `cache`, which answers every call with success; nobody
/// retries. db's script answers 200 before tick 10, 503 at ticks 10..29
/// and 200 from tick 30; the fault `down` (503 over ticks 10..19) names
/// the first half of that. db's calls are 4 a tick throughout (one per
/// request of `users`), within the threshold 4.4 (1.1 x its 4 before the
/// fault) in every tick after the fault's last tick, 19.
///
/// Before the fault every request completes (share 1). At ticks 20..29
/// the 4 requests through db are dropped and the 76 of `other` complete:
/// the share of all requests is 76/80 = 0.95, within 10 % of 1, so the old
/// rule said db recovered at tick 20, 1 tick after the fault's end. The
/// requests through db complete at share 0 until tick 30, where all 4
/// complete: recovered 11 ticks after the fault's end (30 - 19; counts in
/// one-tick bins, so exact).
const ROUNDS: &str = r#"scenario "two sources" {
  run 40 rounds
  source users { rate 4/round  enters app }
  source other { rate 76/round  enters cache }
  chain app -> db
  chain cache
  endpoint db { default { 200 until 10 then 503 until 30 then 200 } }
  endpoint cache { default { 200 } }
  fault down { on db  during 10..19  fail 503 }
  window before 1..9
}
"#;

/// `text`'s first variant on the path it takes as written, and forced
/// through the timed path.
fn both_paths(
    text: &str,
) -> Result<[(squall_lang::Model, Observations); 2], Box<dyn std::error::Error>> {
    let s = load_text("paths.squall", text)?;
    let m = s.model_for(RunKey::Variant(0), &[])?;
    let run = |force: bool| -> Result<Observations, Box<dyn std::error::Error>> {
        let b = Simulation::builder(&m);
        let b = if force { b.force_timed() } else { b };
        Ok(b.build()?.run()?)
    };
    Ok([(m.clone(), run(false)?), (m.clone(), run(true)?)])
}

#[test]
fn recovery_reads_the_requests_through_the_node_on_both_paths(
) -> Result<(), Box<dyn std::error::Error>> {
    let s = load_text("paths.squall", ROUNDS)?;
    let db = node(&s, "db");
    for (i, (m, obs)) in both_paths(ROUNDS)?.iter().enumerate() {
        assert_eq!(obs.timed.is_some(), i == 1, "the path");
        // The old rule: the share of every request (worked above).
        let all = squall_report::bins::Goodput {
            completed: &obs.completed,
            dropped: &obs.dropped,
        };
        let calls = &obs.nodes[db].calls;
        assert_eq!(
            squall_report::bins::recovery_verdict(&obs.slots, calls, Some(&all), (10, 19), 4.4),
            Recovery::After(1),
            "path {i}: all requests"
        );
        assert_eq!(
            squall_report::recovery::node_verdict(m, obs, db, (10, 19), 4.4),
            Some(Recovery::After(11)),
            "path {i}: the requests through db"
        );
        // `cache` is passed by `other` alone, whose requests all complete:
        // its calls (76 a tick, within 1.1 x 76) are back at tick 20.
        let cache = node(&s, "cache");
        assert_eq!(
            squall_report::recovery::node_verdict(m, obs, cache, (10, 19), 83.6),
            Some(Recovery::After(1)),
            "path {i}: the requests through cache"
        );
    }
    Ok(())
}

/// The report's measure on the model of `ROUNDS`: run to tick 40, 11
/// ticks (worked above; over all requests it would be 1). Run to tick 25,
/// db still failing at the end: its calls are within the threshold from
/// tick 20, but the requests through it complete at share 0 from then to
/// the end against 1 before: starved, so `recovery(...)` has no value
/// (over all requests the share from tick 20 is 0.95, and it would be 1).
#[test]
fn a_node_whose_own_requests_fail_is_starved_beside_a_healthy_source(
) -> Result<(), Box<dyn std::error::Error>> {
    let text = |end: &str| {
        ROUNDS
            .replace("run 40 rounds", &format!("run {end} rounds"))
            .replace(
                "  window before 1..9\n",
                "  window before 1..9
  report {
    measure recovery = recovery(db, down, 1.1 * before.db.call_rate)
  }
",
            )
    };
    let run = RunKey::Variant(0);
    let s = load_text("paths.squall", &text("40"))?;
    let study = run_study(&s, Vec::new(), None)?;
    assert_eq!(eval_measure(&study, run, "recovery"), Some(11.0));
    let s = load_text("paths.squall", &text("25"))?;
    let study = run_study(&s, Vec::new(), None)?;
    assert_eq!(eval_measure(&study, run, "recovery"), None);
    Ok(())
}

/// The breaker model of `verdicts.rs` (a consecutive breaker that stays
/// open 30 s in front of a db failing from 10 s to 20 s, 100 requests a
/// second, bins of 1 s) with a second source of 1 900 requests a second
/// into `cache`, which never fails. The requests through db complete at
/// share 0 from 20 s to about 40.04 s, where the breaker closes: the bin
/// 40 001..41 000 ms is the first back to normal, 20 001 ms after the
/// fault's end (worked in `verdicts.rs`). Over all requests the share from
/// 20 s is 1 900 / 2 000 = 0.95, within 10 % of 1, and db would read as
/// recovered 1 ms after the fault. Run to 35 s, with the breaker still
/// open, the diagnosis says starved, in words, with the share of the
/// requests through db (0.000, not 0.95). On the timed path as written
/// (calls take time; the diagnosis's recovery line is read on such runs).
#[test]
fn a_second_source_does_not_hide_a_breaker_kept_open() -> Result<(), Box<dyn std::error::Error>> {
    let text = |end: &str| {
        format!(
            r#"scenario "open" {{
  clock ms
  run {end}
  series every 1s
  chain app -> db
  chain cache
  service app {{ breaker {{ after 5 failures  cooldown 30s }} }}
  service db {{ latency 2ms  workers 10  queue 100 }}
  service cache {{ latency 2ms  workers 100  queue 100 }}
  source users {{ rate 100/s  enters app }}
  source other {{ rate 1900/s  enters cache }}
  fault down {{ on db  during 10s..20s  fail 503 }}
  window before 1s..10s
  window aftermath 20s..{end}
  report {{
    measure recovery = recovery(db, down, 1.1 * before.db.call_rate)
    diagnose db in aftermath vs before
  }}
}}"#
        )
    };
    let run = RunKey::Variant(0);
    let s = load_text("open.squall", &text("60s"))?;
    let study = run_study(&s, Vec::new(), None)?;
    assert_eq!(eval_measure(&study, run, "recovery"), Some(20_001.0));
    let s = load_text("open.squall", &text("35s"))?;
    let study = run_study(&s, Vec::new(), None)?;
    assert_eq!(eval_measure(&study, run, "recovery"), None);
    let d = s
        .report
        .items
        .iter()
        .find_map(|item| match item {
            squall_lang::ReportItemSpec::Diagnose(d) => Some(d),
            _ => None,
        })
        .ok_or("no diagnose item")?;
    let lines = study.diagnose(d);
    let recovery = lines
        .iter()
        .find(|l| l.starts_with("recovery"))
        .ok_or("a recovery line")?;
    assert!(
        recovery.contains("is starved, not recovered")
            && recovery.contains("a share of 0.000, against 1.000"),
        "{recovery}"
    );
    Ok(())
}
