//! Text, markdown, JSON (and, in [`crate::csv`], CSV) renderings of a [`Report`].

use crate::document::{Block, Cell, Report, Table};

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Aligned plain text; control characters in names are shown, not run
    /// ([`crate::escape::terminal`]). like the seed documents' tables.
    Text,
    /// GitHub-flavoured markdown, for pull-request comments.
    Markdown,
    /// JSON: tables as data.
    Json,
    /// CSV: the tables only (see [`crate::csv`]).
    Csv,
}

/// How a report header names a run's length: `400 rounds`, `60000 ms`, or
/// `0..12000 ms` for a run that does not start at 1.
pub fn run_text(clock: squall_lang::Clock, start: u64, end: u64) -> String {
    let unit = clock.unit_name();
    if start == 1 {
        let plural = if clock == squall_lang::Clock::Round && end != 1 {
            "s"
        } else {
            ""
        };
        format!("{end} {unit}{plural}")
    } else {
        format!("{start}..{end} {unit}")
    }
}

/// How a report header shows a setting: as given, without the word its
/// origin starts with (the caller's spelling of a setting, `--set` or
/// `set`; see [`crate::args::parse_sets`]).
pub fn setting_text(set: &squall_lang::Setting) -> String {
    match &set.origin {
        Some(origin) => origin
            .split_once(' ')
            .map_or(origin.as_str(), |(_, given)| given)
            .to_string(),
        None => set.name.clone(),
    }
}

impl Report {
    /// Renders in `format`; the output always ends with a newline.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Text => self.to_text(),
            Format::Markdown => self.to_markdown(),
            Format::Json => self.to_json(),
            Format::Csv => self.to_csv(),
        }
    }

    /// Aligned plain text; control characters in names are shown, not run
    /// ([`crate::escape::terminal`]).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        out.push_str(&self.title);
        out.push('\n');
        let meta: Vec<String> = self.meta.iter().map(|(k, v)| format!("{k} {v}")).collect();
        out.push_str(&meta.join(" · "));
        out.push('\n');
        let mut prev_line = false;
        for b in &self.blocks {
            match b {
                Block::Table(t) => {
                    out.push('\n');
                    text_table(t, &mut out);
                    prev_line = false;
                }
                Block::Line { text, .. } => {
                    if !prev_line {
                        out.push('\n');
                    }
                    out.push_str(text);
                    out.push('\n');
                    prev_line = true;
                }
            }
        }
        // Names are the user's text: no escape sequence reaches the terminal.
        crate::escape::terminal(&out)
    }

    /// Markdown.
    pub fn to_markdown(&self) -> String {
        let mut out = format!("# {}\n\n", escape_md(&self.title));
        let meta: Vec<String> = self
            .meta
            .iter()
            .map(|(k, v)| format!("{k} `{v}`"))
            .collect();
        out.push_str(&meta.join(" · "));
        out.push('\n');
        let mut prev_line = false;
        for b in &self.blocks {
            match b {
                Block::Table(t) => {
                    out.push_str(&format!("\n## {}\n\n", escape_md(&t.title)));
                    let cells = |row: Vec<String>| format!("| {} |\n", row.join(" | "));
                    out.push_str(&cells(t.columns.iter().map(|c| escape_md(c)).collect()));
                    let align: Vec<String> = (0..t.columns.len())
                        .map(|i| {
                            if t.is_text_column(i) {
                                ":---".into()
                            } else {
                                "---:".into()
                            }
                        })
                        .collect();
                    out.push_str(&cells(align));
                    for r in &t.rows {
                        out.push_str(&cells(r.iter().map(|c| escape_md(&c.display())).collect()));
                    }
                    prev_line = false;
                }
                Block::Line { text, .. } => {
                    out.push_str(if prev_line { "- " } else { "\n- " });
                    out.push_str(&escape_md(text));
                    out.push('\n');
                    prev_line = true;
                }
            }
        }
        out
    }

    /// Pretty-printed JSON with a trailing newline.
    pub fn to_json(&self) -> String {
        let meta: serde_json::Map<String, serde_json::Value> = self
            .meta
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
            .collect();
        let mut value = serde_json::json!({
            "title": self.title,
            "meta": meta,
            "blocks": self.blocks,
        });
        if let (Some(p), Some(m)) = (&self.pairing, value.as_object_mut()) {
            m.insert("pairing".into(), serde_json::json!(p));
        }
        let mut s = serde_json::to_string_pretty(&value)
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
        s.push('\n');
        s
    }
}

fn escape_md(s: &str) -> String {
    crate::escape::markdown(s)
}

fn text_table(t: &Table, out: &mut String) {
    let shown: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|r| r.iter().map(Cell::display).collect())
        .collect();
    let n = t.columns.len();
    let mut widths: Vec<usize> = t.columns.iter().map(|c| c.chars().count()).collect();
    for r in &shown {
        for (i, c) in r.iter().enumerate().take(n) {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    out.push_str(&t.title);
    out.push('\n');
    let left: Vec<bool> = (0..n).map(|i| t.is_text_column(i)).collect();
    let line = |cells: &[String], out: &mut String| {
        let mut parts = Vec::with_capacity(n);
        for (i, w) in widths.iter().enumerate() {
            let c = cells.get(i).map_or("", String::as_str);
            let pad = w.saturating_sub(c.chars().count());
            parts.push(if left[i] {
                format!("{c}{}", " ".repeat(pad))
            } else {
                format!("{}{c}", " ".repeat(pad))
            });
        }
        out.push_str(parts.join("  ").trim_end());
        out.push('\n');
    };
    line(&t.columns, out);
    let dashes: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    out.push_str(&dashes.join("  "));
    out.push('\n');
    for r in &shown {
        line(r, out);
    }
}
