//! Keeps the book (and the README) honest.
//!
//! * Every ```` ```squall ```` block in `book/src/**/*.md` and `README.md` is
//!   a complete scenario: it loads, runs, and its `expect` lines hold.
//!   Fragments are marked ```` ```squall,ignore ````; any other info string
//!   starting with `squall` is a typo and fails.
//! * `{{#include path}}` lines inside a block are resolved relative to the
//!   chapter, as mdBook does, so a chapter can show a file of `scenarios/`.
//! * A code block right after the comment
//!   `<!-- squall-output: FILE [--set NAME=VALUE]... [--seed N] [--variant NAME]... [--format text|markdown|json] -->`
//!   quotes a real report: each of its non-empty lines, except `…`, appears
//!   in that run's output, in the same order. Quoted output can be trimmed,
//!   but not made up or left stale.
//! * `reference/language.md` names every metric and every function of the
//!   language, so the reference cannot fall behind it.
//! * Every chapter `SUMMARY.md` links to exists; every relative link in the
//!   book and the README leads to a file (and heading) that exists, and so
//!   does every `FILE.md` a chapter names in backticks.
//! * Every ```` ```squall ```` block is in the layout `squall fmt` writes.

use std::fs;
use std::path::{Path, PathBuf};

use squall_lang::{Metric, Setting};
use squall_report::{Format, Study, StudyOptions};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn book_src() -> PathBuf {
    root().join("book/src")
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Every `.md` file under `dir`, sorted.
fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries =
        fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            markdown_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "md") {
            out.push(path);
        }
    }
    out.sort();
}

/// The chapters and the README.
fn documents() -> Vec<PathBuf> {
    let mut files = Vec::new();
    markdown_files(&book_src(), &mut files);
    assert!(
        files.len() >= 5,
        "expected the book's chapters under {}, found {files:?}",
        book_src().display()
    );
    files.push(root().join("README.md"));
    files
}

/// A fenced code block.
struct Block {
    /// File and line of the opening fence, for messages.
    at: String,
    /// The info string (`squall`, `squall,ignore`, `text`, ...).
    info: String,
    /// The contents, with `{{#include}}` lines resolved.
    text: String,
    /// The arguments of a `<!-- squall-output: ... -->` comment just before.
    output_of: Option<String>,
}

fn blocks(path: &Path) -> Vec<Block> {
    let text = read(path);
    let dir = path.parent().expect("a file has a folder");
    let shown = path
        .strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string();
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    let mut last_text_line = "";
    while let Some((i, line)) = lines.next() {
        let trimmed = line.trim_start();
        let ticks = trimmed.len() - trimmed.trim_start_matches('`').len();
        if ticks < 3 {
            if !line.trim().is_empty() {
                last_text_line = line.trim();
            }
            continue;
        }
        let fence = &trimmed[..ticks];
        let info = trimmed[ticks..].trim().to_string();
        let mut body = String::new();
        for (_, l) in lines.by_ref() {
            if l.trim_start().starts_with(fence) && l.trim().trim_start_matches('`').is_empty() {
                break;
            }
            match l
                .trim()
                .strip_prefix("{{#include ")
                .and_then(|r| r.strip_suffix("}}"))
            {
                Some(target) => {
                    let target = target.trim();
                    assert!(
                        !target.contains(':'),
                        "{shown}:{}: only whole-file includes are supported, found `{target}`",
                        i + 1
                    );
                    body.push_str(&read(&dir.join(target)));
                }
                None => {
                    body.push_str(l);
                    body.push('\n');
                }
            }
        }
        let output_of = last_text_line
            .strip_prefix("<!-- squall-output:")
            .and_then(|r| r.strip_suffix("-->"))
            .map(|r| r.trim().to_string());
        out.push(Block {
            at: format!("{shown}:{}", i + 1),
            info,
            text: body,
            output_of,
        });
        last_text_line = "";
    }
    out
}

/// The client-side chapters (seed document 002), which teach by runnable
/// examples and quoted reports.
const CLIENT_CHAPTERS: [&str; 4] = [
    "book/src/backoff-and-jitter.md",
    "book/src/retry-classification.md",
    "book/src/circuit-breaker.md",
    "book/src/reference/language.md",
];

