//! Number literals the canonical spelling would change.
//!
//! The printer spells a number from its double: the shortest digits that
//! read back as the same double (`1_000` -> `1000`, `1.50` -> `1.5`). For a
//! literal the double holds only approximately (`18446744073709551616`
//! reads as 2^64 but prints as `18446744073709552000`) that spelling says a
//! different number from the one written, although it parses to the same
//! double. [`keep_written`] puts such literals back as they were written.
//!
//! The printer keeps every literal and its order (it reorders nothing that
//! holds a number), so the n-th number token of the output is the n-th of
//! the source. When the counts differ, or a pair does not read as the same
//! double, the output is left as printed.

use std::ops::Range;

/// `out` with every number literal whose canonical spelling differs from
/// the decimal number written in `source` replaced by the written text.
pub(super) fn keep_written(source: &str, out: &str) -> String {
    let written = numbers(source);
    let printed = numbers(out);
    if written.len() != printed.len() {
        return out.to_string();
    }
    let mut result = String::with_capacity(out.len());
    let mut at = 0;
    for (w, p) in written.iter().zip(&printed) {
        let (w_text, p_text) = (&source[w.clone()], &out[p.clone()]);
        if value(w_text) != value(p_text) || normal(w_text) == normal(p_text) {
            continue;
        }
        result.push_str(&out[at..p.start]);
        result.push_str(w_text);
        at = p.end;
    }
    result.push_str(&out[at..]);
    result
}

/// The double a literal reads as.
fn value(text: &str) -> Option<f64> {
    text.replace('_', "").parse::<f64>().ok()
}

/// The decimal number a literal writes, without `_`, leading zeros of the
/// whole part or trailing zeros of the fraction: `0_1.50` -> `1.5`.
fn normal(text: &str) -> String {
    let t = text.replace('_', "");
    let (whole, frac) = t.split_once('.').unwrap_or((&t, ""));
    let whole = whole.trim_start_matches('0');
    let frac = frac.trim_end_matches('0');
    let whole = if whole.is_empty() { "0" } else { whole };
    if frac.is_empty() {
        whole.to_string()
    } else {
        format!("{whole}.{frac}")
    }
}

/// The byte ranges of the number tokens of `src` (the grammar's `number`:
/// a digit, digits or `_`, then `.` and digits), outside strings, comments
/// and names.
fn numbers(src: &str) -> Vec<Range<usize>> {
    let bytes = src.as_bytes();
    let name = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if b == b'#' {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if b.is_ascii_alphabetic() || b == b'_' {
            while i < bytes.len() && name(bytes[i]) {
                i += 1;
            }
        } else if b.is_ascii_digit() {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'_') {
                i += 1;
            }
            if i + 1 < bytes.len() && bytes[i] == b'.' && bytes[i + 1].is_ascii_digit() {
                i += 1;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
            }
            found.push(start..i);
        } else {
            i += 1;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inexact_literal_is_kept_and_an_exact_one_canonical() {
        let src = "run 18446744073709551616 rounds x 1_000 # 12345678901234567890\n \"9007199254740993\" 1.50";
        let out = "run 18446744073709552000 rounds x 1000 # 12345678901234567890\n \"9007199254740993\" 1.5";
        assert_eq!(
            keep_written(src, out),
            "run 18446744073709551616 rounds x 1000 # 12345678901234567890\n \"9007199254740993\" 1.5"
        );
    }

    #[test]
    fn names_and_ranges_are_not_numbers() {
        assert_eq!(
            numbers("a1 1..20 $p2 0x1F 2.5"),
            vec![3..4, 6..8, 13..14, 18..21]
        );
    }
}
