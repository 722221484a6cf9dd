//! Memory follows work in flight, not the length of the run.

use squall_lang::RunKey;

use crate::generality::Chain;
use crate::reference::Fault;
use crate::support::*;

/// The most requests in flight at once in a run of `rounds` rounds.
fn peak_in_flight(c: &Chain) -> Result<u64, Box<dyn std::error::Error>> {
    let s = load_text("long.squall", &c.text())?;
    let study = run_study(&s, vec![], None)?;
    Ok(study.runs[&RunKey::Variant(0)].obs.peak_in_flight)
}

#[test]
fn peak_in_flight_does_not_grow_with_the_run() -> TestResult {
    // Healthy: every request is answered in the round it enters, so one is
    // in flight at a time however long the run.
    let healthy = |rounds| Chain {
        rounds,
        fault: None,
        ..Chain::document()
    };
    assert_eq!(peak_in_flight(&healthy(2_000))?, 1);
    assert_eq!(peak_in_flight(&healthy(20_000))?, 1);

    // A storm early on, then a long healthy tail: the peak is the storm's,
    // the same for 2 000 and 20 000 rounds, and no more than the
    // reference model ever holds.
    let stormy = |rounds| Chain {
        rounds,
        fault: Some(Fault {
            from: 101,
            to: 160,
            capacity: 1,
        }),
        ..Chain::document()
    };
    let short = peak_in_flight(&stormy(2_000))?;
    let long = peak_in_flight(&stormy(20_000))?;
    assert_eq!(short, long, "the peak does not depend on the run's length");
    let reference = stormy(1_000).reference().run().peak_active;
    assert!(
        (2..=reference).contains(&short),
        "peak {short} in flight, the reference holds at most {reference}"
    );
    Ok(())
}