#[test]
fn every_squall_block_is_a_scenario_that_runs() {
    let mut problems = Vec::new();
    let (mut checked, mut client) = (0, 0);
    for file in documents() {
        for b in blocks(&file) {
            if !b.info.starts_with("squall") {
                continue;
            }
            match b.info.as_str() {
                "squall,ignore" => continue,
                "squall" => {}
                other => {
                    problems.push(format!(
                        "{}: info string `{other}`: write `squall` or `squall,ignore`",
                        b.at
                    ));
                    continue;
                }
            }
            checked += 1;
            if CLIENT_CHAPTERS.iter().any(|c| b.at.starts_with(c)) {
                client += 1;
            }
            let scenario = match squall_lang::load(&format!("{} block", b.at), &b.text) {
                Ok(s) => s,
                Err(d) => {
                    problems.push(format!("{}: does not load:\n{}", b.at, d.to_plain()));
                    continue;
                }
            };
            let study = match Study::run(&scenario, StudyOptions::default()) {
                Ok(s) => s,
                Err(e) => {
                    problems.push(format!("{}: does not run: {e}", b.at));
                    continue;
                }
            };
            for e in study.expectations().iter().filter(|e| !e.passed) {
                problems.push(format!(
                    "{}: `{}` does not hold (actual {:?})",
                    b.at, e.text, e.actual
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "book examples:\n{}",
        problems.join("\n")
    );
    assert!(
        checked >= 3,
        "only {checked} complete scenarios found in the book"
    );
    assert!(
        client >= 8,
        "only {client} runnable scenarios in the client chapters"
    );
}

/// Splits `a 'b c' "d"` into words, as a shell would for these simple cases.
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote = None;
    let mut started = false;
    for c in s.chars() {
        match (quote, c) {
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if started {
                    out.push(std::mem::take(&mut cur));
                    started = false;
                }
            }
            (_, c) => {
                cur.push(c);
                started = true;
            }
        }
    }
    if started {
        out.push(cur);
    }
    out
}

/// Runs `FILE [flags]` like `squall run` and returns the report.
fn report_of(args: &str) -> Result<String, String> {
    let words = words(args);
    let (file, flags) = words.split_first().ok_or("no scenario file")?;
    let text = fs::read_to_string(root().join(file)).map_err(|e| format!("{file}: {e}"))?;
    let mut scenario = squall_lang::load(file, &text).map_err(|d| d.to_plain())?;
    let mut cli = Vec::new();
    let mut variants = Vec::new();
    let mut format = Format::Text;
    let mut it = flags.iter();
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("`{flag}` needs a value"))?;
        match flag.as_str() {
            "--set" => {
                let (name, v) = value
                    .split_once('=')
                    .ok_or(format!("`--set {value}`: expected NAME=VALUE"))?;
                let value_ast = squall_lang::parse::parse_value(v.trim())
                    .map_err(|d| format!("`--set {value}`: {}", d.message))?;
                cli.push(Setting {
                    name: name.trim().to_string(),
                    value: value_ast,
                    origin: Some(format!("--set {value}")),
                });
            }
            "--seed" => {
                scenario.seed = value
                    .parse()
                    .map_err(|_| format!("`--seed {value}`: expected a whole number"))?;
            }
            "--variant" => {
                let i = scenario
                    .variants
                    .iter()
                    .position(|v| v.name == *value || v.label == *value)
                    .ok_or(format!("no variant `{value}`"))?;
                variants.push(i);
            }
            "--format" => {
                format = match value.as_str() {
                    "text" => Format::Text,
                    "markdown" => Format::Markdown,
                    "json" => Format::Json,
                    "csv" => Format::Csv,
                    other => return Err(format!("unknown format `{other}`")),
                }
            }
            other => return Err(format!("unsupported flag `{other}`")),
        }
    }
    let options = StudyOptions {
        cli,
        variants: (!variants.is_empty()).then_some(variants),
        jobs: None,
        ..Default::default()
    };
    let study = Study::run(&scenario, options).map_err(|e| e.to_string())?;
    Ok(study.report().render(format))
}

