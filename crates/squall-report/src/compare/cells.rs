//! One printed cell against another: the same, changed within noise, or
//! changed beyond noise, and how the change reads (`old → new (+x.x%)`).

/// How much a change weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Noise {
    /// Inside the replications' noise: two overlapping 95 % intervals, or
    /// (in a report with replications) a number printed without its
    /// interval, which the intervals beside it judge.
    Within,
    /// A real change: intervals apart, a number of a single run, a text.
    Beyond,
}

/// A number's relative change, as `+x.x%`.
pub(super) fn relative(old: &str, new: &str) -> Option<String> {
    let (a, b) = (old.parse::<f64>().ok()?, new.parse::<f64>().ok()?);
    if a == 0.0 {
        return None;
    }
    let r = (b - a) / a.abs() * 100.0;
    Some(format!(
        "{}{}%",
        if r >= 0.0 { "+" } else { "" },
        crate::number::to_fixed(r, 1)
    ))
}

/// True when two printed cells say the same: the same text, or the same
/// number (a JSON report drops trailing zeros: `0.05` is `0.0500`).
pub fn same_cell(a: &str, b: &str) -> bool {
    let counts = |s: &str| s.split_once(" (").map(|(_, rest)| rest.to_string());
    a == b
        || matches!((a.parse::<f64>(), b.parse::<f64>()), (Ok(x), Ok(y)) if x == y)
        || matches!((interval_parts(a), interval_parts(b)), (Some(x), Some(y)) if x == y && counts(a) == counts(b))
}

/// How a changed cell reads, and how much the change weighs. `replicated`:
/// both reports come from replications, so a plain number is a total or a
/// mean printed without its interval.
pub fn changed_cell(old: &str, new: &str, replicated: bool) -> (String, Noise) {
    if let (Some(a), Some(b)) = (interval_parts(old), interval_parts(new)) {
        return interval_change(old, new, a, b);
    }
    let numbers = old.parse::<f64>().is_ok() && new.parse::<f64>().is_ok();
    let noise = if numbers && replicated {
        Noise::Within
    } else {
        Noise::Beyond
    };
    let text = match relative(old, new) {
        Some(r) => format!("{old} → {new} ({r})"),
        None => format!("{old} → {new}"),
    };
    (text, noise)
}

/// The mean and half-width of a printed interval cell (`12.30 ± 0.45`,
/// maybe followed by `(9 of 10)`).
fn interval_parts(text: &str) -> Option<(f64, f64)> {
    let (mean, rest) = text.split_once(" ± ")?;
    let half = rest.split(' ').next()?;
    Some((mean.parse().ok()?, half.parse().ok()?))
}

/// True when two intervals are apart: a conservative test (overlapping
/// intervals can still differ; separate ones differ at better than 5 %).
fn apart((m0, h0): (f64, f64), (m1, h1): (f64, f64)) -> bool {
    (m1 - m0).abs() > h0 + h1
}

/// A changed mean, and whether the change is more than noise: the two
/// 95 % intervals do not overlap.
fn interval_change(old: &str, new: &str, a: (f64, f64), b: (f64, f64)) -> (String, Noise) {
    let (verdict, noise) = if apart(a, b) {
        ("beyond noise", Noise::Beyond)
    } else {
        ("within noise", Noise::Within)
    };
    let num = |x: f64| crate::number::to_fixed(x, 12);
    let text = match relative(&num(a.0), &num(b.0)) {
        Some(r) => format!("{old} → {new} ({r}, {verdict})"),
        None => format!("{old} → {new} ({verdict})"),
    };
    (text, noise)
}

/// How much a change of the report's lines weighs: within noise when the
/// lines differ only in intervals (`22.3 ± 1.5`) that overlap, beyond
/// noise otherwise.
pub fn lines_change(old: &str, new: &str) -> Noise {
    let (Some((sa, ia)), Some((sb, ib))) = (skeleton(old), skeleton(new)) else {
        return Noise::Beyond;
    };
    if sa == sb && ia.len() == ib.len() && ia.iter().zip(&ib).all(|(a, b)| !apart(*a, *b)) {
        Noise::Within
    } else {
        Noise::Beyond
    }
}

/// The text with every `MEAN ± HALF` replaced by `±`, and the intervals in
/// order; `None` when there is no interval at all.
fn skeleton(text: &str) -> Option<(String, Vec<(f64, f64)>)> {
    let mut words = Vec::new();
    let mut intervals = Vec::new();
    for line in text.lines() {
        let tokens: Vec<&str> = line.split(' ').collect();
        let mut i = 0;
        while i < tokens.len() {
            let pair = (tokens.get(i + 1) == Some(&"±"))
                .then(|| Some((tokens[i].parse().ok()?, tokens.get(i + 2)?.parse().ok()?)))
                .flatten();
            if let Some(p) = pair {
                intervals.push(p);
                words.push("±");
                i += 3;
            } else {
                words.push(tokens[i]);
                i += 1;
            }
        }
        words.push("\n");
    }
    (!intervals.is_empty()).then(|| (words.join(" "), intervals))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_that_differ_only_in_overlapping_intervals_are_noise() {
        // 22.3 ± 1.5 spans 20.8..23.8 and 23.0 ± 1.2 spans 21.8..24.2: they
        // overlap (|23.0 - 22.3| = 0.7 <= 2.7).
        let a = "recovered 22.3 ± 1.5 rounds after\n";
        assert_eq!(
            lines_change(a, "recovered 23.0 ± 1.2 rounds after\n"),
            Noise::Within
        );
        // |30.0 - 22.3| = 7.7 > 1.5 + 1.2: apart.
        assert_eq!(
            lines_change(a, "recovered 30.0 ± 1.2 rounds after\n"),
            Noise::Beyond
        );
        // Another word is a real change, intervals or not.
        assert_eq!(
            lines_change(a, "recovered 22.3 ± 1.5 rounds later\n"),
            Noise::Beyond
        );
        assert_eq!(lines_change("a 1\n", "a 2\n"), Noise::Beyond);
    }

    #[test]
    fn a_plain_number_is_judged_by_the_intervals_only_under_replications() {
        assert_eq!(changed_cell("10", "12", false).1, Noise::Beyond);
        assert_eq!(changed_cell("10", "12", true).1, Noise::Within);
        // Text is never noise.
        assert_eq!(changed_cell("ok", "FAILED", true).1, Noise::Beyond);
    }
}
