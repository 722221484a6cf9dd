//! `squall diff --git REF [PATH]`: every scenario under PATH as it is at the
//! git ref REF against as it is now, for review in a pull request.
//!
//! The old side is read with git itself (`git ls-tree`, `git show
//! REF:./path`), never by checking anything out; the new side is the
//! working tree. A scenario renamed or moved between the two is followed
//! through git's rename detection (`git diff --name-status -M`). The
//! scenarios run on rayon's threads, as a sweep's points do; the output is
//! in path order whatever the threads did. A scenario reads no other file
//! (the language has no include), so the file alone is the scenario at REF.

use std::path::{Component, Path};
use std::process::Command;

use rayon::prelude::*;
use squall_lang::not_a::NotA;
use squall_report::compare::{compare, Comparison, DiffStyle};
use squall_report::{Report, Study, StudyError, StudyOptions};

use crate::util::{self, EXIT_FAILED, EXIT_INVALID, EXIT_OK};
use crate::{DiffFormat, FailOn};

/// The longest markdown report: GitHub refuses a comment past 65 536
/// characters; the rest is room for the recipe's own lines.
pub const MARKDOWN_CAP: usize = 60_000;

/// Runs git in the current folder; its standard output, or why not.
fn git(args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run `git`: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("`git {}` failed: {}", args.join(" "), err.trim()));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("`git {}`: {e}", args.join(" ")))
}

/// A path without `.` components, with `/` between the rest: how git
/// names it relative to the current folder.
fn plain(p: &Path) -> String {
    p.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .collect::<Vec<_>>()
        .join("/")
}

/// True for a scenario path that `squall test` would test: `.squall`, and
/// no hidden folder or file on the way.
fn is_scenario(path: &str) -> bool {
    path.ends_with(".squall") && !path.split('/').any(|c| c.starts_with('.'))
}

/// One scenario's two sides: its path at REF and now.
#[derive(Debug, Clone)]
struct Pair {
    old: Option<String>,
    new: Option<String>,
}

/// What a scenario's comparison came to.
enum Outcome {
    Compared(Comparison),
    Added,
    Removed,
    Failed(String),
}

impl Outcome {
    fn words(&self) -> &'static str {
        match self {
            Outcome::Compared(c) if c.beyond_noise => "changed beyond noise",
            Outcome::Compared(c) if c.changed => "changed within noise",
            Outcome::Compared(_) => "unchanged",
            Outcome::Added => "added",
            Outcome::Removed => "removed",
            Outcome::Failed(_) => "failed to run",
        }
    }
}

/// The pairs: every scenario under `path` at `rev` and now, a rename
/// followed.
fn pairs(rev: &str, path: &Path) -> Result<Vec<Pair>, String> {
    let spec = plain(path);
    let spec = if spec.is_empty() {
        ".".to_string()
    } else {
        spec
    };
    let listed = git(&["ls-tree", "-r", "--name-only", rev, "--", &spec])?;
    let old: Vec<String> = listed
        .lines()
        .filter(|p| is_scenario(p))
        .map(str::to_string)
        .collect();
    let new: Vec<String> = super::test::scenario_files(path)?
        .iter()
        .map(|p| plain(p))
        .collect();
    let status = git(&[
        "diff",
        "--name-status",
        "-M",
        "--relative",
        rev,
        "--",
        &spec,
    ])?;
    let renamed: Vec<(String, String)> = status
        .lines()
        .filter_map(|l| {
            let mut f = l.split('\t');
            let kind = f.next()?;
            let (from, to) = (f.next()?, f.next()?);
            kind.starts_with('R')
                .then(|| (from.to_string(), to.to_string()))
        })
        .filter(|(from, to)| is_scenario(from) && is_scenario(to))
        .collect();
    let mut out: Vec<Pair> = new
        .iter()
        .map(|n| {
            let from = renamed
                .iter()
                .find(|(_, to)| to == n)
                .map(|(f, _)| f.clone());
            let old = from.or_else(|| old.contains(n).then(|| n.clone()));
            Pair {
                old,
                new: Some(n.clone()),
            }
        })
        .collect();
    for o in &old {
        if !out.iter().any(|p| p.old.as_ref() == Some(o)) {
            out.push(Pair {
                old: Some(o.clone()),
                new: None,
            });
        }
    }
    out.sort_by(|a, b| {
        let key = |p: &Pair| p.new.clone().or_else(|| p.old.clone());
        key(a).cmp(&key(b))
    });
    Ok(out)
}

/// A scenario's report from its text, or what went wrong (rendered).
fn report(name: &str, text: &str) -> Result<Report, String> {
    let scenario =
        squall_lang::load(name, text).map_err(|d| util::render_diagnostics(&d, false))?;
    let study = Study::run(&scenario, StudyOptions::default()).map_err(|e| match e {
        StudyError::Invalid(d) => util::render_diagnostics(&d, false),
        StudyError::Refused(r) => format!("{}: error: {}", r.place(), r.error),
        other => format!("error: {other}"),
    })?;
    Ok(study.report())
}

/// One pair compared.
fn outcome(rev: &str, pair: &Pair, style: DiffStyle) -> Outcome {
    let old = pair.old.as_ref().map(|o| {
        git(&["show", &format!("{rev}:./{o}")])
            .and_then(|text| report(&format!("{rev}:{o}"), &text))
    });
    let new = pair.new.as_ref().map(|n| {
        std::fs::read(n)
            .map_err(|e| format!("cannot read `{n}`: {e}"))
            .and_then(util::text_of)
            .and_then(|text| report(n, &text))
    });
    match (old, new) {
        (Some(Err(e)), _) | (_, Some(Err(e))) => Outcome::Failed(e),
        (Some(Ok(a)), Some(Ok(b))) => Outcome::Compared(compare(&a, &b, style)),
        (None, Some(Ok(_))) => Outcome::Added,
        (Some(Ok(_)), None) => Outcome::Removed,
        (None, None) => Outcome::Failed("no side".into()),
    }
}