#[test]
fn quoted_reports_match_real_runs() {
    let mut problems = Vec::new();
    let (mut checked, mut client) = (0, 0);
    for file in documents() {
        for b in blocks(&file) {
            let Some(args) = &b.output_of else { continue };
            checked += 1;
            if CLIENT_CHAPTERS.iter().any(|c| b.at.starts_with(c)) {
                client += 1;
            }
            let report = match report_of(args) {
                Ok(r) => r,
                Err(e) => {
                    problems.push(format!("{}: `squall run {args}` fails: {e}", b.at));
                    continue;
                }
            };
            let mut real = report.lines().map(str::trim_end);
            for quoted in b.text.lines().map(str::trim_end) {
                if quoted.trim().is_empty() || quoted.trim() == "…" {
                    continue;
                }
                if !real.any(|r| r == quoted) {
                    problems.push(format!(
                        "{}: this line is not in the output of `squall run {args}` \
                         (or is out of order):\n  {quoted}\nthe real output:\n{report}",
                        b.at
                    ));
                    break;
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "quoted output:\n{}",
        problems.join("\n")
    );
    assert!(checked >= 2, "only {checked} quoted reports found");
    assert!(
        client >= 3,
        "only {client} quoted reports in the client chapters"
    );
}

#[test]
fn language_reference_names_every_metric_and_function() {
    let text = read(&book_src().join("reference/language.md"));
    let mut missing = Vec::new();
    for (name, _) in Metric::ALL {
        if !text.contains(&format!("`{name}`")) {
            missing.push(format!("metric `{name}`"));
        }
    }
    for (name, _) in squall_lang::SendMetric::ALL {
        if !text.contains(&format!("`{name}`")) {
            missing.push(format!("sender value `{name}`"));
        }
    }
    for name in squall_lang::validate::FUNCTIONS {
        if !text.contains(&format!("`{name}(")) {
            missing.push(format!("function `{name}(...)`"));
        }
    }
    assert!(
        missing.is_empty(),
        "book/src/reference/language.md does not describe: {}",
        missing.join(", ")
    );
}

#[test]
fn every_chapter_in_the_summary_exists() {
    let summary = read(&book_src().join("SUMMARY.md"));
    let mut missing = Vec::new();
    for part in summary.split("](").skip(1) {
        let Some(target) = part.split(')').next() else {
            continue;
        };
        if !target.is_empty() && !book_src().join(target).is_file() {
            missing.push(target.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "SUMMARY.md links to missing chapters: {missing:?}"
    );
}

#[test]
fn every_squall_block_is_formatted() {
    let mut problems = Vec::new();
    for file in documents() {
        for b in blocks(&file).into_iter().filter(|b| b.info == "squall") {
            match squall_lang::format::format_source(&b.text) {
                Ok(f) if f == b.text => {}
                Ok(f) => problems.push(format!(
                    "{}: not in the `squall fmt` layout; formatted it reads:\n{f}",
                    b.at
                )),
                Err(d) => problems.push(format!("{}: does not parse: {}", b.at, d.message)),
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The anchor mdBook gives a heading: lowercase, spaces as `-`, only
/// letters, digits, `-` and `_` kept.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a markdown file's headings (outside code blocks).
fn anchors(path: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in read(path).lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            out.push(anchor(
                line.trim_start_matches('#').replace('`', "").as_str(),
            ));
        }
    }
    out
}

/// The targets of the inline links `[text](target)` of a markdown text,
/// outside code blocks, with their line numbers.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_code = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        for part in line.split("](").skip(1) {
            if let Some(target) = part.split(')').next() {
                out.push((i + 1, target.trim().to_string()));
            }
        }
    }
    out
}

#[test]
fn every_relative_link_resolves() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for file in documents() {
        let dir = file.parent().expect("a file has a folder");
        let shown = file
            .strip_prefix(root())
            .unwrap_or(&file)
            .display()
            .to_string();
        for (line, target) in links(&read(&file)) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, heading) = match target.split_once('#') {
                Some((p, h)) => (p, Some(h)),
                None => (target.as_str(), None),
            };
            let linked = if path.is_empty() {
                file.clone()
            } else {
                dir.join(path)
            };
            if !linked.exists() {
                problems.push(format!("{shown}:{line}: `{target}`: no file `{path}`"));
                continue;
            }
            if let Some(h) = heading {
                if linked.extension().is_some_and(|x| x == "md")
                    && !anchors(&linked).iter().any(|a| a == h)
                {
                    problems.push(format!("{shown}:{line}: `{target}`: no heading `#{h}`"));
                }
            }
        }
        // A markdown file named in backticks (not a pattern like
        // `snapshots/<name>.md`) exists beside the chapter, in the book or in
        // the repository.
        for (i, line) in read(&file).lines().enumerate() {
            for named in line.split('`').skip(1).step_by(2) {
                if !named.ends_with(".md") || named.contains(['<', ' ', '*']) {
                    continue;
                }
                checked += 1;
                let found = [dir.to_path_buf(), book_src(), root()]
                    .iter()
                    .any(|base| base.join(named).is_file());
                if !found {
                    problems.push(format!(
                        "{shown}:{}: `{named}` is named but no such file exists",
                        i + 1
                    ));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "broken links:\n{}",
        problems.join("\n")
    );
    assert!(checked >= 20, "only {checked} links found");
}

#[test]
fn anchors_are_the_ones_mdbook_makes() {
    assert_eq!(anchor("Override precedence"), "override-precedence");
    assert_eq!(anchor("One layout: squall fmt"), "one-layout-squall-fmt");
    assert_eq!(
        anchor("`squall sweep`".replace('`', "").as_str()),
        "squall-sweep"
    );
}

#[test]
fn words_split_like_a_shell() {
    assert_eq!(
        words("a --set 'spacing=8 rounds' \"x y\" b"),
        ["a", "--set", "spacing=8 rounds", "x y", "b"]
    );
}
