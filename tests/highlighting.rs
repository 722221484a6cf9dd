//! The highlighters agree with the language: the TextMate grammar
//! (`editors/squall.tmLanguage.json`) and the highlight.js definition the
//! book loads (`book/highlight/squall.js`) list exactly the words of the
//! pest grammar (`crates/squall-lang/src/squall.pest`), sorted into the same
//! classes; and the TextMate grammar's own patterns, applied as an editor
//! applies them, tokenize every scenario and every squall block of the book
//! with no text left over.

use std::collections::BTreeSet;

use regex::Regex;

use crate::support::{read, root};

type Words = BTreeSet<String>;

/// The word literals of the pest grammar (`"retry"`, `"GET"`), comments
/// left out.
fn pest_words(rule: Option<&str>) -> Words {
    let grammar = read("crates/squall-lang/src/squall.pest");
    let mut code = String::new();
    let mut in_string = false;
    let mut chars = grammar.chars().peekable();
    while let Some(c) = chars.next() {
        if in_string {
            code.push(c);
            if c == '\\' {
                code.extend(chars.next());
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '/' && chars.peek() == Some(&'/') {
            for c in chars.by_ref() {
                if c == '\n' {
                    code.push('\n');
                    break;
                }
            }
        } else {
            in_string = c == '"';
            code.push(c);
        }
    }
    let body = match rule {
        None => code.as_str(),
        Some(name) => {
            let start = code
                .find(&format!("\n{name} "))
                .unwrap_or_else(|| panic!("no rule {name}"));
            let rest = &code[start + 1..];
            let end = rest.find('}').unwrap_or(rest.len());
            &rest[..end]
        }
    };
    let word = Regex::new(r#""([A-Za-z_][A-Za-z0-9_]*)""#).unwrap_or_else(|e| panic!("{e}"));
    word.captures_iter(body).map(|c| c[1].to_string()).collect()
}

fn tm_grammar() -> serde_json::Value {
    serde_json::from_str(&read("editors/squall.tmLanguage.json"))
        .unwrap_or_else(|e| panic!("the TextMate grammar is not JSON: {e}"))
}

/// The words of the first `(a|b|c)` or `(?:a|b|c)` group of a pattern.
fn alternation(pattern: &str) -> Words {
    let group =
        Regex::new(r"\((?:\?:)?([A-Za-z_]+(?:\|[A-Za-z_]+)+)\)").unwrap_or_else(|e| panic!("{e}"));
    let caps = group
        .captures(pattern)
        .unwrap_or_else(|| panic!("no word list in {pattern}"));
    caps[1].split('|').map(String::from).collect()
}

/// The TextMate grammar's word lists: declarations, keywords, units, methods.
fn tm_words() -> [Words; 4] {
    let g = tm_grammar();
    let repo = &g["repository"];
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    [
        alternation(&text(&repo["declaration"]["match"])),
        alternation(&text(&repo["keyword"]["match"])),
        alternation(&text(&repo["number"]["patterns"][2]["match"])),
        alternation(&text(&repo["route"]["patterns"][0]["match"])),
    ]
}

/// The highlight.js definition's word lists, by variable name.
fn hljs_words(name: &str) -> Words {
    let js = read("book/highlight/squall.js");
    let start = js
        .find(&format!("var {name} ="))
        .unwrap_or_else(|| panic!("no `var {name}` in squall.js"));
    let rest = &js[start..];
    let end = rest.find(';').unwrap_or(rest.len());
    let quoted = Regex::new(r#""([^"]*)""#).unwrap_or_else(|e| panic!("{e}"));
    quoted
        .captures_iter(&rest[..end])
        .flat_map(|c| {
            c[1].split_whitespace()
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .collect()
}

fn differ(what: &str, want: &Words, have: &Words) -> String {
    let missing: Vec<&String> = want.difference(have).collect();
    let extra: Vec<&String> = have.difference(want).collect();
    format!("{what}: missing {missing:?}, not in the grammar {extra:?}")
}

#[test]
fn both_highlighters_list_exactly_the_grammars_words() {
    let pest = pest_words(None);
    assert!(pest.len() > 100, "{pest:?}");
    let [decl, kw, units, methods] = tm_words();
    // `_` only continues a name, `p` only starts a percentile (`p99`):
    // both are matched by patterns of their own, not listed.
    let lexical: Words = ["_", "p"].into_iter().map(String::from).collect();
    let mut listed = Words::new();
    for set in [&decl, &kw, &units, &methods, &lexical] {
        assert!(listed.is_disjoint(set), "a word in two classes: {set:?}");
        listed.extend(set.iter().cloned());
    }
    assert_eq!(listed, pest, "{}", differ("TextMate", &pest, &listed));
    // Every word that starts a declaration is coloured as one.
    let items = pest_words(Some("item_keyword"));
    assert!(items.len() > 10 && items.is_subset(&decl), "{items:?}");
    assert!(decl.contains("scenario"));
    // highlight.js: the same classes, word for word.
    for (name, tm) in [
        ("DECLARATIONS", &decl),
        ("KEYWORDS", &kw),
        ("UNITS", &units),
        ("METHODS", &methods),
    ] {
        let js = hljs_words(name);
        assert_eq!(&js, tm, "{}", differ(name, tm, &js));
    }
}

/// A pattern of the TextMate grammar, flattened: a `match`, or a
/// `begin`/`end` pair with the patterns inside it.
struct Rule {
    scope: String,
    re: Regex,
    end: Option<(Regex, Vec<Rule>)>,
}

fn compile(p: &str) -> Regex {
    Regex::new(p).unwrap_or_else(|e| panic!("the pattern {p:?} does not compile: {e}"))
}

/// The rules a pattern list stands for, includes resolved, in order.
fn rules(list: &serde_json::Value, repo: &serde_json::Value) -> Vec<Rule> {
    let mut out = Vec::new();
    for p in list.as_array().into_iter().flatten() {
        if let Some(inc) = p["include"].as_str() {
            let name = inc.trim_start_matches('#');
            let target = &repo[name];
            assert!(!target.is_null(), "include of a missing rule {inc}");
            out.extend(rules(&serde_json::Value::Array(vec![target.clone()]), repo));
            continue;
        }
        let scope = p["name"]
            .as_str()
            .or_else(|| p["captures"]["1"]["name"].as_str())
            .unwrap_or("")
            .to_string();
        if let Some(m) = p["match"].as_str() {
            out.push(Rule {
                scope,
                re: compile(m),
                end: None,
            });
        } else if let (Some(b), Some(e)) = (p["begin"].as_str(), p["end"].as_str()) {
            out.push(Rule {
                scope,
                re: compile(b),
                end: Some((compile(e), rules(&p["patterns"], repo))),
            });
        } else {
            out.extend(rules(&p["patterns"], repo));
        }
    }
    out
}

/// The rule whose match starts first at or after `pos` (ties to the
/// earlier rule, as TextMate does), with its match's range.
fn first_match(rules: &[Rule], line: &str, pos: usize) -> Option<(usize, usize, usize)> {
    let mut best: Option<(usize, usize, usize)> = None;
    for (i, r) in rules.iter().enumerate() {
        if let Some(m) = r.re.find_at(line, pos) {
            // An empty match would not move on.
            if m.end() == m.start() {
                continue;
            }
            if best.is_none_or(|(s, _, _)| m.start() < s) {
                best = Some((m.start(), m.end(), i));
            }
        }
    }
    best
}

/// Tokenizes `text` line by line; returns each token's scope, or the text
/// no rule matched (`Err`, with line and column).
fn tokenize(rules: &[Rule], text: &str) -> Result<Vec<(String, String)>, String> {
    let mut tokens = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut pos = 0;
        while pos < line.len() {
            let Some((start, end, i)) = first_match(rules, line, pos) else {
                if line[pos..].trim().is_empty() {
                    break;
                }
                return Err(format!(
                    "line {}, column {}: `{}`",
                    n + 1,
                    pos + 1,
                    &line[pos..]
                ));
            };
            let gap = &line[pos..start];
            if !gap.trim().is_empty() {
                return Err(format!("line {}, column {}: `{gap}`", n + 1, pos + 1));
            }
            let rule = &rules[i];
            tokens.push((rule.scope.clone(), line[start..end].to_string()));
            pos = end;
            if let Some((close, inside)) = &rule.end {
                // Inside a string the inner patterns (escapes, template
                // holes) come first; the rest is its text, up to the
                // closing pattern (or the line's end).
                loop {
                    let end = close.find_at(line, pos);
                    let inner = first_match(inside, line, pos);
                    match (end, inner) {
                        (Some(e), Some((s, e2, _))) if s < e.start() => pos = e2,
                        (None, Some((_, e2, _))) => pos = e2,
                        (Some(e), _) => {
                            pos = e.end();
                            break;
                        }
                        (None, None) => {
                            pos = line.len();
                            break;
                        }
                    }
                }
            }
        }
    }
    Ok(tokens)
}

/// Every scenario of the repository, and every squall block of the book,
/// by name.
fn corpus() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut files = Vec::new();
    for dir in ["scenarios", "book/src", "src/cmd"] {
        collect(&root().join(dir), &mut files);
    }
    files.sort();
    for path in files {
        let name = path
            .strip_prefix(root())
            .unwrap_or(&path)
            .display()
            .to_string();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if name.ends_with(".squall") {
            out.push((name, text));
        } else if name.ends_with(".md") {
            let mut block: Option<(usize, String)> = None;
            for (n, line) in text.lines().enumerate() {
                match &mut block {
                    None if line.trim_start().starts_with("```squall") => {
                        block = Some((n + 1, String::new()));
                    }
                    Some((start, body)) if line.trim_start().starts_with("```") => {
                        out.push((format!("{name}:{start}"), std::mem::take(body)));
                        block = None;
                    }
                    Some((_, body)) => {
                        body.push_str(line);
                        body.push('\n');
                    }
                    None => {}
                }
            }
        }
    }
    out
}

fn collect(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "squall" || x == "md") {
            out.push(p);
        }
    }
}

#[test]
fn every_scenario_and_book_example_tokenizes_with_no_unknown_token() {
    let g = tm_grammar();
    let rules = rules(&g["patterns"], &g["repository"]);
    let corpus = corpus();
    let blocks = corpus.iter().filter(|(n, _)| n.contains(".md:")).count();
    assert!(corpus.len() > 60 && blocks > 50, "{} files", corpus.len());
    let mut failures = Vec::new();
    let mut keywords = 0;
    for (name, text) in &corpus {
        match tokenize(&rules, text) {
            Ok(tokens) => {
                keywords += tokens
                    .iter()
                    .filter(|(s, _)| {
                        s.starts_with("storage.type") || s.starts_with("keyword.other")
                    })
                    .count();
                if name.ends_with(".squall") {
                    assert!(
                        tokens
                            .iter()
                            .any(|t| t == &("storage.type.squall".into(), "scenario".into())),
                        "{name}: no `scenario` keyword"
                    );
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "unknown tokens:\n{}",
        failures.join("\n")
    );
    assert!(keywords > 1000, "{keywords} keywords");
}

#[test]
fn each_class_of_word_gets_its_colour() {
    let g = tm_grammar();
    let rules = rules(&g["patterns"], &g["repository"]);
    let scope = |text: &str| -> Vec<String> {
        tokenize(&rules, text)
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .into_iter()
            .map(|(s, _)| s)
            .collect()
    };
    let [decl, kw, _, methods] = tm_words();
    for w in &decl {
        assert_eq!(scope(w), ["storage.type.squall"], "{w}");
    }
    for w in &kw {
        assert_eq!(scope(w), ["keyword.other.squall"], "{w}");
    }
    for m in &methods {
        assert_eq!(scope(m), ["support.constant.http-method.squall"], "{m}");
    }
    // Names that merely start like a keyword are names.
    assert_eq!(scope("index during_peak"), ["variable.other.squall"; 2]);
    assert_eq!(
        scope(r#"run 400 rounds  # a comment"#),
        [
            "storage.type.squall",
            "constant.numeric.squall",
            "comment.line.number-sign.squall"
        ]
    );
    assert_eq!(
        scope(r#"line "up {storm.recovery:.1} \"rounds\"" x"#),
        [
            "storage.type.squall",
            "string.quoted.double.squall",
            "keyword.other.squall"
        ]
    );
    assert_eq!(
        scope("rate $demand 4/round p99 0x1F"),
        [
            "keyword.other.squall",
            "variable.other.param.squall",
            "constant.numeric.squall",
            "keyword.other.squall",
            "constant.numeric.hex.squall"
        ]
    );
    let unknown = tokenize(&rules, "run 4 rounds; @x").map(|_| ());
    assert!(
        matches!(&unknown, Err(e) if e.contains("column 13")),
        "{unknown:?}"
    );
}
