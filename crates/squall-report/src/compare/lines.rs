//! The report's lines, old against new.
//!
//! Lines are shown as a text diff (`-` and `+`). How much a change weighs:
//! a line a `line` item wrote keeps its values (the cells its template put
//! into the text, JSON `values`), so when both reports have the same
//! number of such lines, the `n`-th of one is set against the `n`-th of the
//! other and each changed value is judged as a table cell is (by its
//! paired difference when the reports pair, else by whether the two
//! intervals overlap; see [`super::rows::Judge`]); the words around the
//! values must be the same, or the change is beyond noise. Under
//! replications each changed value's judgement is printed under its `+`
//! line. Every other line (a diagnosis, a line read back from a report
//! that kept no values) is judged by its printed intervals alone
//! ([`super::cells::lines_change`]).

use std::collections::HashMap;

use super::cells::{lines_change, same_cell, Noise};
use super::rows::{judge_cell, Judge};
use crate::document::{Block, Cell, Report};

/// The lines section of a diff: its rendering (without a heading) and how
/// much it weighs; `None` when the lines are the same.
pub(super) fn lines_section(
    old: &Report,
    new: &Report,
    judge: Judge,
    md: bool,
    color: bool,
) -> Option<(String, Noise)> {
    let (la, lb) = (all_text(old), all_text(new));
    if la == lb {
        return None;
    }
    let (va, vb) = (valued(old), valued(new));
    let mut notes: HashMap<&str, Vec<String>> = HashMap::new();
    let noise = if kinds(old) != kinds(new) {
        // The same lines in another order (a line with values where one
        // without stood): the report's shape changed, whatever its values.
        Noise::Beyond
    } else if va.len() == vb.len() {
        let mut noise = lines_change_or_none(&plain(old), &plain(new));
        for ((ta, xa), (tb, xb)) in va.iter().zip(&vb) {
            if ta == tb {
                continue;
            }
            if words(ta) != words(tb) || xa.len() != xb.len() {
                noise = Some(Noise::Beyond);
                continue;
            }
            for (o, n) in xa.iter().zip(xb.iter()) {
                if same_cell(&o.display(), &n.display()) {
                    continue;
                }
                let (text, weight) = judge_cell(o, n, judge);
                noise = noise.max(Some(weight));
                if judge.replicated {
                    let last = tb.lines().last().unwrap_or_default();
                    notes.entry(last).or_default().push(text);
                }
            }
        }
        // The texts differ, so something weighs: a value's change of
        // printed digits only, say, is within noise at least.
        noise.unwrap_or(Noise::Within)
    } else {
        lines_change(&la, &lb)
    };

    let mut out = String::new();
    if md {
        out.push_str("```diff\n");
    }
    for change in similar::TextDiff::from_lines(&la, &lb).iter_all_changes() {
        let sign = match change.tag() {
            similar::ChangeTag::Delete => "-",
            similar::ChangeTag::Insert => "+",
            similar::ChangeTag::Equal => continue,
        };
        let text = change.value().trim_end();
        let line = format!("{sign} {text}");
        if color && !md {
            let c = if sign == "-" { "31" } else { "32" };
            out.push_str(&format!("\x1b[{c}m{line}\x1b[0m\n"));
        } else {
            out.push_str(&line);
            out.push('\n');
        }
        if sign == "+" {
            for note in notes.get(text).into_iter().flatten() {
                out.push_str(&format!("    {note}\n"));
            }
        }
    }
    if md {
        out.push_str("```\n");
    }
    Some((out, noise))
}

/// How two texts of lines without values weigh; `None` when the same.
fn lines_change_or_none(old: &str, new: &str) -> Option<Noise> {
    (old != new).then(|| lines_change(old, new))
}

/// Every line of a report, one per line.
fn all_text(r: &Report) -> String {
    texts(r, |_| true)
}

/// The lines that keep no values, one per line.
fn plain(r: &Report) -> String {
    texts(r, <[Cell]>::is_empty)
}

fn texts(r: &Report, keep: impl Fn(&[Cell]) -> bool) -> String {
    r.blocks
        .iter()
        .filter_map(|b| match b {
            Block::Line { text, values } if keep(values) => Some(format!("{text}\n")),
            _ => None,
        })
        .collect()
}

/// Which of a report's lines keep values, in order: two reports whose
/// lines interleave differently are not the same report with other values.
fn kinds(r: &Report) -> Vec<bool> {
    r.blocks
        .iter()
        .filter_map(|b| match b {
            Block::Line { values, .. } => Some(!values.is_empty()),
            _ => None,
        })
        .collect()
}

