//! Comparing two reports table by table: what `squall diff` prints.
//!
//! Tables are matched by title, rows by all their label cells (see
//! [`rows`]), columns by heading; every row of either report is in the
//! diff once, as unchanged, changed, added or removed. A cell changed when
//! its printed text changed (so noise below the printed digits never
//! counts); a changed number reads `old → new (+x.x%)`. A mean with an
//! interval (a report with `replications`) also says whether the change is
//! `beyond noise` (the two 95 % intervals are apart) or `within noise`.
//! Tables with no change are listed by name only. Lines are shown as a
//! text diff and judged value by value where a `line` item kept its
//! values ([`lines`]); the `file` fact is ignored (two files always differ
//! by name).
//!
//! What counts as beyond noise ([`Comparison::beyond_noise`]): a changed
//! text, an added or removed row, table or column, a number of a report
//! without replications, intervals that are apart, a line whose words
//! changed or whose values changed beyond noise. Within noise: overlapping
//! intervals, and under replications a number printed without its
//! interval (a total or an expectation's value), which the intervals
//! beside it judge. A changed fact (the seed, say) is shown and weighs
//! nothing by itself: the numbers it moves decide.
//!
//! Paired ([`paired`]): when both reports ran under `draws common` with one
//! seed and one replication count, a changed mean is judged instead by the
//! 95 % interval of its per-replication differences (beyond noise when it
//! excludes 0), and the diff says above its tables whether it paired and,
//! if not, why.
//!
//! [`Report::from_json`] reads a report back from `--format json`, so
//! reports saved in two commits can be compared without running anything.

mod cells;
mod json;
mod lines;
pub mod paired;
mod render;
pub mod rows;

use indexmap::IndexMap;

pub use crate::document::Pairing;
pub use cells::Noise;
use render::{render_rows, Rows};
use rows::{table_diff, Judge, RowChange, TableDiff};

use crate::document::{Block, Report, Table};

/// How to print a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffStyle {
    /// Aligned text; `color` highlights changed cells.
    Text {
        /// ANSI colours.
        color: bool,
    },
    /// Markdown; changed cells in bold, tables under headings of this
    /// level (`2` is `##`).
    Markdown {
        /// The level of a table's heading.
        level: usize,
    },
}

/// An expectation whose result changed (`ok` → `FAILED`, say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flip {
    /// The expectation as the new report labels it (`line 72: expect ...`).
    pub expect: String,
    /// The old result.
    pub old: String,
    /// The new result.
    pub new: String,
}

/// The result of comparing two reports.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The rendering: a title line, the sections, and a last line saying
    /// whether the reports differ.
    pub text: String,
    /// The sections alone (facts, changed tables, lines, unchanged tables).
    pub sections: String,
    /// True when anything differs.
    pub changed: bool,
    /// True when something differs beyond noise (see the module docs).
    pub beyond_noise: bool,
    /// Expectations whose result changed.
    pub flipped: Vec<Flip>,
}

/// True when both reports come from replications (a `replications` fact
/// above 1): their plain numbers are totals or means without intervals.
fn replicated(r: &Report) -> bool {
    r.meta
        .iter()
        .any(|(k, v)| k == "replications" && v.parse::<u64>().is_ok_and(|n| n > 1))
}

/// The tables of a report by title, a repeated title numbered.
fn tables(r: &Report) -> IndexMap<String, Table> {
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
}

/// The facts of a report but `file`, a repeated key joined with `; `.
fn facts(r: &Report) -> IndexMap<String, String> {
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
}

/// The expectations whose `result` changed, from the diff of the
/// `expectations` tables.
fn flips(d: &TableDiff) -> Vec<Flip> {
    let Some(col) = d.columns.iter().position(|c| c == "result") else {
        return Vec::new();
    };
    d.rows
        .iter()
        .filter(|r| matches!(r.change, RowChange::Changed(_)) && r.cells[col].1)
        .filter_map(|r| {
            let (old, new) = r.cells[col].0.split_once(" → ")?;
            Some(Flip {
                expect: r.cells[0].0.clone(),
                old: old.to_string(),
                new: new.to_string(),
            })
        })
        .collect()
}

/// The printed rows of a table's diff: the header and every row that is
/// not unchanged, highlighted cells marked.
fn printed(d: &TableDiff, mark: &dyn Fn(&str) -> String) -> Rows {
    let mut out = vec![d.columns.clone()];
    for r in d.rows.iter().filter(|r| r.change != RowChange::Unchanged) {
        out.push(
            r.cells
                .iter()
                .map(|(c, hot)| if *hot { mark(c) } else { c.clone() })
                .collect(),
        );
    }
    out
}

