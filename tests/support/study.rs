//! Running a study with every run's accounting checked, and evaluating its
//! metrics and measures.

use squall_engine::Observations;
use squall_lang::{Metric, RExpr, RunKey, Scenario, Setting};
use squall_report::eval::Ctx;
use squall_report::{Study, StudyOptions};

/// Runs a study and checks every run's accounting.
pub fn run_study<'s>(
    scenario: &'s Scenario,
    cli: Vec<Setting>,
    variants: Option<Vec<usize>>,
) -> Result<Study<'s>, Box<dyn std::error::Error>> {
    let study = Study::run(
        scenario,
        StudyOptions {
            cli,
            variants,
            jobs: None,
            ..Default::default()
        },
    )?;
    for run in study.runs.values() {
        assert_accounts(&run.obs, &format!("{} {:?}", scenario.file, run.key));
    }
    Ok(study)
}

/// Nothing is lost: every request that entered is completed, dropped or in
/// flight, and the entries are the sum of the arrivals.
pub fn assert_accounts(obs: &Observations, what: &str) {
    let a = obs.accounting;
    assert!(a.balances(), "{what}: accounting does not balance: {a:?}");
    let arrivals: u64 = obs.arrivals.iter().map(|&x| u64::from(x)).sum();
    assert_eq!(a.entered, arrivals, "{what}: entered vs sum of arrivals");
    let completed: u64 = obs.completed.iter().map(|&x| u64::from(x)).sum();
    let dropped: u64 = obs.dropped.iter().map(|&x| u64::from(x)).sum();
    assert_eq!(a.completed, completed, "{what}: completed vs its series");
    assert_eq!(a.dropped, dropped, "{what}: dropped vs its series");
}

/// The index of a variant by name.
pub fn variant(s: &Scenario, name: &str) -> usize {
    s.variants
        .iter()
        .position(|v| v.name == name)
        .unwrap_or_else(|| panic!("no variant `{name}`"))
}

/// The index of a node by name.
pub fn node(s: &Scenario, name: &str) -> usize {
    s.nodes
        .iter()
        .position(|n| n.name == name)
        .unwrap_or_else(|| panic!("no node `{name}`"))
}

/// The index of a window by name.
pub fn window(s: &Scenario, name: &str) -> usize {
    s.windows
        .iter()
        .position(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no window `{name}`"))
}

/// A measure of the report, by name.
pub fn measure(s: &Scenario, name: &str) -> usize {
    s.report
        .measures
        .iter()
        .position(|m| m.name == name)
        .unwrap_or_else(|| panic!("no measure `{name}`"))
}

/// The value of measure `name` in `run`.
pub fn eval_measure(study: &Study, run: RunKey, name: &str) -> Option<f64> {
    let e = RExpr::Measure {
        variant: None,
        measure: measure(study.scenario, name),
    };
    eval_in(study, run, &e)
}

/// The value of `e` in `run`, outside any window or node.
fn eval_in(study: &Study, run: RunKey, e: &RExpr) -> Option<f64> {
    let at = Ctx {
        run,
        window: None,
        node: None,
    };
    study.eval(e, at)
}

/// The value of `metric` over window `w` (at `node` for node metrics).
pub fn eval_metric(
    study: &Study,
    run: RunKey,
    w: usize,
    node: Option<usize>,
    metric: Metric,
) -> Option<f64> {
    let e = RExpr::Metric {
        variant: None,
        window: Some(w),
        node,
        replica: None,
        metric,
    };
    eval_in(study, run, &e)
}
