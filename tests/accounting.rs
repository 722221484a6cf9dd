//! Nothing is lost: every request ends completed, dropped or in flight, and
//! the report's counts add up. (Every study in these tests also goes through
//! [`crate::support::run_study`], which checks each run's accounting.)

use squall_lang::RunKey;

use crate::generality::{check_chain, Chain};
use crate::reference::Fault;
use crate::support::*;

#[test]
fn a_run_cut_short_reports_pending_retries_as_in_flight() -> TestResult {
    // The document's chain stopped while the storm is still going: 10
    // rounds after the fault (it needs 25 to recover), and at the fault's
    // last round.
    let mut cases = Vec::new();
    for rounds in [170, 160] {
        cases.push(Chain {
            rounds,
            ..Chain::document()
        });
    }
    cases.push(Chain {
        rounds: 130,
        fault: Some(Fault {
            from: 101,
            to: 130,
            capacity: 0,
        }),
        ..Chain::document()
    });
    for c in cases {
        let (trace, _) = check_chain(&c)?;
        assert!(
            trace.active_at_end > 0,
            "the case leaves retries pending: {c:?}"
        );
        // The same count in the printed report.
        let s = load_text("cut.squall", &c.text())?;
        let study = run_study(&s, vec![], None)?;
        let a = study.runs[&RunKey::Variant(0)].obs.accounting;
        assert_eq!(a.in_flight, trace.active_at_end);
        assert_eq!(a.entered, a.completed + a.dropped + a.in_flight);
        let report = study.report();
        let table = report_table(&report, "accounting");
        let label = row_labels(table).remove(0);
        assert_eq!(
            report_cell(table, &label, "in flight"),
            trace.active_at_end.to_string()
        );
        assert_eq!(report_cell(table, &label, "balances"), "yes");
    }
    Ok(())
}

#[test]
fn a_finished_storm_leaves_nothing_in_flight() -> TestResult {
    let s = load_file(RETRY_STORM)?;
    let study = run_study(&s, vec![], None)?;
    for (key, run) in &study.runs {
        let a = run.obs.accounting;
        assert_eq!(a.in_flight, 0, "{key:?}");
        assert_eq!(a.entered, a.completed + a.dropped, "{key:?}");
    }
    Ok(())
}