/// The name of a pair: `new`, or `old → new` for a rename.
fn title(p: &Pair) -> String {
    match (&p.old, &p.new) {
        (Some(o), Some(n)) if o != n => format!("{o} → {n}"),
        (_, Some(n)) => n.clone(),
        (Some(o), None) => o.clone(),
        (None, None) => String::new(),
    }
}

/// The whole report: a summary first, then each scenario that changed;
/// markdown is cut at `cap` characters with a note.
fn render(rev: &str, results: &[(Pair, Outcome)], md: bool, cap: usize) -> String {
    let count = |w: &str| results.iter().filter(|(_, o)| o.words() == w).count();
    let flips: usize = results
        .iter()
        .map(|(_, o)| match o {
            Outcome::Compared(c) => c.flipped.len(),
            _ => 0,
        })
        .sum();
    let summary = format!(
        "{} scenarios: {} unchanged, {} changed within noise, {} changed beyond noise, {} added, {} removed, {} failed to run; {} expectations flipped",
        results.len(),
        count("unchanged"),
        count("changed within noise"),
        count("changed beyond noise"),
        count("added"),
        count("removed"),
        count("failed to run"),
        flips
    );
    let listed: Vec<&(Pair, Outcome)> = results
        .iter()
        .filter(|(_, o)| o.words() != "unchanged")
        .collect();
    let mut head = String::new();
    let mut details = Vec::new();
    if md {
        head.push_str(&format!(
            "## squall: scenarios at `{rev}` vs now\n\n{summary}\n"
        ));
        if !listed.is_empty() {
            head.push_str("\n| scenario | result | expectations flipped |\n|:---|:---|---:|\n");
        }
    } else {
        head.push_str(&format!("scenarios at {rev} vs now\n{summary}\n\n"));
    }
    for (p, o) in &listed {
        let flipped = match o {
            Outcome::Compared(c) => c.flipped.as_slice(),
            _ => &[],
        };
        let name = title(p);
        if md {
            head.push_str(&format!(
                "| `{}` | {} | {} |\n",
                name.replace('|', "\\|"),
                o.words(),
                flipped.len()
            ));
        } else {
            head.push_str(&format!("{:<20}  {name}\n", o.words()));
        }
        let mut body = String::new();
        for f in flipped {
            body.push_str(&format!(
                "- expectation flipped: `{}`: {} → {}\n",
                f.expect, f.old, f.new
            ));
        }
        match o {
            Outcome::Compared(c) => body.push_str(&c.sections),
            Outcome::Failed(e) if md => body.push_str(&format!("```text\n{}\n```\n", e.trim_end())),
            Outcome::Failed(e) => body.push_str(&format!("{}\n", e.trim_end())),
            Outcome::Added | Outcome::Removed => {}
        }
        if body.is_empty() {
            continue;
        }
        details.push(if md {
            format!(
                "\n<details><summary><code>{name}</code>: {}</summary>\n\n{}\n</details>\n",
                o.words(),
                body.trim()
            )
        } else {
            format!("\n== {name}: {}\n{}", o.words(), body)
        });
    }
    let mut out = head;
    if !md {
        out.extend(details);
        return out;
    }
    let note = |left: usize| {
        format!(
            "\n_Cut to stay under {cap} characters: {left} more scenarios' details left out; run `squall diff --git {rev}` to see them all._\n"
        )
    };
    for (i, d) in details.iter().enumerate() {
        let left = details.len() - i;
        if out.len() + d.len() + note(left).len() > cap {
            out.push_str(&note(left));
            return out;
        }
        out.push_str(d);
    }
    out
}

/// `squall diff --git REF [PATH]`.
pub fn diff_git(rev: &str, path: &Path, format: DiffFormat, fail_on: FailOn) -> u8 {
    if let Err(e) = git(&[
        "rev-parse",
        "--verify",
        "--quiet",
        &format!("{rev}^{{commit}}"),
    ]) {
        let why = e.to_string();
        return util::usage(
            &NotA::new(rev, "a commit of this git repository")
                .because(&why)
                .plain(),
        );
    }
    let pairs = match pairs(rev, path) {
        Ok(p) => p,
        Err(e) => return util::usage(&e),
    };
    let md = format == DiffFormat::Markdown;
    let style = if md {
        DiffStyle::Markdown { level: 4 }
    } else {
        DiffStyle::Text { color: false }
    };
    let results: Vec<(Pair, Outcome)> = pairs
        .into_par_iter()
        .map(|p| {
            let o = outcome(rev, &p, style);
            (p, o)
        })
        .collect();
    let _ = util::print_out(&render(rev, &results, md, MARKDOWN_CAP));
    let failed = results.iter().any(|(_, o)| matches!(o, Outcome::Failed(_)));
    let fails = results.iter().any(|(_, o)| match (o, fail_on) {
        (Outcome::Compared(c), FailOn::Flipped) => !c.flipped.is_empty(),
        (_, FailOn::Flipped) => false,
        (Outcome::Compared(c), FailOn::Any) => c.changed,
        (Outcome::Compared(c), FailOn::BeyondNoise) => c.beyond_noise || !c.flipped.is_empty(),
        (Outcome::Added | Outcome::Removed, _) => true,
        (Outcome::Failed(_), _) => false,
    });
    if failed {
        EXIT_INVALID
    } else if fails {
        EXIT_FAILED
    } else {
        EXIT_OK
    }
}