/// The lines that keep their values, in order.
fn valued(r: &Report) -> Vec<(&str, &[Cell])> {
    r.blocks
        .iter()
        .filter_map(|b| match b {
            Block::Line { text, values } if !values.is_empty() => {
                Some((text.as_str(), values.as_slice()))
            }
            _ => None,
        })
        .collect()
}

/// What a line says apart from its numbers: its words, without `±` and
/// the tokens that are numbers (`12.5`, `(9`, `10)`, `3.2%`).
fn words(text: &str) -> Vec<&str> {
    text.split(' ')
        .filter(|t| {
            let core = t
                .trim_start_matches('(')
                .trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
            *t != "±" && core.parse::<f64>().is_err()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{compare, DiffStyle};
    use crate::document::Pairing;
    use crate::interval::Interval;

    /// A report of one `line` item, `p99 at db: V ms`, its value an
    /// interval over five replications with these values, written to JSON
    /// and read back (what `squall diff` reads).
    fn report(values: [f64; 5], draws: &str, word: &str) -> Report {
        let vals: Vec<Option<f64>> = values.iter().map(|x| Some(*x)).collect();
        let i = Interval::of(&vals).unwrap_or_else(|| panic!("five values"));
        let cell = Cell::Interval(i, 2);
        let r = Report {
            title: "t".into(),
            meta: vec![("replications".into(), "5".into())],
            blocks: vec![
                Block::text("a diagnosis without values".into()),
                Block::Line {
                    text: format!("p99 at {word}: {} ms", cell.display()),
                    values: vec![cell],
                },
            ],
            pairing: Some(Pairing {
                draws: draws.into(),
                seed: 7,
                replications: 5,
            }),
        };
        Report::from_json(&r.to_json()).unwrap_or_else(|e| panic!("{e}"))
    }

    const OLD: [f64; 5] = [10.0, 12.0, 11.0, 13.0, 14.0];
    /// OLD plus 1.0, 1.2, 0.8, 1.1, 0.9.
    const NEW: [f64; 5] = [11.0, 13.2, 11.8, 14.1, 14.9];

    /// The same figures as paired.rs's table cell, now in a line: paired,
    /// the differences 1.0, 1.2, 0.8, 1.1, 0.9 give 1.00 ± 0.20 (worked
    /// there by hand), which excludes 0; unpaired, 12.00 ± 1.96 and
    /// 13.00 ± 1.99 overlap. Before lines kept their values, both were
    /// judged by the overlap alone: within noise.
    #[test]
    fn a_line_value_is_judged_by_its_paired_difference() {
        let text = |a: &Report, b: &Report| compare(a, b, DiffStyle::Text { color: false });
        let paired = text(&report(OLD, "common", "db"), &report(NEW, "common", "db"));
        assert!(
            paired.text.contains(
                "+ p99 at db: 13.00 ± 1.99 ms\n    12.00 ± 1.96 → 13.00 ± 1.99 \
                 (+8.3%, paired +1.00 ± 0.20, beyond noise)\n"
            ),
            "{}",
            paired.text
        );
        assert!(paired.beyond_noise, "{}", paired.text);
        let separate = text(
            &report(OLD, "separate", "db"),
            &report(NEW, "separate", "db"),
        );
        assert!(
            separate
                .text
                .contains("    12.00 ± 1.96 → 13.00 ± 1.99 (+8.3%, within noise)\n"),
            "{}",
            separate.text
        );
        assert!(
            separate.changed && !separate.beyond_noise,
            "{}",
            separate.text
        );
        // Another word around the value is a real change, paired or not.
        let moved = text(&report(OLD, "common", "db"), &report(OLD, "common", "api"));
        assert!(moved.beyond_noise, "{}", moved.text);
        // The same values: nothing changed.
        let same = text(&report(OLD, "common", "db"), &report(OLD, "common", "db"));
        assert!(!same.changed, "{}", same.text);
    }

    /// The same two lines, a diagnosis and a valued line, in the other
    /// order: every text is unchanged, so neither the paired values nor
    /// the plain lines' intervals see a change, but the report reads
    /// differently, which is beyond noise.
    #[test]
    fn lines_in_another_order_are_beyond_noise() {
        let old = report(OLD, "common", "db");
        let mut new = old.clone();
        new.blocks.reverse();
        let d = compare(&old, &new, DiffStyle::Text { color: false });
        assert!(d.changed && d.beyond_noise, "{}", d.text);
    }

    #[test]
    fn words_leave_out_numbers_and_intervals() {
        assert_eq!(
            words("p99 at db: 12.30 ± 0.45 (9 of 10) ms, 3.5% of calls"),
            ["p99", "at", "db:", "of", "ms,", "of", "calls"]
        );
        assert_ne!(words("p99 at db: 12"), words("p50 at db: 12"));
    }
}
