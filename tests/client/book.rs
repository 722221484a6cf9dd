//! The client chapters of the book quote squall truthfully:
//!
//! * every ```` ```squall ```` block is a complete scenario that loads, runs,
//!   and whose `expect` lines hold (fragments are ```` ```squall,ignore ````);
//! * a block right after `<!-- squall-output: FILE -->` quotes lines of that
//!   file's real text report, in order (`…` stands for left-out lines).

use squall_report::{Study, StudyOptions};

use crate::support::{read, root};

const CHAPTERS: [&str; 5] = [
    "book/src/backoff-and-jitter.md",
    "book/src/retry-budget.md",
    "book/src/retry-classification.md",
    "book/src/circuit-breaker.md",
    "book/src/reference/language.md",
];

struct Block {
    at: String,
    info: String,
    text: String,
    output_of: Option<String>,
}

fn blocks(chapter: &str) -> Vec<Block> {
    let text = read(chapter);
    let dir = root().join(chapter);
    let dir = dir.parent().expect("a chapter has a folder");
    let mut out = Vec::new();
    let mut last = "";
    let mut lines = text.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        let Some(info) = line.trim_start().strip_prefix("```") else {
            if !line.trim().is_empty() {
                last = line.trim();
            }
            continue;
        };
        let mut body = String::new();
        for (_, l) in lines.by_ref() {
            if l.trim() == "```" {
                break;
            }
            match l
                .trim()
                .strip_prefix("{{#include ")
                .and_then(|r| r.strip_suffix("}}"))
            {
                Some(target) => {
                    let path = dir.join(target.trim());
                    body.push_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| {
                        panic!("{chapter}:{}: {}: {e}", i + 1, path.display())
                    }));
                }
                None => {
                    body.push_str(l);
                    body.push('\n');
                }
            }
        }
        out.push(Block {
            at: format!("{chapter}:{}", i + 1),
            info: info.trim().to_string(),
            text: body,
            output_of: last
                .strip_prefix("<!-- squall-output:")
                .and_then(|r| r.strip_suffix("-->"))
                .map(|r| r.trim().to_string()),
        });
        last = "";
    }
    out
}

#[test]
fn squall_blocks_run_and_quoted_reports_are_real() {
    let mut problems = Vec::new();
    let (mut scenarios, mut quotes) = (0, 0);
    for chapter in CHAPTERS {
        for b in blocks(chapter) {
            if let Some(file) = &b.output_of {
                quotes += 1;
                let scenario = squall_lang::load(file, &read(file))
                    .unwrap_or_else(|d| panic!("{}: {file}:\n{}", b.at, d.to_plain()));
                let study =
                    Study::run(&scenario, StudyOptions::default()).expect("the scenario runs");
                let report = study.report().to_text();
                let mut real = report.lines().map(str::trim_end);
                for quoted in b.text.lines().map(str::trim_end) {
                    if quoted.trim().is_empty() || quoted.trim() == "…" {
                        continue;
                    }
                    if !real.any(|r| r == quoted) {
                        problems.push(format!(
                            "{}: not in the report of {file} (or out of order): {quoted}",
                            b.at
                        ));
                        break;
                    }
                }
            }
            match b.info.as_str() {
                "squall" => {}
                "squall,ignore" => continue,
                other if other.starts_with("squall") => {
                    problems.push(format!("{}: unknown info string `{other}`", b.at));
                    continue;
                }
                _ => continue,
            }
            scenarios += 1;
            let scenario = match squall_lang::load(&b.at, &b.text) {
                Ok(s) => s,
                Err(d) => {
                    problems.push(format!("{}: does not load:\n{}", b.at, d.to_plain()));
                    continue;
                }
            };
            match Study::run(&scenario, StudyOptions::default()) {
                Ok(study) => {
                    for e in study.expectations().iter().filter(|e| !e.passed) {
                        problems.push(format!(
                            "{}: `{}` does not hold (actual {:?})",
                            b.at, e.text, e.actual
                        ));
                    }
                }
                Err(e) => problems.push(format!("{}: does not run: {e}", b.at)),
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(scenarios >= 8, "only {scenarios} runnable scenarios");
    assert!(quotes >= 3, "only {quotes} quoted reports");
}
