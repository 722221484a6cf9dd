//! A success on a path whose upper nodes only count it: the zero-time
//! walk counts it at each of them and ends the request without walking
//! back up (`simulation/plan.rs`, `Step::quiet_above`). A run that keeps
//! a call log walks every answer up (`deliver`: each answer is logged at
//! each node), so the two runs of one model hold the short way to the
//! general one: every count the same. The expected values are the general
//! way's.

use squall_engine::{Observations, Simulation};
use squall_lang::RunKey;

/// The retry storm of document 000 at its own scale; with `guard`, a
/// breaker at `worker`, above which no success is quiet.
fn storm(guard: bool) -> String {
    let breaker = if guard {
        "service worker { breaker { after 5 failures  cooldown 3 rounds } }"
    } else {
        ""
    };
    format!(
        r#"scenario "quiet" {{
  clock round
  run 300 rounds
  source users {{ rate 4/round  enters edge }}
  chain edge -> api -> worker -> db
  service edge, api, worker {{ retry {{ attempts 3  backoff fixed 4 rounds }} }}
  {breaker}
  service db {{ capacity 12/round }}
  fault brownout {{ on db  during 101..160  capacity 1/round }}
  window before 1..100
  window during 101..160
  window after 161..300
}}"#
    )
}

fn run(text: &str, log: bool) -> Observations {
    let s = squall_lang::load("quiet.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let m = s
        .model_for(RunKey::Variant(0), &[])
        .unwrap_or_else(|e| panic!("{e:?}"));
    let b = Simulation::builder(&m);
    let b = if log { b.call_log(1) } else { b };
    b.build()
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_short_way_up_counts_what_the_walk_up_counts() {
    for guard in [false, true] {
        let text = storm(guard);
        let (short, walked) = (run(&text, false), run(&text, true));
        for (s, w) in short.nodes.iter().zip(&walked.nodes) {
            let name = &s.name;
            assert_eq!(s.calls, w.calls, "{name}");
            assert_eq!(s.ok, w.ok, "{name}");
            assert_eq!(s.failed, w.failed, "{name}");
            assert_eq!(s.refused, w.refused, "{name}");
            assert_eq!(s.unique, w.unique, "{name}");
            assert_eq!(s.blocked, w.blocked, "{name}");
            assert_eq!(s.retries, w.retries, "{name}");
        }
        assert_eq!(short.accounting, walked.accounting);
        assert_eq!(short.completed, walked.completed);
        assert_eq!(short.dropped, walked.dropped);
        assert_eq!(short.first_try, walked.first_try);
        assert_eq!(short.window_unique, walked.window_unique);
        assert_eq!(short.traces, walked.traces);
        assert_eq!(short.events, walked.events);
        // Before the brownout `db` serves every call (4 a round, capacity
        // 12): the 400 requests of rounds 1..100 succeed at the entry, so
        // the short way was taken (without the breaker, on every path).
        let ok = |o: &Observations| {
            o.nodes[0].ok[1..=100]
                .iter()
                .map(|&x| u64::from(x))
                .sum::<u64>()
        };
        assert_eq!(ok(&short), 400);
    }
}

/// A node that passes every call is not asked for its own answer, so its
/// one replica picks nothing: what a run records of each replica's calls
/// (`ReplicaCounts::calls`, kept when a node has replicas) is its
/// series'. Three requests a round for ten rounds through two plain
/// nodes into two replicas that take every call: 30 calls at each node,
/// split between the replicas.
#[test]
fn a_node_that_passes_received_every_call() {
    let text = r#"scenario "replicas" {
  clock round
  run 10 rounds
  source users { rate 3/round  enters edge }
  chain edge -> api -> db
  service db { replicas 2 }
}"#;
    let o = run(text, false);
    assert_eq!(o.replicas.len(), 3);
    assert_eq!(o.replicas[0].calls, [30]);
    assert_eq!(o.replicas[1].calls, [30]);
    assert_eq!(o.replicas[2].calls.iter().sum::<u64>(), 30);
    assert_eq!(o.replicas[2].calls.len(), 2);
}
