//! Printing a table's diff: aligned text (ANSI escapes do not count toward
//! a column's width) or a markdown table.

/// Rows to print: a header and rows of cells (already marked).
pub type Rows = Vec<Vec<String>>;

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

/// Appends `rows` (a header first) to `out`; the first `left` columns (the
/// labels) read from the left, the others line up on the right.
pub fn render_rows(rows: &Rows, left: usize, md: bool, out: &mut String) {
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
            .map(|i| if i < left.max(1) { ":---" } else { "---:" })
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
                if i < left.max(1) {
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
