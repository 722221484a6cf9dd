//! Comparing two reports table by table: what `squall diff` prints.
//!
//! Tables are matched by title, rows by their label (the first cell),
//! columns by heading. A cell changed when its printed text changed (so
//! noise below the printed digits never counts); a changed number reads
//! `old → new (+x.x%)`. A mean with an interval (a report with
//! `replications`) also says whether the change is `beyond noise` (the two
//! 95 % intervals are apart) or `within noise`. Tables with no change are listed by name only.
//! Lines of text are compared as lines; the `file` fact is ignored (two
//! files always differ by name).
//!
//! [`Report::from_json`] reads a report back from `--format json`, so
//! reports saved in two commits can be compared without running anything.

use indexmap::IndexMap;

use crate::document::{Block, Cell, Report, Table};

impl Report {
    /// Reads a report written with `--format json`.
    pub fn from_json(text: &str) -> Result<Report, String> {
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let title = v
            .get("title")
            .and_then(|t| t.as_str())
            .ok_or("it has no `title`; is it a squall JSON report?")?
            .to_string();
        let meta = match v.get("meta") {
            Some(serde_json::Value::Object(m)) => m
                .iter()
                .map(|(k, v)| {
                    let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                    (k.clone(), v)
                })
                .collect(),
            _ => Vec::new(),
        };
        let blocks = v
            .get("blocks")
            .and_then(|b| b.as_array())
            .ok_or("it has no `blocks`; is it a squall JSON report?")?;
        let mut out = Vec::new();
        for b in blocks {
            match b.get("kind").and_then(|k| k.as_str()) {
                Some("line") => out.push(Block::Line {
                    text: b
                        .get("text")
                        .and_then(|t| t.as_str())
                        .unwrap_or_default()
                        .to_string(),
                }),
                Some("table") => {
                    let strings = |key: &str| -> Vec<String> {
                        b.get(key)
                            .and_then(|c| c.as_array())
                            .map(|a| {
                                a.iter()
                                    .map(|x| x.as_str().unwrap_or_default().to_string())
                                    .collect()
                            })
                            .unwrap_or_default()
                    };
                    let rows = b
                        .get("rows")
                        .and_then(|r| r.as_array())
                        .map(|rows| {
                            rows.iter()
                                .map(|r| {
                                    r.as_array()
                                        .map(|cells| cells.iter().map(json_cell).collect())
                                        .unwrap_or_default()
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    out.push(Block::Table(Table {
                        title: b
                            .get("title")
                            .and_then(|t| t.as_str())
                            .unwrap_or_default()
                            .to_string(),
                        columns: strings("columns"),
                        rows,
                    }));
                }
                other => {
                    return Err(format!(
                        "a block of kind {} is not a table or a line",
                        other.unwrap_or("(none)")
                    ))
                }
            }
        }
        Ok(Report {
            title,
            meta,
            blocks: out,
        })
    }
}

fn json_cell(v: &serde_json::Value) -> Cell {
    match v {
        serde_json::Value::Null => Cell::Missing,
        serde_json::Value::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            let text = n.to_string();
            let digits = text.split_once('.').map_or(0, |(_, f)| f.len());
            Cell::Number(x, digits)
        }
        serde_json::Value::String(s) => Cell::Text(s.clone()),
        serde_json::Value::Object(m) if m.contains_key("mean") => json_interval(m),
        other => Cell::Text(other.to_string()),
    }
}

/// An interval cell (`{"mean", "half_width", "n", "replications"}`), its
/// digits read from how the mean was printed.
fn json_interval(m: &serde_json::Map<String, serde_json::Value>) -> Cell {
    let Some(Cell::Number(mean, digits)) = m.get("mean").map(json_cell) else {
        return Cell::Missing;
    };
    let count = |k: &str| m.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0) as usize;
    let n = count("n");
    Cell::Interval(
        crate::interval::Interval {
            mean,
            half_width: m.get("half_width").and_then(serde_json::Value::as_f64),
            n,
            replications: count("replications").max(n),
        },
        digits,
    )
}

/// How to print a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffStyle {
    /// Aligned text; `color` highlights changed cells.
    Text {
        /// ANSI colours.
        color: bool,
    },
    /// Markdown; changed cells in bold.
    Markdown,
}

/// The result of comparing two reports.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The rendering.
    pub text: String,
    /// True when anything differs.
    pub changed: bool,
}

