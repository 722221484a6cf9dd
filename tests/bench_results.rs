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

/// The line of instructions per call a harness writes: `Instructions per
/// call (cachegrind, squall, SETTINGS): I / C calls = P.`, with `P` the
/// quotient `I / C` rounded to a whole number (the harness divides the count
/// cachegrind printed by the calls squall's own output reported).
fn per_call_line(file: &str, text: &str) -> (u64, u64, u64) {
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("Instructions per call (cachegrind, squall, "))
        .collect();
    assert_eq!(lines.len(), 1, "{file}: one line of instructions per call");
    let (_, figures) = lines[0]
        .split_once("): ")
        .unwrap_or_else(|| panic!("{file}: no `): ` in {:?}", lines[0]));
    let number = |s: &str| -> u64 {
        s.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{file}: {s:?} is not a whole number in {:?}", lines[0]))
    };
    let (instructions, rest) = figures
        .split_once(" / ")
        .unwrap_or_else(|| panic!("{file}: no ` / ` in {:?}", lines[0]));
    let (calls, per_call) = rest
        .split_once(" calls = ")
        .unwrap_or_else(|| panic!("{file}: no ` calls = ` in {:?}", lines[0]));
    let per_call = per_call
        .strip_suffix('.')
        .unwrap_or_else(|| panic!("{file}: {:?} does not end with `.`", lines[0]));
    (number(instructions), number(calls), number(per_call))
}

#[test]
fn each_harness_writes_instructions_per_call() {
    for file in ["bench/RESULTS.md", "bench/ROUNDS.md"] {
        let (instructions, calls, per_call) = per_call_line(file, &read(file));
        assert!(calls > 0 && instructions > 0, "{file}: empty count");
        // The quotient rounded half up: per_call = floor((2 I + C) / 2C).
        assert_eq!(
            per_call,
            (2 * instructions + calls) / (2 * calls),
            "{file}: {instructions} / {calls}"
        );
    }
}

/// bench/compare.sh also counts one run at issue 23's floor setting (the
/// storm-1 run): its line holds the same quotient, rounded half up.
#[test]
fn the_round_harness_counts_the_floor_setting() {
    let text = read("bench/ROUNDS.md");
    let line = text
        .lines()
        .find(|l| l.starts_with("At issue 23's floor setting"))
        .unwrap_or_else(|| panic!("bench/ROUNDS.md: no line at the floor setting"));
    let figures = line
        .split_once("): ")
        .and_then(|(_, f)| f.split_once(" instructions per call"))
        .map(|(f, _)| f)
        .unwrap_or_else(|| panic!("{line:?}"));
    let (i, rest) = figures
        .split_once(" / ")
        .unwrap_or_else(|| panic!("{line:?}"));
    let (c, p) = rest
        .split_once(" calls = ")
        .unwrap_or_else(|| panic!("{line:?}"));
    let n = |s: &str| -> u64 { s.parse().unwrap_or_else(|_| panic!("{s:?} in {line:?}")) };
    let (i, c, p) = (n(i), n(c), n(p));
    // 4000 requests a round for 400 rounds through four layers: the
    // storm's calls (1 600 000 at edge and more below) are more than
    // 4 x 1.6 M only through retries; any run of it makes millions.
    assert!(c > 6_400_000 && i > 0, "{line:?}");
    assert_eq!(p, (2 * i + c) / (2 * c), "{line:?}");
}

#[test]
fn the_per_call_reader_reads_a_harness_line() {
    let text = "x\nInstructions per call (cachegrind, squall, 5 simulated min, one job): 2621023034 / 909577 calls = 2882.\n";
    // 2621023034 / 909577 = 2881.59..., so 2882.
    assert_eq!(per_call_line("t", text), (2_621_023_034, 909_577, 2882));
}
