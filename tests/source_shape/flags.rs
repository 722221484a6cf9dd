//! No engine or report error names a command-line flag (issue 18): the
//! engine and the report crate are also driven by the Python package, whose
//! users never typed `--memory-budget`. Their errors carry a kind; the CLI
//! words the flag (`util::FLAGS`, `StudyError::budget`).
//!
//! The check reads the string literals of the two crates' code (comments
//! and test modules are not code a user sees) and refuses any that holds
//! `--` followed by a letter, as a flag is written. A message that must
//! name a flag is built by the CLI instead.

use std::path::Path;

use super::lex::strings;
use super::{rust_files, slash};

/// The crates whose messages may name no flag.
const FLAGLESS: [&str; 2] = ["crates/squall-engine/src", "crates/squall-report/src"];

/// The code of a file up to its test module (`#[cfg(test)] mod ...`), which
/// a user never sees; a `#[cfg(test)]` on a single item does not end it.
fn before_tests(text: &str) -> &str {
    let mut from = 0;
    while let Some(at) = text[from..].find("#[cfg(test)]") {
        let at = from + at;
        let after = text[at + "#[cfg(test)]".len()..].trim_start();
        if after.starts_with("mod ") {
            return &text[..at];
        }
        from = at + 1;
    }
    text
}

/// The literals of `text`'s code that name a flag: `--` and a letter.
fn flags_named(text: &str) -> Vec<String> {
    strings(before_tests(text))
        .into_iter()
        .filter(|s| {
            s.match_indices("--").any(|(i, _)| {
                s[i + 2..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic())
            })
        })
        .collect()
}

#[test]
fn no_engine_or_report_message_names_a_flag() {
    let mut found = Vec::new();
    for dir in FLAGLESS {
        for file in rust_files(Path::new(dir)) {
            let name = slash(&file);
            if name.ends_with("/tests.rs") || name.contains("/tests/") {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{name}: {e}"));
            for literal in flags_named(&text) {
                found.push(format!("{name}: \"{literal}\""));
            }
        }
    }
    assert!(
        found.is_empty(),
        "strings naming a command-line flag in the engine or the report crate \
         (give the error a kind and let the CLI word the flag):\n{}",
        found.join("\n")
    );
}

/// The check sees what it should: a flag in a message, in a raw string and
/// in a thiserror attribute; not in a comment, a doc comment, a markdown
/// rule (`---`), or a test module (hand-made samples).
#[test]
fn the_flag_check_finds_what_it_looks_for() {
    let code = r##"
/// Raise `--memory-budget`.
#[error("over the budget (raise `--memory-budget`)")]
Over,
fn f() -> String {
    // `--jobs` here is a comment.
    let rule = "|---|---|";
    let raw = r#"give `--set x=1`"#;
    format!("{rule}{raw} -- a dash pair")
}
#[cfg(test)]
fn helper() -> &'static str { "--events-limit" }
fn g() {}
#[cfg(test)]
mod tests {
    const T: &str = "--shard 1/2";
}
"##;
    assert_eq!(
        flags_named(code),
        vec![
            "over the budget (raise `--memory-budget`)".to_string(),
            "give `--set x=1`".to_string(),
            "--events-limit".to_string(),
        ]
    );
}
