//! `squall diff` on two runs of one file that differ only in a policy:
//! under `draws common` replication r of one pairs with replication r of
//! the other, and a changed mean is judged by the interval of the
//! per-replication differences.

use squall_report::compare::rows::{table_diff, Judge};
use squall_report::compare::{compare, Comparison, DiffStyle};
use squall_report::{Block, Cell, Interval, Report, Study, StudyOptions};

use crate::support::*;

/// `scenarios/common-draws.squall` with `attempts` tries and one run (its
/// variants and lines replaced by one table of means over 20
/// replications), written to JSON and read back as `squall diff` reads a
/// saved report.
fn tries(attempts: u32) -> Result<Report, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(root().join("scenarios/common-draws.squall"))?;
    let head = &text[..text.find("  variant three").ok_or("no variants")?];
    assert!(head.contains("  param attempts = 3\n") && head.contains("  draws common\n"));
    let head = head.replace(
        "  param attempts = 3\n",
        &format!("  param attempts = {attempts}\n"),
    );
    let tail = r#"  variant run "tries" { }
  report {
    replications 20
    table "during the brownout" {
      rows variants
      at backend
      label "tries"
      column "completed share" = during.completion_rate :.4
      column "e2e p50 [ms]" = during.e2e_p50 :.2
      column "e2e p99 [ms]" = during.e2e_p99 :.1
    }
    line "e2e p50 during the brownout: {during.e2e_p50:.2} ms"
  }
}
"#;
    let s = load_text("tries.squall", &format!("{head}{tail}"))?;
    let report = Study::run(&s, StudyOptions::default())?.report();
    Ok(Report::from_json(&report.to_json())?)
}

/// The table's interval cells, in column order.
fn cells(r: &Report) -> Vec<Interval> {
    let Some(Block::Table(t)) = r.blocks.first() else {
        panic!("a table first: {r:?}");
    };
    t.rows[0]
        .iter()
        .filter_map(|c| match c {
            Cell::Interval(i, _) => Some(i.clone()),
            _ => None,
        })
        .collect()
}

/// The interval of the per-replication differences `y_r - x_r`, worked
/// here from the values the JSON carried, apart from the diff's own code.
fn differences(x: &Interval, y: &Interval) -> Option<Interval> {
    let d: Vec<Option<f64>> = x
        .values
        .iter()
        .zip(&y.values)
        .map(|(p, q)| Some((*q)? - (*p)?))
        .collect();
    Interval::of(&d)
}

fn diff(a: &Report, b: &Report) -> Comparison {
    compare(a, b, DiffStyle::Text { color: false })
}

/// Each column's changed cell as the diff prints it, judged paired or not.
fn changed_cells(a: &Report, b: &Report, paired: bool) -> Vec<String> {
    let table = |r: &Report| match r.blocks.first() {
        Some(Block::Table(t)) => t.clone(),
        _ => panic!("a table first"),
    };
    let judge = Judge {
        replicated: true,
        paired,
    };
    let d = table_diff(&table(a), &table(b), judge);
    d.rows[0].cells[1..]
        .iter()
        .map(|(c, _)| c.clone())
        .collect()
}

