//! Reading Rust source as the shape checks need it: comments, strings and
//! character literals blanked out, then split into identifiers, `::` and
//! single punctuation characters.

/// Splits code into identifiers, `::` and single punctuation characters.
pub(super) fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
            continue;
        }
        if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push("::".to_string());
            i += 2;
            continue;
        }
        if !c.is_whitespace() {
            out.push(c.to_string());
        }
        i += 1;
    }
    out
}

pub(super) fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// The text with comments, string and character literals blanked out.
pub(super) fn strip(text: &str) -> String {
    lex(text).0
}

/// The string literals of the code, as written between their quotes
/// (escapes left as they are); comments are not code.
pub(super) fn strings(text: &str) -> Vec<String> {
    lex(text).1
}

/// The text with comments, string and character literals blanked out, and
/// the string literals it blanked.
fn lex(text: &str) -> (String, Vec<String>) {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut literals = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && next == Some('*') {
            let mut d = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    d += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    d -= 1;
                    i += 2;
                    if d == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
            continue;
        }
        // Raw strings: r"..", r#".."#, br#".."#.
        let prev_ident = i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_');
        if !prev_ident && (c == 'r' || (c == 'b' && next == Some('r'))) {
            let mut j = i + if c == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) == Some(&'"') {
                j += 1;
                let start = j;
                loop {
                    if j >= b.len() {
                        literals.push(b[start..].iter().collect());
                        break;
                    }
                    if b[j] == '"' && (0..hashes).all(|h| b.get(j + 1 + h) == Some(&'#')) {
                        literals.push(b[start..j].iter().collect());
                        j += 1 + hashes;
                        break;
                    }
                    j += 1;
                }
                out.push_str("\"\"");
                i = j;
                continue;
            }
        }
        if c == '"' {
            i += 1;
            let start = i;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            literals.push(b[start..i.min(b.len())].iter().collect());
            i += 1;
            out.push_str("\"\"");
            continue;
        }
        // A character literal ('x', '\n', '\''), not a lifetime ('a).
        if c == '\'' {
            let lit = match (next, b.get(i + 2), b.get(i + 3)) {
                (Some('\\'), _, _) => b[i + 2..]
                    .iter()
                    .position(|&x| x == '\'')
                    .map(|p| i + 2 + p + usize::from(b.get(i + 2) == Some(&'\'')) + 1),
                (Some(_), Some('\''), _) => Some(i + 3),
                _ => None,
            };
            if let Some(end) = lit {
                out.push_str("' '");
                i = end;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    (out, literals)
}
