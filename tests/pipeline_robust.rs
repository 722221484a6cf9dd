//! The whole pipeline on damaged scenarios: every file in `scenarios/`,
//! edited at random (seeded), goes through load, every run, the report in
//! every format, the series CSV and a chart. Each step may refuse with a
//! diagnostic or an error, but nothing panics and every run balances.

use std::panic::{catch_unwind, AssertUnwindSafe};

use squall_report::{Format, Study, StudyOptions};

use crate::support::read;

/// A small xorshift, so the edits are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Pieces that make edits land on meaningful text more often than random
/// bytes would.
const PIECES: [&str; 16] = [
    "0", "1", "999999", "-", "..", "x 0", "0ms", "1/round", "$", "}", "{", "[", "]", ",", " ", "\n",
];

fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut s = text.to_string();
    for _ in 0..1 + rng.below(3) {
        let mut at = rng.below(s.len() + 1);
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        match rng.below(3) {
            0 => {
                // Delete a short run.
                let mut end = (at + 1 + rng.below(8)).min(s.len());
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                s.replace_range(at..end, "");
            }
            1 => s.insert_str(at, PIECES[rng.below(PIECES.len())]),
            _ => {
                // Replace a digit run with another number.
                let digits: String = (0..1 + rng.below(3))
                    .map(|_| char::from(b'0' + rng.below(10) as u8))
                    .collect();
                let mut end = at;
                while end < s.len() && s.as_bytes()[end].is_ascii_digit() {
                    end += 1;
                }
                s.replace_range(at..end, &digits);
            }
        }
    }
    s
}

#[test]
fn damaged_scenarios_never_panic_anywhere_in_the_pipeline() {
    let mut files: Vec<_> = std::fs::read_dir("scenarios")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "squall"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "the scenarios are there");
    let mut rng = Rng(0x5eed_2026_1130);
    let (mut ran, mut refused) = (0, 0);
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        // SQUALL_FUZZ_ITERS raises the count for a longer hunt by hand.
        let iters: usize = std::env::var("SQUALL_FUZZ_ITERS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(60);
        for i in 0..iters {
            let damaged = mutate(&text, &mut rng);
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                let Ok(scenario) = squall_lang::load("damaged.squall", &damaged) else {
                    return false;
                };
                let Ok(study) = Study::run(&scenario, StudyOptions::default()) else {
                    return false;
                };
                for r in study.runs.values() {
                    assert!(
                        r.obs.accounting.balances(),
                        "{:?}: {:?}",
                        r.key,
                        r.obs.accounting
                    );
                }
                let report = study.report();
                for f in [Format::Text, Format::Markdown, Format::Json] {
                    assert!(report.render(f).ends_with('\n'));
                }
                let _ = study.series_csv();
                let _ = study.chart_svg(0);
                true
            }));
            match outcome {
                Ok(true) => ran += 1,
                Ok(false) => refused += 1,
                Err(_) => panic!("{} edit {i} panics:\n{damaged}", path.display()),
            }
        }
    }
    assert!(ran > 20 && refused > 20, "{ran} ran, {refused} refused");
}

/// (Once in `tests/degradation/diagnostics.rs`.)
/// Every line of the document's scenario left out in turn, and the file cut
/// short at many points: squall answers with a scenario or with
/// diagnostics, never a panic; what loads also runs and balances.
#[test]
fn nothing_panics_on_a_damaged_scenario() {
    let text = read("scenarios/degradation.squall");
    let lines: Vec<&str> = text.lines().collect();
    let mut damaged: Vec<String> = (0..lines.len())
        .map(|skip| {
            lines
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != skip)
                .map(|(_, l)| format!("{l}\n"))
                .collect()
        })
        .collect();
    let mut cut = 0;
    while cut < text.len() {
        if text.is_char_boundary(cut) {
            damaged.push(text[..cut].to_string());
        }
        cut += 37;
    }
    let (mut loaded, mut rejected) = (0, 0);
    for (i, t) in damaged.iter().enumerate() {
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            match squall_lang::load("damaged.squall", t) {
                Err(d) => {
                    assert!(!d.list.is_empty());
                    for x in &d.list {
                        assert!(x.span.end <= t.len(), "a span outside the file");
                    }
                    false
                }
                Ok(s) => {
                    if let Ok(study) = Study::run(&s, StudyOptions::default()) {
                        for r in study.runs.values() {
                            assert!(r.obs.accounting.balances(), "{:?}", r.key);
                        }
                        let _ = study.report().to_text();
                    }
                    true
                }
            }
        }));
        match outcome {
            Ok(true) => loaded += 1,
            Ok(false) => rejected += 1,
            Err(_) => panic!("damaged file {i} panics:\n{t}"),
        }
    }
    assert!(loaded >= 20, "{loaded} damaged files load");
    assert!(rejected >= 100, "{rejected} damaged files are rejected");
}
