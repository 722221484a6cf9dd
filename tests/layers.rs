//! `scenarios/retry-layers.squall` (document 003's first claim): where the
//! retries happen, checked against the independent round model of
//! `reference.rs` with the same tries per layer.

use squall_lang::{Metric, RunKey};

use crate::reference::RoundModel;
use crate::support::{eval_measure, eval_metric, load_file, node, run_study, variant, window};

#[test]
fn retrying_at_every_layer_multiplies_retrying_at_one_does_not(
) -> Result<(), Box<dyn std::error::Error>> {
    let s = load_file("scenarios/retry-layers.squall")?;
    let study = run_study(&s, Vec::new(), None)?;
    let db = node(&s, "db");
    let (during, aftermath) = (window(&s, "during"), window(&s, "aftermath"));
    // (variant, tries of edge, api, worker)
    for (name, tries) in [
        ("every", [3, 3, 3]),
        ("top", [3, 1, 1]),
        ("bottom", [1, 1, 3]),
        ("proxy", [3, 1, 3]),
    ] {
        let run = RunKey::Variant(variant(&s, name));
        let mut reference = RoundModel::document(3);
        reference.tries = tries.to_vec();
        let trace = reference.run();
        let w = trace.window(101, 160);
        let bound = f64::from(tries.iter().product::<u32>());
        assert_eq!(
            eval_measure(&study, run, "bound"),
            Some(bound),
            "{name}: bound"
        );
        assert_eq!(
            eval_metric(&study, run, during, Some(db), Metric::CallRate),
            Some(w.call_rate),
            "{name}: calls/round during"
        );
        assert_eq!(
            eval_metric(&study, run, during, Some(db), Metric::Amplification),
            w.amplification,
            "{name}: amplification"
        );
        assert_eq!(
            eval_metric(&study, run, aftermath, None, Metric::Dropped),
            Some(trace.window(101, 400).dropped as f64),
            "{name}: dropped"
        );
        let normal = trace.window(1, 100).call_rate;
        assert_eq!(
            eval_measure(&study, run, "recovery"),
            trace.recovery(160, 1.1 * normal).map(|r| r as f64),
            "{name}: recovery"
        );
    }
    // Retrying at one layer gives the same numbers wherever that layer is,
    // and far fewer calls than retrying at every layer.
    let amp = |v: &str| {
        eval_metric(
            &study,
            RunKey::Variant(variant(&s, v)),
            during,
            Some(db),
            Metric::Amplification,
        )
    };
    assert_eq!(amp("top"), amp("bottom"));
    assert!(amp("every") > amp("proxy") && amp("proxy") > amp("top"));
    Ok(())
}

/// `scenarios/early-warning.squall` (document 003): a database failing at
/// every third round while a retry one round later succeeds. Derived by
/// hand: the fault strikes at the rounds 201..400 divisible by 3 (67 of
/// them); the 3 requests of each such round fail their first try and
/// succeed at the second, so over the 600 requests of the window 201 need a
/// retry: first-try share 399/600, completed share 1, calls 801/600.
#[test]
fn first_try_success_falls_while_completion_stays_flat() -> Result<(), Box<dyn std::error::Error>> {
    let s = load_file("scenarios/early-warning.squall")?;
    let study = run_study(&s, Vec::new(), None)?;
    let run = RunKey::Variant(0);
    let (healthy, flaky) = (window(&s, "healthy"), window(&s, "flaky"));
    let db = node(&s, "db");
    let strikes = (201..=400).filter(|t| t % 3 == 0).count() as f64;
    assert_eq!(strikes, 67.0);
    let m = |w, metric, at| eval_metric(&study, run, w, at, metric);
    assert_eq!(m(healthy, Metric::FirstTryRate, None), Some(1.0));
    assert_eq!(m(flaky, Metric::CompletionRate, None), Some(1.0));
    assert_eq!(
        m(flaky, Metric::FirstTryOk, None),
        Some(600.0 - 3.0 * strikes)
    );
    assert_eq!(
        m(flaky, Metric::FirstTryRate, None),
        Some((600.0 - 3.0 * strikes) / 600.0)
    );
    assert_eq!(
        m(flaky, Metric::Calls, Some(db)),
        Some(600.0 + 3.0 * strikes)
    );
    Ok(())
}
