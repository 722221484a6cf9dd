//! Common random numbers (`draws common`): every run of a file under the
//! scenario's seed, and a timed run's draws keyed by request, node and
//! try, so that a variant's difference is its policy's. The expected
//! values here are not tuned numbers but properties that hold by
//! construction (identical variants give identical runs; a request that
//! meets the same nodes meets the same draws) and one comparison of
//! interval widths, with its margin argued below.

use squall_lang::RunKey;
use squall_report::{Block, Cell, Interval, Study, StudyOptions};

use crate::support::*;

/// `scenarios/common-draws.squall`: a timed chain with a brownout of
/// errors, `api` retrying with full jitter; two close variants (3 and 4
/// tries) and a copy of the first. `draws` is what the test puts in place
/// of its `draws common` line.
fn paired(draws: &str) -> Result<squall_lang::Scenario, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(root().join("scenarios/common-draws.squall"))?;
    assert!(text.contains("  draws common\n"));
    let text = text.replace("  draws common\n", &format!("  {draws}\n"));
    load_text("common-draws.squall", &text)
}

/// The intervals of the report's lines, in order: the fourth try's
/// difference in completed share, tries per request and e2e p99, then the
/// copy's difference in completed share.
fn line_intervals(draws: &str) -> Result<Vec<Interval>, Box<dyn std::error::Error>> {
    let s = paired(draws)?;
    let study = Study::run(&s, StudyOptions::default())?;
    let report = study.report();
    Ok(report
        .blocks
        .iter()
        .flat_map(|b| match b {
            Block::Line { values, .. } => values.clone(),
            Block::Table(_) => Vec::new(),
        })
        .filter_map(|c| match c {
            Cell::Interval(i, _) => Some(i),
            _ => None,
        })
        .collect())
}

#[test]
fn every_run_has_the_scenarios_seed_under_common_draws() -> TestResult {
    let common = paired("draws common")?;
    let separate = paired("draws separate")?;
    for v in 0..3 {
        let key = RunKey::Variant(v);
        assert_eq!(common.run_seed(key), 5);
        // Replication r of every variant has one seed: the pairs.
        assert_eq!(
            common.replication_seed(key, 3),
            common.replication_seed(RunKey::Variant(0), 3)
        );
        assert_ne!(separate.run_seed(key), 5);
    }
    Ok(())
}

#[test]
fn identical_variants_differ_by_exactly_zero_and_close_ones_pair_narrower() -> TestResult {
    let common = line_intervals("draws common")?;
    let separate = line_intervals("draws separate")?;
    assert_eq!((common.len(), separate.len()), (4, 4));
    // The copy of the first variant is the same run, replication by
    // replication: every difference is 0, and so is its interval.
    assert_eq!(common[3].mean, 0.0);
    assert_eq!(common[3].half_width, Some(0.0));
    // With separate draws the copy is another sample: its difference is
    // noise, with an interval that does not vanish.
    assert!(separate[3].half_width.is_some_and(|h| h > 0.0));
    // 3 against 4 tries. The difference's interval is t * s_d / sqrt(20)
    // either way; paired, s_d^2 = s_3^2 + s_4^2 - 2 cov, and the common
    // draws make the two runs' luck (which requests draw slow service or
    // an error) the same, so cov is large and positive. Measured at this
    // seed: completion 0.0008 against 0.0017, p99 1.41 ms against 3.94 ms
    // (2.1x and 2.8x); with the seeds shared but the keys taken out of a
    // build, the completion's came out at 0.0018, no narrower than
    // unpaired. The bound asks for 1.5x: the seeds are fixed, so
    // the test is deterministic, and the margin says the check is not tuned
    // to these seeds.
    for (i, what) in [(0, "completion"), (2, "e2e p99")] {
        let (p, u) = (common[i].half_width, separate[i].half_width);
        let (Some(p), Some(u)) = (p, u) else {
            panic!("{what}: no interval: {:?} {:?}", common[i], separate[i]);
        };
        assert!(
            p * 1.5 < u,
            "{what}: paired half-width {p} is not well under the unpaired {u}"
        );
    }
    // Both say the same thing: a fourth try completes more requests.
    assert!(common[0].mean > 0.0 && separate[0].mean > 0.0);
    Ok(())
}

/// Two sources into one backend through their own front nodes; the
/// variant doubles the second source. Every backend call of `a` draws its
/// service time from its own key, so `front_a`'s latencies (its calls wait
/// only for the backend, which has a worker for every call) are the same
/// in both runs under `draws common`. Without it, the backend's one stream
/// is drawn in arrival order and the second source's extra calls shift
/// every draw after the first of them.
const TWO_SOURCES: &str = r#"scenario "two sources" {
  clock ms
  run 20s
  DRAWS
  param rate_b = 50/s
  source a { rate 50/s  arrivals poisson  enters front_a }
  source b { rate $rate_b  arrivals poisson  enters front_b }
  chain front_a -> backend
  chain front_b -> backend
  service backend { latency exponential mean 10ms  workers 1000 }
  window all 1..end
  variant base "base" { }
  variant busy "busy b" { set rate_b = 100/s }
  report {
    table "front a" {
      rows variants
      at front_a
      column "p50" = all.p50 :.3
      column "p99" = all.p99 :.3
      column "mean" = all.latency_mean :.4
    }
  }
}"#;

fn front_a(draws: &str) -> Result<Vec<Vec<Cell>>, Box<dyn std::error::Error>> {
    let s = load_text("two.squall", &TWO_SOURCES.replace("DRAWS", draws))?;
    let study = Study::run(&s, StudyOptions::default())?;
    let report = study.report();
    let table = report
        .blocks
        .iter()
        .find_map(|b| match b {
            Block::Table(t) => Some(t.clone()),
            Block::Line { .. } => None,
        })
        .expect("a table");
    Ok(table.rows.iter().map(|r| r[1..].to_vec()).collect())
}

#[test]
fn a_request_meets_the_same_draws_whatever_else_the_run_drew() -> TestResult {
    let common = front_a("draws common")?;
    assert_eq!(common[0], common[1], "front a under draws common");
    let separate = front_a("draws separate")?;
    assert_ne!(separate[0], separate[1], "front a with separate draws");
    Ok(())
}
