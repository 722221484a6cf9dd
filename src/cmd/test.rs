//! `squall test`: expectations and committed report snapshots.
//!
//! For every scenario `DIR/NAME.squall` the snapshot is `DIR/snapshots/NAME.md`:
//! the markdown report, as `squall run --format markdown NAME.squall` prints
//! it when run inside `DIR` (the report names the file without its folder, so
//! a snapshot does not depend on where squall was started).

use std::path::{Path, PathBuf};

use squall_report::{Format, Keep, Study, StudyOptions};

use crate::util::{self, EXIT_FAILED, EXIT_INVALID, EXIT_OK};

/// Every `.squall` file under `path` (or `path` itself), sorted.
pub fn scenario_files(path: &Path) -> Result<Vec<PathBuf>, String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    if meta.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out = Vec::new();
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?;
        for entry in entries.flatten() {
            let p = entry.path();
            let hidden = p
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if hidden {
                continue;
            }
            // A link to a folder is not followed: a link cycle would test
            // the same files over and over, and a link can lead out of the
            // folder. A link to a file is tested like the file.
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(p);
            } else if !p.is_dir() && p.extension().is_some_and(|e| e == "squall") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Where a scenario's snapshot lives.
pub fn snapshot_path(scenario: &Path) -> PathBuf {
    let dir = scenario.parent().unwrap_or(Path::new(""));
    let stem = scenario.file_stem().map_or_else(
        || "scenario".to_string(),
        |s| s.to_string_lossy().to_string(),
    );
    dir.join("snapshots").join(format!("{stem}.md"))
}

/// What happened to one scenario.
enum Outcome {
    Passed(String),
    Failed(Vec<String>),
    Invalid,
}

/// `squall test PATH [--accept] [--work-budget N]`
pub fn test(path: &Path, accept: bool, work_budget: Option<u64>, color: bool) -> u8 {
    if work_budget == Some(0) {
        return util::usage("`--work-budget 0`: give at least one event");
    }
    let files = match scenario_files(path) {
        Ok(f) => f,
        Err(m) => return util::usage(&m),
    };
    if files.is_empty() {
        return util::usage(&format!("no `.squall` file under `{}`", path.display()));
    }
    let (mut passed, mut failed, mut invalid) = (0, 0, 0);
    // The exit code so far: what a reader that stops early (`| head`) gets.
    let so_far = |failed: usize, invalid: usize| {
        if invalid > 0 {
            EXIT_INVALID
        } else if failed > 0 {
            EXIT_FAILED
        } else {
            EXIT_OK
        }
    };
    for file in &files {
        let mut lines = String::new();
        match test_one(file, accept, work_budget, color) {
            Outcome::Passed(note) => {
                passed += 1;
                lines.push_str(&format!("ok    {} ({note})\n", file.display()));
            }
            Outcome::Failed(reasons) => {
                failed += 1;
                lines.push_str(&format!("FAIL  {}\n", file.display()));
                for r in reasons {
                    lines.push_str(&format!("      {r}\n"));
                }
            }
            Outcome::Invalid => {
                invalid += 1;
                lines.push_str(&format!(
                    "FAIL  {} (invalid scenario, see above)\n",
                    file.display()
                ));
            }
        }
        if !util::print_out(&lines) {
            return so_far(failed, invalid);
        }
    }
    let mut summary = format!("\nsquall: {passed} passed, {} failed\n", failed + invalid);
    if invalid == 0 && failed > 0 && !accept {
        summary.push_str(&format!(
            "to take the new reports as the snapshots: squall test {} --accept\n",
            path.display()
        ));
    }
    let _ = util::print_out(&summary);
    so_far(failed, invalid)
}

fn test_one(file: &Path, accept: bool, work_budget: Option<u64>, color: bool) -> Outcome {
    let shown = file.display().to_string();
    let text = match std::fs::read(file)
        .map_err(|e| e.to_string())
        .and_then(util::text_of)
    {
        Ok(t) => t,
        Err(e) => return Outcome::Failed(vec![format!("cannot read `{shown}`: {e}")]),
    };
    let short = file
        .file_name()
        .map_or_else(|| shown.clone(), |n| n.to_string_lossy().to_string());
    let mut scenario = match squall_lang::load(&short, &text) {
        Ok(s) => s,
        Err(mut d) => {
            d.name = shown;
            util::print_diagnostics(&d, color);
            return Outcome::Invalid;
        }
    };
    if let Some(n) = work_budget {
        scenario.work_budget = Some(n);
    }
    // The report is all a test reads: each run keeps its window totals only,
    // as `squall run` does without `--series` or charts.
    let options = StudyOptions {
        keep: Keep::Report,
        ..StudyOptions::default()
    };
    let study = match Study::run(&scenario, options) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{shown}:");
            crate::cmd::run::study_error(&e, color);
            return Outcome::Invalid;
        }
    };
    let mut problems = Vec::new();
    let expects = study.expectations();
    for e in expects.iter().filter(|e| !e.passed) {
        problems.push(format!("{shown}:{}: {}", e.line, e.failure()));
    }
    let report = study.report().render(Format::Markdown);
    let snap = snapshot_path(file);
    let snap_name = snap.display().to_string();
    let note;
    match std::fs::read_to_string(&snap) {
        Ok(old) if old == report => note = "snapshot matches".to_string(),
        Ok(old) => {
            if accept {
                if let Err(e) = util::write_file(&snap, report.as_bytes()) {
                    problems.push(format!("cannot write `{snap_name}`: {e}"));
                }
                note = "snapshot updated".to_string();
            } else {
                problems.push(format!(
                    "the report differs from `{snap_name}` (- snapshot, + new report):"
                ));
                let diff = util::unified_diff(
                    &old,
                    &report,
                    &format!("{snap_name} (snapshot)"),
                    &format!("{snap_name} (new report)"),
                    color,
                );
                problems.extend(diff.lines().map(str::to_string));
                note = String::new();
            }
        }
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            // There, but not readable (permissions, not UTF-8, a folder):
            // not "missing", and `--accept` would replace what it cannot read.
            problems.push(format!("cannot read the snapshot `{snap_name}`: {e}"));
            note = String::new();
        }
        Err(_) => {
            if accept {
                let written = snap
                    .parent()
                    .map_or(Ok(()), std::fs::create_dir_all)
                    .and_then(|()| util::write_file(&snap, report.as_bytes()));
                if let Err(e) = written {
                    problems.push(format!("cannot write `{snap_name}`: {e}"));
                }
                note = "snapshot created".to_string();
            } else {
                problems.push(format!(
                    "no snapshot `{snap_name}`; `squall test --accept` writes it"
                ));
                note = String::new();
            }
        }
    }
    if problems.is_empty() {
        let n = expects.len();
        Outcome::Passed(format!(
            "{n} expectation{}, {note}",
            if n == 1 { "" } else { "s" }
        ))
    } else {
        Outcome::Failed(problems)
    }
}
