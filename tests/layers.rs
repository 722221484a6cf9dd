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
