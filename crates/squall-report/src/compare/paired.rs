//! Paired differences: replication `r` of one report against replication
//! `r` of the other.
//!
//! Two reports pair when both ran under `draws common` with the same seed
//! and the same number of replications: replication `r` of each then ran
//! under the same seed with the same keyed draws (see the replications
//! chapter, "Paired differences"), so the change in a cell is judged by
//! the N per-replication differences `d_r = new_r - old_r`: their mean
//! `m` and the same 95 % half-width `h = t(0.975, N - 1) · s_d / sqrt(N)`
//! as any interval ([`Interval::of`]). The change is beyond noise when
//! that interval excludes 0 (`|m| > h`). Replications where either side is
//! n/a are left out of the differences.
//!
//! What is needed to decide it travels with the report ([`Pairing`], JSON
//! `pairing`), and each interval cell keeps its per-replication values
//! (JSON `values`).

use super::cells::Noise;
use crate::document::{Cell, Pairing, Report};
use crate::interval::Interval;
use crate::number::to_fixed;

impl Pairing {
    /// Reads `{"draws", "seed", "replications"}`; `None` when a key is
    /// missing or of the wrong kind.
    pub fn from_json(v: &serde_json::Value) -> Option<Pairing> {
        Some(Pairing {
            draws: v.get("draws")?.as_str()?.to_string(),
            seed: v.get("seed")?.as_u64()?,
            replications: usize::try_from(v.get("replications")?.as_u64()?).ok()?,
        })
    }
}

/// Whether two replicated reports pair, and the sentence `squall diff`
/// prints about it: `Ok` when they pair, `Err` with the reason when not.
pub fn pairs(old: &Report, new: &Report) -> Result<String, String> {
    let (a, b) = match (&old.pairing, &new.pairing) {
        (Some(a), Some(b)) => (a, b),
        (None, _) => return Err(unrecorded("old")),
        (_, None) => return Err(unrecorded("new")),
    };
    let common = |p: &Pairing| p.draws == "common";
    let why = match (common(a), common(b)) {
        (false, false) => Some("neither report has `draws common`".to_string()),
        (false, true) => Some("the old report has no `draws common`".to_string()),
        (true, false) => Some("the new report has no `draws common`".to_string()),
        (true, true) if a.seed != b.seed => Some(format!("seed {} against {}", a.seed, b.seed)),
        (true, true) if a.replications != b.replications => Some(format!(
            "{} replications against {}",
            a.replications, b.replications
        )),
        (true, true) => None,
    };
    match why {
        Some(w) => Err(format!(
            "unpaired ({w}): a changed mean is judged by whether the two 95 % intervals overlap"
        )),
        None => Ok(format!(
            "paired (both `draws common`, seed {}, {} replications): a changed mean is judged \
             by the 95 % interval of its per-replication differences",
            a.seed, a.replications
        )),
    }
}

fn unrecorded(side: &str) -> String {
    format!(
        "unpaired (the {side} report does not record its draws, seed and replications): \
         a changed mean is judged by whether the two 95 % intervals overlap"
    )
}

/// The per-replication differences `new_r - old_r` of two interval cells
/// and their interval; `None` when either cell has no values, their counts
/// differ, or fewer than two replications have a value on both sides (no
/// spread to measure).
pub fn difference(old: &Cell, new: &Cell) -> Option<(Interval, usize)> {
    let (Cell::Interval(a, _), Cell::Interval(b, digits)) = (old, new) else {
        return None;
    };
    if a.values.is_empty() || a.values.len() != b.values.len() {
        return None;
    }
    let d: Vec<Option<f64>> = a
        .values
        .iter()
        .zip(&b.values)
        .map(|(x, y)| Some((*y)? - (*x)?))
        .collect();
    let i = Interval::of(&d)?;
    i.half_width.map(|_| (i, *digits))
}