/// A number's relative change, as `+x.x%`.
fn relative(old: &str, new: &str) -> Option<String> {
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
fn same_cell(a: &str, b: &str) -> bool {
    let counts = |s: &str| s.split_once(" (").map(|(_, rest)| rest.to_string());
    a == b
        || matches!((a.parse::<f64>(), b.parse::<f64>()), (Ok(x), Ok(y)) if x == y)
        || matches!((interval_parts(a), interval_parts(b)), (Some(x), Some(y)) if x == y && counts(a) == counts(b))
}

fn changed_cell(old: &str, new: &str) -> String {
    if let (Some(a), Some(b)) = (interval_parts(old), interval_parts(new)) {
        return interval_change(old, new, a, b);
    }
    match relative(old, new) {
        Some(r) => format!("{old} → {new} ({r})"),
        None => format!("{old} → {new}"),
    }
}

/// The mean and half-width of a printed interval cell (`12.30 ± 0.45`,
/// maybe followed by `(9 of 10)`).
fn interval_parts(text: &str) -> Option<(f64, f64)> {
    let (mean, rest) = text.split_once(" ± ")?;
    let half = rest.split(' ').next()?;
    Some((mean.parse().ok()?, half.parse().ok()?))
}

/// A changed mean, and whether the change is more than noise: the two
/// 95 % intervals do not overlap (a conservative test: overlapping
/// intervals can still differ, separate ones differ at better than 5 %).
fn interval_change(old: &str, new: &str, (m0, h0): (f64, f64), (m1, h1): (f64, f64)) -> String {
    let verdict = if (m1 - m0).abs() > h0 + h1 {
        "beyond noise"
    } else {
        "within noise"
    };
    let num = |x: f64| crate::number::to_fixed(x, 12);
    match relative(&num(m0), &num(m1)) {
        Some(r) => format!("{old} → {new} ({r}, {verdict})"),
        None => format!("{old} → {new} ({verdict})"),
    }
}

/// Compares `old` with `new`.
pub fn compare(old: &Report, new: &Report, style: DiffStyle) -> Comparison {
    let mut out = String::new();
    let mut changed = false;
    let md = style == DiffStyle::Markdown;
    let color = matches!(style, DiffStyle::Text { color: true });
    let heading = |s: &str, out: &mut String| {
        if md {
            out.push_str(&format!("\n## {s}\n\n"));
        } else {
            out.push_str(&format!("\n{s}\n"));
        }
    };
    let mark = |s: &str| -> String {
        if md {
            format!("**{s}**")
        } else if color {
            format!("\x1b[1;33m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    };
    out.push_str(&if md {
        format!("# {} vs {}\n", old.title, new.title)
    } else {
        format!("{} vs {}\n", old.title, new.title)
    });

    // Facts.
    let facts = |r: &Report| -> IndexMap<String, String> {
        let mut m: IndexMap<String, String> = IndexMap::new();
        for (k, v) in r.meta.iter().filter(|(k, _)| k != "file") {
            m.entry(k.clone())
                .and_modify(|x| {
                    x.push_str("; ");
                    x.push_str(v);
                })
                .or_insert_with(|| v.clone());
        }
        m
    };
    let (fa, fb) = (facts(old), facts(new));
    let mut fact_lines = Vec::new();
    for k in fa.keys().chain(fb.keys().filter(|k| !fa.contains_key(*k))) {
        let (a, b) = (fa.get(k), fb.get(k));
        if a != b {
            fact_lines.push(format!(
                "{k}: {} → {}",
                a.map_or("(none)", String::as_str),
                b.map_or("(none)", String::as_str)
            ));
        }
    }
    if old.title != new.title {
        fact_lines.insert(0, format!("title: {} → {}", old.title, new.title));
    }
    if !fact_lines.is_empty() {
        changed = true;
        heading("facts", &mut out);
        for l in fact_lines {
            out.push_str(&format!("- {}\n", mark(&l)));
        }
    }

    // Tables.
    let tables = |r: &Report| -> IndexMap<String, Table> {
        let mut m = IndexMap::new();
        for b in &r.blocks {
            if let Block::Table(t) = b {
                let mut title = t.title.clone();
                let mut n = 2;
                while m.contains_key(&title) {
                    title = format!("{} ({n})", t.title);
                    n += 1;
                }
                m.insert(title, t.clone());
            }
        }
        m
    };
    let (ta, tb) = (tables(old), tables(new));
    let mut unchanged = Vec::new();
    let titles: Vec<&String> = tb
        .keys()
        .chain(ta.keys().filter(|k| !tb.contains_key(*k)))
        .collect();
    for title in titles {
        match (ta.get(title), tb.get(title)) {
            (Some(a), Some(b)) => match table_diff(a, b, &mark) {
                None => unchanged.push(title.clone()),
                Some(rows) => {
                    changed = true;
                    heading(title, &mut out);
                    render_rows(&rows, md, &mut out);
                }
            },
            (None, Some(b)) => {
                changed = true;
                heading(&format!("{title} (new table)"), &mut out);
                let rows = whole_table(b, "+");
                render_rows(&rows, md, &mut out);
            }
            (Some(a), None) => {
                changed = true;
                heading(&format!("{title} (table removed)"), &mut out);
                let rows = whole_table(a, "-");
                render_rows(&rows, md, &mut out);
            }
            (None, None) => {}
        }
    }

    // Lines.
    let lines = |r: &Report| -> String {
        r.blocks
            .iter()
            .filter_map(|b| match b {
                Block::Line { text } => Some(format!("{text}\n")),
                Block::Table(_) => None,
            })
            .collect()
    };
    let (la, lb) = (lines(old), lines(new));
    if la != lb {
        changed = true;
        heading("lines", &mut out);
        if md {
            out.push_str("```diff\n");
        }
        for change in similar::TextDiff::from_lines(&la, &lb).iter_all_changes() {
            let sign = match change.tag() {
                similar::ChangeTag::Delete => "-",
                similar::ChangeTag::Insert => "+",
                similar::ChangeTag::Equal => continue,
            };
            let line = format!("{sign} {}", change.value().trim_end());
            if color && !md {
                let c = if sign == "-" { "31" } else { "32" };
                out.push_str(&format!("\x1b[{c}m{line}\x1b[0m\n"));
            } else {
                out.push_str(&line);
                out.push('\n');
            }
        }
        if md {
            out.push_str("```\n");
        }
    }

    if !unchanged.is_empty() {
        heading("unchanged", &mut out);
        for t in &unchanged {
            out.push_str(&format!("- {t}\n"));
        }
    }
    out.push('\n');
    out.push_str(if changed {
        "the reports differ\n"
    } else {
        "the reports are the same\n"
    });
    Comparison { text: out, changed }
}

/// Rows to print: a header and rows of cells (already marked).
type Rows = Vec<Vec<String>>;

fn whole_table(t: &Table, sign: &str) -> Rows {
    let mut rows = vec![t.columns.clone()];
    for r in &t.rows {
        let mut cells: Vec<String> = r.iter().map(Cell::display).collect();
        if let Some(first) = cells.first_mut() {
            *first = format!("{sign} {first}");
        }
        rows.push(cells);
    }
    rows
}

/// The changed rows of a table (with the header), or `None` when nothing
/// changed.
fn table_diff(a: &Table, b: &Table, mark: &dyn Fn(&str) -> String) -> Option<Rows> {
    let mut columns: Vec<String> = b.columns.clone();
    for c in &a.columns {
        if !columns.contains(c) {
            columns.push(c.clone());
        }
    }
    let index = |t: &Table| -> IndexMap<String, IndexMap<String, String>> {
        let mut m = IndexMap::new();
        for r in &t.rows {
            let label = r.first().map(Cell::display).unwrap_or_default();
            let cells: IndexMap<String, String> = t
                .columns
                .iter()
                .skip(1)
                .zip(r.iter().skip(1))
                .map(|(c, v)| (c.clone(), v.display()))
                .collect();
            m.insert(label, cells);
        }
        m
    };
    let (ra, rb) = (index(a), index(b));
    let mut out = vec![columns.clone()];
    let labels: Vec<&String> = rb
        .keys()
        .chain(ra.keys().filter(|k| !rb.contains_key(*k)))
        .collect();
    for label in labels {
        match (ra.get(label), rb.get(label)) {
            (Some(x), Some(y)) => {
                let same = x.len() == y.len()
                    && x.iter()
                        .all(|(c, v)| y.get(c).is_some_and(|w| same_cell(v, w)));
                if same {
                    continue;
                }
                let mut row = vec![label.clone()];
                for c in columns.iter().skip(1) {
                    let (old, new) = (x.get(c), y.get(c));
                    row.push(match (old, new) {
                        (Some(o), Some(n)) if same_cell(o, n) => n.clone(),
                        (Some(o), Some(n)) => mark(&changed_cell(o, n)),
                        (None, Some(n)) => mark(&format!("(new) {n}")),
                        (Some(o), None) => mark(&format!("{o} (removed)")),
                        (None, None) => String::new(),
                    });
                }
                out.push(row);
            }
            (None, Some(y)) => {
                let mut row = vec![mark(&format!("+ {label}"))];
                row.extend(
                    columns
                        .iter()
                        .skip(1)
                        .map(|c| y.get(c).cloned().unwrap_or_default()),
                );
                out.push(row);
            }
            (Some(x), None) => {
                let mut row = vec![mark(&format!("- {label}"))];
                row.extend(
                    columns
                        .iter()
                        .skip(1)
                        .map(|c| x.get(c).cloned().unwrap_or_default()),
                );
                out.push(row);
            }
            (None, None) => {}
        }
    }
    if out.len() == 1 && a.columns == b.columns {
        return None;
    }
    Some(out)
}

/// Visible width: ANSI escapes do not count.
fn width(s: &str) -> usize {
    let mut n = 0;
    let mut in_escape = false;
    for c in s.chars() {
        if in_escape {
            in_escape = c != 'm';
        } else if c == '\x1b' {
            in_escape = true;
        } else {
            n += 1;
        }
    }
    n
}

fn render_rows(rows: &Rows, md: bool, out: &mut String) {
    let Some((header, body)) = rows.split_first() else {
        return;
    };
    if md {
        let esc = |s: &String| s.replace('|', "\\|");
        out.push_str(&format!(
            "| {} |\n",
            header.iter().map(esc).collect::<Vec<_>>().join(" | ")
        ));
        let align: Vec<&str> = (0..header.len())
            .map(|i| if i == 0 { ":---" } else { "---:" })
            .collect();
        out.push_str(&format!("| {} |\n", align.join(" | ")));
        for r in body {
            out.push_str(&format!(
                "| {} |\n",
                r.iter().map(esc).collect::<Vec<_>>().join(" | ")
            ));
        }
        return;
    }
    let n = header.len();
    let mut widths: Vec<usize> = header.iter().map(|c| width(c)).collect();
    for r in body {
        for (i, c) in r.iter().enumerate().take(n) {
            widths[i] = widths[i].max(width(c));
        }
    }
    let line = |cells: &[String], out: &mut String| {
        let parts: Vec<String> = widths
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let c = cells.get(i).map_or("", String::as_str);
                let pad = " ".repeat(w.saturating_sub(width(c)));
                if i == 0 {
                    format!("{c}{pad}")
                } else {
                    format!("{pad}{c}")
                }
            })
            .collect();
        out.push_str(parts.join("  ").trim_end());
        out.push('\n');
    };
    line(header, out);
    let dashes: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    out.push_str(&dashes.join("  "));
    out.push('\n');
    for r in body {
        line(r, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(amp: f64, line: &str) -> Report {
        Report {
            title: "t".into(),
            meta: vec![
                ("file".into(), "a.squall".into()),
                ("seed".into(), "1".into()),
            ],
            blocks: vec![
                Block::Line { text: line.into() },
                Block::Table(Table {
                    title: "cases".into(),
                    columns: vec!["case".into(), "amplification".into(), "success".into()],
                    rows: vec![
                        vec![
                            Cell::Text("storm".into()),
                            Cell::Number(amp, 2),
                            Cell::Number(0.04, 4),
                        ],
                        vec![
                            Cell::Text("calm".into()),
                            Cell::Number(1.0, 2),
                            Cell::Missing,
                        ],
                    ],
                }),
                Block::Table(Table {
                    title: "same".into(),
                    columns: vec!["x".into()],
                    rows: vec![vec![Cell::Text("y".into())]],
                }),
            ],
        }
    }

    #[test]
    fn changed_cells_show_old_new_and_relative_change() {
        let c = compare(
            &report(6.25, "a"),
            &report(5.0, "b"),
            DiffStyle::Text { color: false },
        );
        assert!(c.changed);
        assert!(c.text.contains("6.25 → 5.00 (-20.0%)"), "{}", c.text);
        assert!(
            !c.text.contains("calm"),
            "unchanged rows are left out: {}",
            c.text
        );
        assert!(c.text.contains("- a\n+ b\n"), "{}", c.text);
        assert!(c.text.contains("unchanged\n- same\n"), "{}", c.text);
    }

    #[test]
    fn the_same_report_is_the_same_even_from_another_file() {
        let a = report(6.25, "a");
        let mut b = a.clone();
        b.meta[0].1 = "b.squall".into();
        let c = compare(&a, &b, DiffStyle::Markdown);
        assert!(!c.changed, "{}", c.text);
    }

    #[test]
    fn json_reports_read_back() {
        let a = report(6.25, "a");
        let back = Report::from_json(&a.to_json()).unwrap_or_else(|e| report(0.0, &e));
        assert_eq!(back.title, a.title);
        assert_eq!(back.blocks.len(), a.blocks.len());
        // Digits are not stored in JSON (`0.0500` reads back as `0.05`), yet
        // the numbers compare equal.
        let c = compare(&a, &back, DiffStyle::Markdown);
        assert!(!c.changed, "{}", c.text);
        let c = compare(&report(5.0, "a"), &back, DiffStyle::Markdown);
        assert!(c.text.contains("**5.00 → 6.25 (+25.0%)**"), "{}", c.text);
    }

    fn replicated(mean: f64, half: f64) -> Report {
        let i = crate::interval::Interval {
            mean,
            half_width: Some(half),
            n: 10,
            replications: 10,
        };
        Report {
            title: "t".into(),
            meta: vec![],
            blocks: vec![Block::Table(Table {
                title: "cases".into(),
                columns: vec!["case".into(), "calls".into()],
                rows: vec![vec![Cell::Text("storm".into()), Cell::Interval(i, 1)]],
            })],
        }
    }

    #[test]
    fn a_changed_mean_says_whether_it_is_more_than_noise() {
        let text = |a: &Report, b: &Report| compare(a, b, DiffStyle::Text { color: false }).text;
        let noise = text(&replicated(100.0, 3.0), &replicated(102.0, 3.0));
        assert!(
            noise.contains("100.0 ± 3.0 → 102.0 ± 3.0 (+2.0%, within noise)"),
            "{noise}"
        );
        let change = text(&replicated(100.0, 3.0), &replicated(110.0, 3.0));
        assert!(change.contains("(+10.0%, beyond noise)"), "{change}");
        // A JSON report keeps the intervals.
        let a = replicated(100.0, 3.0);
        let back = Report::from_json(&a.to_json()).unwrap_or_else(|e| report(0.0, &e));
        assert!(!compare(&a, &back, DiffStyle::Markdown).changed);
        assert_eq!(back.to_text(), a.to_text());
        // JSON drops trailing zeros (`4.10 ± 0.10` reads back as `4.1 ± 0.1`),
        // yet the cells compare equal.
        let mut tens = replicated(4.1, 0.1);
        if let Block::Table(t) = &mut tens.blocks[0] {
            if let Cell::Interval(_, d) = &mut t.rows[0][1] {
                *d = 2;
            }
        }
        let back = Report::from_json(&tens.to_json()).unwrap_or_else(|e| report(0.0, &e));
        assert_ne!(back.to_text(), tens.to_text());
        assert!(!compare(&tens, &back, DiffStyle::Markdown).changed);
    }
}
