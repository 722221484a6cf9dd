//! [`HtmlPage`]: a report as one self-contained HTML page.
//!
//! The page holds everything a reader needs and fetches nothing: the
//! charts inline as SVG, every table and line of the report (the diagnosis
//! among them), the facts of the run (file, clock, length, seed, settings),
//! the scenario's source and the version of squall that wrote it. Its
//! `Content-Security-Policy` forbids any request, so it opens from disk the
//! same with or without a network. Every name is escaped
//! ([`crate::escape::xml`]).

use crate::chart::ChartFile;
use crate::document::{Block, Report, Table};
use crate::escape::xml;

/// What one HTML page shows.
#[derive(Debug, Clone, Copy)]
pub struct HtmlPage<'a> {
    /// The report.
    pub report: &'a Report,
    /// Its charts, in order.
    pub charts: &'a [ChartFile],
    /// Charts drawn beside a table, each after the table of that title
    /// (a sweep table's results over its params).
    pub table_charts: &'a [(String, ChartFile)],
    /// The scenario's source text.
    pub source: &'a str,
    /// The version of squall that wrote the page.
    pub version: &'a str,
}

const STYLE: &str =
    "body{font-family:sans-serif;margin:2em auto;max-width:960px;color:#222;padding:0 1em}\
h1{font-size:1.6em}h2{font-size:1.2em;margin-top:1.6em}\
.meta{color:#555}.meta span{margin-right:1.2em}\
figure{margin:1em 0}figure svg{max-width:100%;height:auto;border:1px solid #ddd}\
table{border-collapse:collapse;margin:.5em 0}th,td{padding:.2em .7em;border-bottom:1px solid #ddd}\
th{text-align:left;background:#f4f4f4}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}\
ul.lines{padding-left:1.2em}pre{background:#f7f7f7;padding:1em;overflow:auto;font-size:.85em}\
footer{color:#777;font-size:.85em;margin-top:2em}";

impl HtmlPage<'_> {
    /// The page, ending with a newline. Same input, same bytes.
    pub fn render(&self) -> String {
        let r = self.report;
        let mut out = String::new();
        out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        out.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n");
        out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
        out.push_str(&format!("<title>{}</title>\n", xml(&r.title)));
        out.push_str(&format!("<style>{STYLE}</style>\n</head>\n<body>\n"));
        out.push_str(&format!("<h1>{}</h1>\n<p class=\"meta\">", xml(&r.title)));
        for (k, v) in &r.meta {
            out.push_str(&format!("<span>{} <code>{}</code></span>", xml(k), xml(v)));
        }
        out.push_str("</p>\n");
        if !self.charts.is_empty() {
            out.push_str("<h2>Charts</h2>\n");
            for c in self.charts {
                figure(c, &mut out);
            }
        }
        let mut in_lines = false;
        for b in &r.blocks {
            match b {
                Block::Table(t) => {
                    if in_lines {
                        out.push_str("</ul>\n");
                        in_lines = false;
                    }
                    table(t, &mut out);
                    for (_, c) in self.table_charts.iter().filter(|(n, _)| *n == t.title) {
                        figure(c, &mut out);
                    }
                }
                Block::Line { text, .. } => {
                    if !in_lines {
                        out.push_str("<ul class=\"lines\">\n");
                        in_lines = true;
                    }
                    out.push_str(&format!("<li>{}</li>\n", xml(text)));
                }
            }
        }
        if in_lines {
            out.push_str("</ul>\n");
        }
        out.push_str("<h2>Scenario</h2>\n<pre><code>");
        out.push_str(&xml(self.source));
        out.push_str("</code></pre>\n");
        out.push_str(&format!(
            "<footer>Written by squall {}.</footer>\n</body>\n</html>\n",
            xml(self.version)
        ));
        out
    }
}

/// One chart, inline.
fn figure(c: &ChartFile, out: &mut String) {
    out.push_str(&format!("<figure aria-label=\"{}\">\n", xml(&c.title)));
    out.push_str(c.svg.trim_end());
    out.push_str("\n</figure>\n");
}

/// One table: a heading, a header row, its rows; numbers on the right.
fn table(t: &Table, out: &mut String) {
    out.push_str(&format!("<h2>{}</h2>\n<table>\n<tr>", xml(&t.title)));
    let class = |i: usize| {
        if t.is_text_column(i) {
            ""
        } else {
            " class=\"n\""
        }
    };
    for (i, c) in t.columns.iter().enumerate() {
        out.push_str(&format!("<th{}>{}</th>", class(i), xml(c)));
    }
    out.push_str("</tr>\n");
    for row in &t.rows {
        out.push_str("<tr>");
        for (i, c) in row.iter().enumerate() {
            out.push_str(&format!("<td{}>{}</td>", class(i), xml(&c.display())));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}
