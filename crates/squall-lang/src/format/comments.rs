//! Comments and braces: what the formatter needs to know about the source
//! beyond the syntax tree. Comments are found with the strings they may sit
//! in skipped; brace pairs tell a block's extent, so a comment inside a
//! block keeps the block on several lines.

/// A `# ...` comment in the source.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Comment {
    /// Offset of the `#`.
    pub(super) start: usize,
    /// Offset of the end of its line.
    pub(super) end: usize,
    /// From `#` to the end of the line, trailing spaces removed.
    pub(super) text: String,
    /// True when code precedes it on its line.
    pub(super) trailing: bool,
}

/// What the formatter needs to know about the source beyond the AST.
pub(super) struct Lexed {
    pub(super) comments: Vec<Comment>,
    /// Every `{ ... }` pair outside strings and comments, in order of `{`.
    pub(super) braces: Vec<(usize, usize)>,
}

/// Finds comments and brace pairs, skipping quoted strings.
pub(super) fn lex(src: &str) -> Lexed {
    let bytes = src.as_bytes();
    let mut comments = Vec::new();
    let mut braces: Vec<(usize, usize)> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut line_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => line_start = i + 1,
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'#' => {
                let end = src[i..].find('\n').map_or(src.len(), |n| i + n);
                let trailing = !src[line_start..i].trim().is_empty();
                comments.push(Comment {
                    start: i,
                    end,
                    text: src[i..end].trim_end().to_string(),
                    trailing,
                });
                i = end;
                continue;
            }
            b'{' => {
                open.push(braces.len());
                braces.push((i, i));
            }
            b'}' => {
                if let Some(k) = open.pop() {
                    braces[k].1 = i;
                }
            }
            _ => {}
        }
        i += 1;
    }
    Lexed { comments, braces }
}

/// Offset of `word` as a whole word in `src[from..to]`, outside strings and
/// comments.
pub(super) fn find_word(src: &str, from: usize, to: usize, word: &str) -> Option<usize> {
    let bytes = src.as_bytes();
    let to = to.min(src.len());
    let mut i = from;
    while i < to {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < to && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'#' => {
                i = src[i..].find('\n').map_or(to, |n| i + n);
                continue;
            }
            _ => {
                let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
                if src[i..].starts_with(word)
                    && (i == 0 || !is_word(bytes[i - 1]))
                    && !bytes.get(i + word.len()).copied().is_some_and(is_word)
                {
                    return Some(i);
                }
            }
        }
        i += 1;
    }
    None
}

pub(super) fn has_blank_line(s: &str) -> bool {
    let mut newlines = 0;
    for c in s.chars() {
        match c {
            '\n' => {
                newlines += 1;
                if newlines >= 2 {
                    return true;
                }
            }
            ' ' | '\t' | '\r' => {}
            _ => newlines = 0,
        }
    }
    false
}
