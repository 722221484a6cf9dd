//! The charts of a report in its markdown: a `## Charts` section with one
//! image per chart, for a pull-request comment or a book page that sits
//! beside the chart files.
//!
//! Each image links the SVG file by the path the caller gives (relative to
//! the markdown file, so the page and its charts move together); the alt
//! text is the chart's title, escaped like every name in markdown, and the
//! path is percent-encoded where markdown or a URL would misread it.

use super::chart_file::ChartFile;
use crate::escape;

/// The `## Charts` section for `charts`, each found at `href(chart)`;
/// empty for no chart.
pub fn section(charts: &[ChartFile], href: &dyn Fn(&ChartFile) -> String) -> String {
    if charts.is_empty() {
        return String::new();
    }
    let mut out = String::from("\n## Charts\n\n");
    for c in charts {
        let alt = escape::markdown(&c.title).replace(['[', ']'], "");
        out.push_str(&format!("![{alt}]({})\n\n", url_path(&href(c))));
    }
    out.pop();
    out
}

/// A file path as a URL path: `/` kept, letters, digits and `-._~` kept,
/// everything else (spaces, parentheses, `#`, non-ASCII) percent-encoded.
pub fn url_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(title: &str, file: &str) -> ChartFile {
        ChartFile {
            file: file.into(),
            title: title.into(),
            svg: String::new(),
            csv: String::new(),
        }
    }

    #[test]
    fn images_link_the_files_with_escaped_titles() {
        let charts = [
            chart("calls | per round", "01-calls.svg"),
            chart("<script>x</script> [y]", "02-x.svg"),
        ];
        let md = section(&charts, &|c| format!("my charts/{}", c.file));
        assert_eq!(
            md,
            "\n## Charts\n\n![calls \\| per round](my%20charts/01-calls.svg)\n\n\
             ![\\<script>x\\</script> y](my%20charts/02-x.svg)\n"
        );
        assert_eq!(section(&[], &|c| c.file.clone()), "");
    }
}