/// How a changed interval cell reads under pairing, and how much the
/// change weighs: `old → new (+x.x%, paired +m ± h, beyond noise)`.
pub fn paired_change(old: &Cell, new: &Cell, d: &Interval, digits: usize) -> (String, Noise) {
    let h = d.half_width.unwrap_or(0.0);
    let (verdict, noise) = if d.mean.abs() > h {
        ("beyond noise", Noise::Beyond)
    } else {
        ("within noise", Noise::Within)
    };
    let sign = if d.mean > 0.0 { "+" } else { "" };
    let diff = format!(
        "paired {sign}{} ± {}",
        to_fixed(d.mean, digits),
        to_fixed(h, digits)
    );
    let mean = |c: &Cell| match c {
        Cell::Interval(i, d) => Some(to_fixed(i.mean, *d)),
        _ => None,
    };
    let relative = match (mean(old), mean(new)) {
        (Some(a), Some(b)) => super::cells::relative(&a, &b).map(|r| format!("{r}, ")),
        _ => None,
    }
    .unwrap_or_default();
    (
        format!(
            "{} → {} ({relative}{diff}, {verdict})",
            old.display(),
            new.display()
        ),
        noise,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{compare, DiffStyle};
    use crate::document::{Block, Table};

    /// A report of one interval cell over five replications with these
    /// values, under `draws` and `seed`, written to JSON and read back (so
    /// the test goes through what `squall diff` reads).
    fn report(values: [f64; 5], draws: &str, seed: u64) -> Report {
        let vals: Vec<Option<f64>> = values.iter().map(|x| Some(*x)).collect();
        let i = Interval::of(&vals).unwrap_or_else(|| panic!("five values"));
        let r = Report {
            title: "t".into(),
            meta: vec![("replications".into(), "5".into())],
            blocks: vec![Block::Table(Table {
                title: "cases".into(),
                columns: vec!["case".into(), "p99".into()],
                rows: vec![vec![Cell::Text("storm".into()), Cell::Interval(i, 2)]],
            })],
            pairing: Some(Pairing {
                draws: draws.into(),
                seed,
                replications: 5,
            }),
        };
        Report::from_json(&r.to_json()).unwrap_or_else(|e| panic!("{e}"))
    }

    const OLD: [f64; 5] = [10.0, 12.0, 11.0, 13.0, 14.0];
    /// OLD plus 1.0, 1.2, 0.8, 1.1, 0.9.
    const NEW: [f64; 5] = [11.0, 13.2, 11.8, 14.1, 14.9];

    fn text(a: &Report, b: &Report) -> String {
        compare(a, b, DiffStyle::Text { color: false }).text
    }

    /// By hand: the differences are 1.0, 1.2, 0.8, 1.1, 0.9, mean 1.0;
    /// their squared deviations 0 + 0.04 + 0.04 + 0.01 + 0.01 = 0.10, so
    /// s² = 0.10 / 4 = 0.025 and h = t(0.975, 4) · sqrt(0.025 / 5) =
    /// 2.776445 × 0.0707107 = 0.196324. Unpaired, OLD is 12 ± 2.776445 ×
    /// sqrt(2.5 / 5) = 12 ± 1.963 and NEW (squared deviations 4, 0.04,
    /// 1.44, 1.21, 3.61: s² = 2.575) is 13 ± 2.776445 × sqrt(0.515) =
    /// 13 ± 1.992: they overlap (1 < 3.955), so unpaired the change is
    /// within noise, while the paired interval 1.00 ± 0.20 excludes 0.
    #[test]
    fn a_paired_difference_is_the_interval_of_the_differences() {
        let (a, b) = (report(OLD, "common", 7), report(NEW, "common", 7));
        let cell = |r: &Report| match &r.blocks[0] {
            Block::Table(t) => t.rows[0][1].clone(),
            Block::Line { .. } => Cell::Missing,
        };
        let (d, digits) = difference(&cell(&a), &cell(&b)).unwrap_or_else(|| panic!("pairs"));
        // The t quantile is quoted to 7 digits (R: qt(0.975, 4) =
        // 2.7764451): 5e-8 × 0.0707 is far below the tolerance; the sums of
        // tenths carry rounding near 1e-15.
        assert!((d.mean - 1.0).abs() < 1e-12, "{}", d.mean);
        let h = d.half_width.unwrap_or_default();
        assert!(
            (h - 2.776_445_1 * (0.025_f64 / 5.0).sqrt()).abs() < 1e-7,
            "{h}"
        );
        assert!((h - 0.196_324).abs() < 1e-6, "{h}");
        assert_eq!(digits, 2);
        let paired = text(&a, &b);
        assert!(
            paired
                .contains("12.00 ± 1.96 → 13.00 ± 1.99 (+8.3%, paired +1.00 ± 0.20, beyond noise)"),
            "{paired}"
        );
        assert!(
            paired.contains("paired (both `draws common`, seed 7, 5 replications)"),
            "{paired}"
        );
        assert!(paired.ends_with("the reports differ\n"), "{paired}");
        // Not paired: the same cells judged by their two intervals.
        let separate = text(&report(OLD, "separate", 7), &report(NEW, "separate", 7));
        assert!(
            separate.contains("12.00 ± 1.96 → 13.00 ± 1.99 (+8.3%, within noise)"),
            "{separate}"
        );
        assert!(
            separate.contains("unpaired (neither report has `draws common`)"),
            "{separate}"
        );
        assert!(separate.ends_with("the reports differ within noise only\n"));
        let seeds = text(&a, &report(NEW, "common", 8));
        assert!(seeds.contains("unpaired (seed 7 against 8)"), "{seeds}");
        assert!(seeds.contains("within noise)"), "{seeds}");
        let mut old = a.clone();
        old.pairing = None;
        let unrecorded = text(&old, &b);
        assert!(
            unrecorded.contains("unpaired (the old report does not record its draws"),
            "{unrecorded}"
        );
    }

    /// The same values on both sides: every difference is exactly 0 (x - x),
    /// so the interval is 0 ± 0, and the diff says nothing changed.
    #[test]
    fn identical_replications_differ_by_exactly_zero() {
        let (a, b) = (report(OLD, "common", 7), report(OLD, "common", 7));
        let cell = match &a.blocks[0] {
            Block::Table(t) => t.rows[0][1].clone(),
            Block::Line { .. } => Cell::Missing,
        };
        let (d, _) = difference(&cell, &cell).unwrap_or_else(|| panic!("pairs"));
        assert_eq!((d.mean, d.half_width), (0.0, Some(0.0)));
        let c = compare(&a, &b, DiffStyle::Text { color: false });
        assert!(!c.changed && !c.beyond_noise, "{}", c.text);
        assert!(c.text.ends_with("the reports are the same\n"), "{}", c.text);
    }
}
