//! Names made safe for the format they go into.
//!
//! A scenario's names and titles are the user's text and reach SVG, HTML,
//! markdown, CSV and the terminal. Each function here escapes for one of
//! them and leaves ordinary text as it is, so a report without odd
//! characters prints byte for byte as before.

/// Escaped for XML and HTML text and attribute values: `&`, `<`, `>`, `"`
/// and `'` as entities; control characters XML 1.0 does not allow become
/// spaces.
pub fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Escaped for one line of GitHub-flavoured markdown, in a table cell or a
/// list item: `|` would end the cell, `<` before a letter, `/`, `!` or `?`
/// would open raw HTML, a line break would end the row; control
/// characters are dropped. (`< 100` stays as it is.)
pub fn markdown(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '|' => out.push_str("\\|"),
            '<' if chars
                .peek()
                .is_some_and(|n| n.is_ascii_alphabetic() || matches!(n, '/' | '!' | '?')) =>
            {
                out.push_str("\\<");
            }
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// A CSV text field that a spreadsheet would not run as a formula: one
/// starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a
/// leading `'` (OWASP's advice), unless the whole field is a number.
pub fn csv_text(s: &str) -> String {
    let risky = s.starts_with(['=', '+', '-', '@', '\t', '\r']);
    if risky && s.trim().parse::<f64>().is_err() {
        format!("'{s}")
    } else {
        s.to_string()
    }
}

/// Text for a terminal: control characters other than the line break
/// (escape sequences, carriage returns, bells) and the bidirectional
/// overrides that reorder what a reader sees are shown as `\u{..}`
/// instead of acting.
pub fn terminal(s: &str) -> String {
    if !s.chars().any(needs_terminal_escape) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if needs_terminal_escape(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

fn needs_terminal_escape(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_entities() {
        assert_eq!(xml("a<b>&\"c\"'"), "a&lt;b&gt;&amp;&quot;c&quot;&#39;");
        assert_eq!(xml("bell\u{7}"), "bell ");
        assert_eq!(xml("plain name"), "plain name");
    }

    #[test]
    fn markdown_cells() {
        assert_eq!(markdown("a | b"), "a \\| b");
        assert_eq!(markdown("<img src=x>"), "\\<img src=x>");
        assert_eq!(markdown("</td>"), "\\</td>");
        assert_eq!(markdown("expect x < 100"), "expect x < 100");
        assert_eq!(markdown("two\nlines\u{1b}"), "two lines");
    }

    #[test]
    fn csv_formulas() {
        assert_eq!(csv_text("=1+2"), "'=1+2");
        assert_eq!(csv_text("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv_text("+cmd|' /C calc'!A0"), "'+cmd|' /C calc'!A0");
        assert_eq!(csv_text("-1.5"), "-1.5");
        assert_eq!(csv_text("storm"), "storm");
    }

    #[test]
    fn terminal_controls_are_shown_not_run() {
        assert_eq!(terminal("red\u{1b}[31m"), "red\\u{1b}[31m");
        assert_eq!(terminal("over\rwrite"), "over\\u{d}write");
        assert_eq!(terminal("a\u{202e}b"), "a\\u{202e}b");
        assert_eq!(terminal("two\nlines"), "two\nlines");
    }
}
