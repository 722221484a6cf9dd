//! Same input, same bytes out: across runs, thread counts and seeds.

use squall_lang::{RunKey, Scenario};
use squall_report::{Report, Study, StudyOptions};

use crate::generality::compare_run;
use crate::reference::{Demand, Fault, RoundModel};
use crate::support::*;

fn render(r: &Report) -> [String; 3] {
    [r.to_text(), r.to_markdown(), r.to_json()]
}

fn report_in_pool(s: &Scenario, threads: usize) -> Result<[String; 3], Box<dyn std::error::Error>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let study = pool.install(|| Study::run(s, StudyOptions::default()))?;
    for run in study.runs.values() {
        assert_accounts(&run.obs, &format!("{threads} threads, {:?}", run.key));
    }
    Ok(render(&study.report()))
}

#[test]
fn the_same_scenario_twice_gives_the_same_bytes() -> TestResult {
    let s = load_file(RETRY_STORM)?;
    let a = render(&run_study(&s, vec![], None)?.report());
    // Loaded afresh, as a second process would.
    let s2 = load_file(RETRY_STORM)?;
    let b = render(&run_study(&s2, vec![], None)?.report());
    assert_eq!(a, b);
    Ok(())
}

#[test]
fn thread_count_does_not_change_the_report() -> TestResult {
    let s = load_file(RETRY_STORM)?;
    let one = report_in_pool(&s, 1)?;
    let four = report_in_pool(&s, 4)?;
    assert_eq!(one, four);
    Ok(())
}

/// The retry-storm chain with a Poisson source and a seed.
fn poisson_text(seed: u64) -> String {
    format!(
        r#"scenario "poisson storm" {{
  clock round
  run 400 rounds
  seed {seed}
  source users {{ rate 4/round  arrivals poisson  enters edge }}
  chain edge -> api -> worker -> db
  service edge, api, worker {{ retry {{ attempts 3  backoff fixed 4 rounds }} }}
  service db {{ capacity 12/round }}
  fault brownout {{ on db  during 101..160  capacity 1/round }}
  window before 1..100
  window during 101..160
  window after 161..400
  variant storm "storm" {{ }}
  variant calm "no fault" {{ without brownout }}
  report {{
    table "cases" {{
      rows variants x windows
      at db
      column "edge/round" = edge_rate :.2
      column "calls/round" = call_rate :.2
      column "unique/round" = unique_rate :.2
      column "amplification" = amplification :.2
      column "success" = success_rate :.4
    }}
  }}
}}
"#
    )
}

#[test]
fn a_poisson_source_is_reproducible_by_seed() -> TestResult {
    let s7 = load_text("poisson.squall", &poisson_text(7))?;
    let a = run_study(&s7, vec![], None)?;
    let b = run_study(&s7, vec![], None)?;
    let storm = RunKey::Variant(variant(&s7, "storm"));
    assert_eq!(
        a.runs[&storm].obs, b.runs[&storm].obs,
        "same seed, same run"
    );
    assert_eq!(render(&a.report()), render(&b.report()));
    assert_eq!(report_in_pool(&s7, 1)?, report_in_pool(&s7, 4)?);

    let s8 = load_text("poisson.squall", &poisson_text(8))?;
    let c = run_study(&s8, vec![], None)?;
    assert_ne!(
        a.runs[&storm].obs.arrivals, c.runs[&storm].obs.arrivals,
        "another seed, other arrivals"
    );
    assert_ne!(render(&a.report())[0], render(&c.report())[0]);

    // Random arrivals, the same round model: the reference replays the
    // arrivals squall drew and must agree on everything else.
    let arrivals: Vec<u64> = a.runs[&storm].obs.arrivals[1..]
        .iter()
        .map(|&x| u64::from(x))
        .collect();
    let total: u64 = arrivals.iter().sum();
    assert!(
        (1400..=1800).contains(&total),
        "about 4/round over 400 rounds: {total}"
    );
    let trace = RoundModel {
        demand: Demand::Counts(arrivals),
        fault: Some(Fault {
            from: 101,
            to: 160,
            capacity: 1,
        }),
        ..RoundModel::document(3)
    }
    .run();
    let windows: Vec<(String, u64, u64)> = [
        ("before", 1, 100),
        ("during", 101, 160),
        ("after", 161, 400),
    ]
    .iter()
    .map(|(n, x, y)| (n.to_string(), *x, *y))
    .collect();
    compare_run(&a, storm, &trace, &windows, "poisson seed 7");
    Ok(())
}
