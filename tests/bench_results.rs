//! The benchmark harnesses' results files and the book's quotes of them:
//! `bench/continuous.sh` writes `bench/RESULTS.md`, `bench/compare.sh`
//! writes `bench/ROUNDS.md` and `bench/study.sh` writes `bench/STUDY.md`,
//! each saying so, and `book/src/performance.md`
//! quotes each one verbatim (every line after its title, as a block quote),
//! so rerunning a harness and forgetting the book fails here.

use crate::support::read;

/// The block quote in `text` that starts with the line `> {first}`, with
/// its `> ` (or a lone `>`) taken off each line.
fn quoted(text: &str, first: &str) -> Option<Vec<String>> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.strip_prefix("> ") == Some(first))?;
    Some(
        lines[at..]
            .iter()
            .map_while(|l| l.strip_prefix("> ").or_else(|| (*l == ">").then_some("")))
            .map(String::from)
            .collect(),
    )
}

#[test]
fn the_book_quotes_each_benchmark_results_file_as_its_harness_wrote_it() {
    let book = read("book/src/performance.md");
    for (file, harness) in [
        ("bench/RESULTS.md", "bench/continuous.sh"),
        ("bench/ROUNDS.md", "bench/compare.sh"),
        ("bench/STUDY.md", "bench/study.sh"),
    ] {
        let text = read(file);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines.first().is_some_and(|l| l.starts_with("# ")) && lines.get(1) == Some(&""),
            "{file}: a title, then an empty line"
        );
        let body: Vec<String> = lines[2..].iter().map(|l| l.to_string()).collect();
        let written = format!("Written by `{harness}` (");
        assert!(
            body[0].starts_with(&written) && body[0].ends_with("; do not edit by hand."),
            "{file}: {:?}",
            body[0]
        );
        let quote = quoted(&book, &body[0])
            .unwrap_or_else(|| panic!("performance.md does not quote {file}'s {:?}", body[0]));
        assert_eq!(quote, body, "performance.md's quote of {file}");
        assert!(
            book.contains(&format!("From `{file}` as the harness")),
            "performance.md names {file} before its quote"
        );
    }
}