#[test]
fn a_policy_change_is_judged_by_its_paired_differences() -> TestResult {
    let (three, four) = (tries(3)?, tries(4)?);
    let (a, b) = (cells(&three), cells(&four));
    assert_eq!((a.len(), b.len()), (3, 3));
    let paired = diff(&three, &four);
    assert!(
        paired
            .text
            .contains("paired (both `draws common`, seed 5, 20 replications)"),
        "{}",
        paired.text
    );
    // The same two reports without what pairs them: today's judgement.
    let mut unpaired_old = three.clone();
    unpaired_old.pairing = None;
    let unpaired = diff(&unpaired_old, &four);
    assert!(unpaired
        .text
        .contains("unpaired (the old report does not record"));
    let paired_cells = changed_cells(&three, &four, true);
    let unpaired_cells = changed_cells(&three, &four, false);
    let mut verdicts = Vec::new();
    for (col, (x, y)) in a.iter().zip(&b).enumerate() {
        // The paired difference from the values the JSON carried: the
        // mean of the 20 differences is the difference of the two sides'
        // means of those values (a sum's order aside: 1e-9 is far above
        // that rounding), and its half-width is t(0.975, 19) s_d /
        // sqrt(20). The cells' own means are as printed (rounded).
        let di = differences(x, y).ok_or("differences")?;
        let mean = |v: &[Option<f64>]| Interval::of(v).map_or(f64::NAN, |i| i.mean);
        assert!(
            (di.mean - (mean(&y.values) - mean(&x.values))).abs() < 1e-9,
            "column {col}"
        );
        let (h, hx, hy) = (
            di.half_width.ok_or("h")?,
            x.half_width.ok_or("hx")?,
            y.half_width.ok_or("hy")?,
        );
        // Paired narrower than unpaired: unpaired, the difference of two
        // independent means has half-width t sqrt(s_x² + s_y²) / sqrt(20)
        // = sqrt(hx² + hy²); pairing takes 2 cov out of s_d², and the
        // common draws make the two runs' luck the same. Measured at this
        // seed 1.7x (completed share), 5x (p50) and 2.1x (p99): the bound
        // asks for 1.5x, as tests/common_draws.rs does, for the same reason.
        assert!(
            h * 1.5 < (hx * hx + hy * hy).sqrt(),
            "column {col}: paired {h} against {hx} and {hy}"
        );
        // The verdict follows from the interval: paired, beyond noise when
        // the differences' interval excludes 0; unpaired, when the two
        // intervals are apart.
        let word = |beyond: bool| {
            if beyond {
                "beyond noise"
            } else {
                "within noise"
            }
        };
        let paired_text = &paired_cells[col];
        let unpaired_text = &unpaired_cells[col];
        assert!(
            paired_text.ends_with(&format!("{})", word(di.mean.abs() > h))),
            "{paired_text}"
        );
        assert!(paired_text.contains("paired +"), "{paired_text}");
        assert!(
            unpaired_text.ends_with(&format!("{})", word((y.mean - x.mean).abs() > hx + hy))),
            "{unpaired_text}"
        );
        verdicts.push((paired_text.clone(), unpaired_text.clone()));
    }
    // A fourth try moves every column beyond noise, paired. The e2e p50
    // (20.66 ± 0.22 ms against 20.90 ± 0.23 ms at this seed) is the column
    // the pairing decides: the intervals overlap, so unpaired its change
    // is within noise, while its paired difference, +0.24 ± 0.06 ms,
    // excludes 0.
    assert!(
        verdicts.iter().all(|(p, _)| p.ends_with("beyond noise)")),
        "{verdicts:?}"
    );
    assert!(verdicts[1].1.ends_with("within noise)"), "{verdicts:?}");
    assert!(paired.beyond_noise);
    // The same e2e p50 in a `line`: the line keeps its value, so the diff
    // judges it as the table's cell, word for word, under its `+` line.
    let note = |c: &Comparison| {
        let at = c.text.find("+ e2e p50 during the brownout: ")?;
        c.text[at..].lines().nth(1).map(str::trim).map(String::from)
    };
    assert_eq!(
        note(&paired).as_ref(),
        Some(&verdicts[1].0),
        "{}",
        paired.text
    );
    assert_eq!(
        note(&unpaired).as_ref(),
        Some(&verdicts[1].1),
        "{}",
        unpaired.text
    );
    Ok(())
}

#[test]
fn identical_runs_pair_to_exactly_zero() -> TestResult {
    let (a, b) = (tries(3)?, tries(3)?);
    // The same file, seed and draws: the same run in every replication,
    // so each per-replication difference is x - x = 0 exactly.
    for (x, y) in cells(&a).iter().zip(&cells(&b)) {
        assert_eq!(x.values, y.values);
        let di = differences(x, y).ok_or("differences")?;
        assert_eq!((di.mean, di.half_width), (0.0, Some(0.0)));
    }
    let c = diff(&a, &b);
    assert!(!c.changed, "{}", c.text);
    assert!(c.text.ends_with("the reports are the same\n"), "{}", c.text);
    Ok(())
}