/// A whole table, added (`+`) or removed (`-`).
fn whole_table(t: &Table, sign: &str) -> Rows {
    let mut rows = vec![t.columns.clone()];
    for r in &t.rows {
        let mut cells: Vec<String> = r.iter().map(crate::document::Cell::display).collect();
        if let Some(first) = cells.first_mut() {
            *first = format!("{sign} {first}");
        }
        rows.push(cells);
    }
    rows
}

/// Compares `old` with `new`.
pub fn compare(old: &Report, new: &Report, style: DiffStyle) -> Comparison {
    let mut out = String::new();
    let mut noise: Option<Noise> = None;
    let mut changed = false;
    let mut flipped = Vec::new();
    let level = match style {
        DiffStyle::Markdown { level } => Some(level),
        DiffStyle::Text { .. } => None,
    };
    let md = level.is_some();
    let color = matches!(style, DiffStyle::Text { color: true });
    let heading = |s: &str, out: &mut String| match level {
        Some(l) => out.push_str(&format!("\n{} {s}\n\n", "#".repeat(l))),
        None => out.push_str(&format!("\n{s}\n")),
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

    // Facts: shown, weighing nothing by themselves.
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

    // Tables: under replications, paired when the replications pair.
    let both_replicated = replicated(old) && replicated(new);
    let pairing = both_replicated.then(|| paired::pairs(old, new));
    let judge = Judge {
        replicated: both_replicated,
        paired: matches!(pairing, Some(Ok(_))),
    };
    let (ta, tb) = (tables(old), tables(new));
    let mut unchanged = Vec::new();
    let titles: Vec<&String> = tb
        .keys()
        .chain(ta.keys().filter(|k| !tb.contains_key(*k)))
        .collect();
    for title in titles {
        match (ta.get(title), tb.get(title)) {
            (Some(a), Some(b)) => {
                let d = table_diff(a, b, judge);
                if d.is_same() {
                    unchanged.push(title.clone());
                    continue;
                }
                changed = true;
                noise = noise.max(d.noise());
                if title == "expectations" {
                    flipped = flips(&d);
                }
                heading(title, &mut out);
                render_rows(&printed(&d, &mark), d.labels, md, &mut out);
                let same = d
                    .rows
                    .iter()
                    .filter(|r| r.change == RowChange::Unchanged)
                    .count();
                if same > 0 {
                    let rows = if same == 1 { "row" } else { "rows" };
                    out.push_str(&format!(
                        "{}({same} {rows} unchanged)\n",
                        if md { "\n" } else { "" }
                    ));
                }
            }
            (None, Some(b)) => {
                changed = true;
                noise = Some(Noise::Beyond);
                heading(&format!("{title} (new table)"), &mut out);
                render_rows(&whole_table(b, "+"), 1, md, &mut out);
            }
            (Some(a), None) => {
                changed = true;
                noise = Some(Noise::Beyond);
                heading(&format!("{title} (table removed)"), &mut out);
                render_rows(&whole_table(a, "-"), 1, md, &mut out);
            }
            (None, None) => {}
        }
    }

    // Lines.
    if let Some((text, weight)) = lines::lines_section(old, new, judge, md, color) {
        changed = true;
        noise = noise.max(Some(weight));
        heading("lines", &mut out);
        out.push_str(&text);
    }

    if !unchanged.is_empty() {
        heading("unchanged", &mut out);
        for t in &unchanged {
            out.push_str(&format!("- {t}\n"));
        }
    }
    let beyond_noise = noise == Some(Noise::Beyond);
    let title = if md {
        format!(
            "{} {} vs {}\n",
            "#".repeat(level.unwrap_or(2).saturating_sub(1).max(1)),
            old.title,
            new.title
        )
    } else {
        format!("{} vs {}\n", old.title, new.title)
    };
    // How the replications were compared, when something changed.
    if let Some(Ok(how) | Err(how)) = pairing.filter(|_| changed) {
        out.insert_str(0, &format!("\n{how}\n"));
    }
    let verdict = if beyond_noise {
        "the reports differ"
    } else if changed {
        "the reports differ within noise only"
    } else {
        "the reports are the same"
    };
    Comparison {
        text: format!("{title}{out}\n{verdict}\n"),
        sections: out,
        changed,
        beyond_noise,
        flipped,
    }
}

#[cfg(test)]
mod tests;
