//! `squall sweep` and `squall merge`: what-if studies.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use squall_lang::resolve::sweep::SweepError;
use squall_lang::unknown::Unknown;
use squall_report::args::{parse_vary, ArgError};
use squall_report::sweep::{default_sweep, run_sweep, SweepOptions};
use squall_report::MergeError;

use crate::cmd::run::study_error;
use crate::interrupt::EXIT_INTERRUPTED;
use crate::util::{self, EXIT_INVALID, EXIT_OK};
use crate::{FormatArg, SweepArgs};

/// The environment variable tests set to stop a sweep, as Ctrl-C does,
/// once that many runs have finished.
const STOP_AFTER: &str = "SQUALL_STOP_AFTER_RUNS";

/// The name of a sweep made only of `--vary` axes.
const ADHOC: &str = "vary";

/// `squall sweep FILE ...`
pub fn sweep(args: &SweepArgs, color: bool) -> u8 {
    match sweep_inner(args, color) {
        Ok(()) => EXIT_OK,
        Err(code) => code,
    }
}

fn sweep_inner(args: &SweepArgs, color: bool) -> Result<(), u8> {
    let mut scenario = util::load(&args.file, color)?;
    if let Some(seed) = args.seed {
        scenario.seed = seed;
    }
    util::set_replications(&mut scenario, args.replications)?;
    if args.work_budget == Some(0) {
        return Err(util::usage("`--work-budget 0`: give at least one event"));
    }
    if let Some(n) = args.work_budget {
        scenario.work_budget = Some(n);
    }
    if let Some(out) = &args.out {
        util::refuse_overwriting(out, &[&args.file])?;
    }
    // A sweep may run for hours: an output it cannot write is refused now.
    util::check_outputs(args.out.as_deref(), &[])?;
    util::check_jobs(args.jobs)?;
    let shard = match &args.shard {
        None => None,
        Some(s) => Some(
            crate::cmd::shard::parse(s, &|name| std::env::var(name).ok())
                .map_err(|m| util::usage(&m))?,
        ),
    };
    if shard.is_some() && args.charts.is_some() {
        return Err(util::usage(
            "`--shard` writes a shard file; draw the charts from all shards with `squall merge --charts DIR`",
        ));
    }
    if shard.is_some() && args.format.is_some() {
        return Err(util::usage(
            "`--shard` always writes a shard file (JSON for `squall merge`); drop `--format` and give it to `squall merge`",
        ));
    }
    let base = match &args.variant {
        None => None,
        Some(v) => Some(util::find_variant(&scenario, v)?),
    };
    let named = match &args.sweep {
        None => None,
        Some(name) => match scenario.sweeps.iter().position(|s| s.name == *name) {
            Some(i) => Some(i),
            None => {
                let known: Vec<&str> = scenario.sweeps.iter().map(|s| s.name.as_str()).collect();
                return Err(util::usage(&Unknown::new("sweep", name).plain(&known)));
            }
        },
    };
    let (scenario, index) = if args.vary.is_empty() {
        let index = match named {
            Some(i) => i,
            None => match scenario.sweeps.len() {
                0 => {
                    return Err(util::usage(
                        "the scenario declares no sweep; vary params on the command line, e.g. `--vary attempts=1,2,3`",
                    ))
                }
                1 => 0,
                _ => {
                    let names: Vec<String> =
                        scenario.sweeps.iter().map(|s| format!("`{}`", s.name)).collect();
                    return Err(util::usage(&format!(
                        "the scenario declares several sweeps ({}); name one with `--sweep NAME`",
                        names.join(", ")
                    )));
                }
            },
        };
        let mut s = scenario;
        if let Some(b) = base {
            s.sweeps[index].base = b;
        }
        (s, index)
    } else {
        let mut axes = Vec::new();
        for v in &args.vary {
            axes.push(parse_vary(v).map_err(|e| util::arg_error(&e))?);
        }
        let name = match named.or_else(|| default_sweep(&scenario)) {
            Some(i) => scenario.sweeps[i].name.clone(),
            None => ADHOC.to_string(),
        };
        let s = match scenario.with_sweep(&name, axes, base, "--vary") {
            Ok(s) => s,
            Err(SweepError::Invalid(d)) => {
                util::print_diagnostics(&d, color);
                return Err(EXIT_INVALID);
            }
            Err(e) => return Err(util::arg_error(&ArgError::Sweep(e))),
        };
        let index = s.sweeps.iter().position(|x| x.name == name).unwrap_or(0);
        (s, index)
    };
    let cli = util::parse_sets(&scenario, &args.sets)?;
    if shard.is_none() && scenario.report.measures.is_empty() {
        let tables = squall_report::sweep::sweep_tables(&scenario, index);
        if tables.is_empty() {
            return Err(util::usage(&format!(
                "nothing to tabulate: the report has no table with `rows sweep {}` and no `measure`; add a `measure` to the report",
                scenario.sweeps[index].name
            )));
        }
    }
    // Ctrl-C stops the sweep between points: the finished ones are written
    // (a second Ctrl-C quits at once).
    let stop = crate::interrupt::stop_between_runs();
    let options = SweepOptions {
        cli,
        jobs: args.jobs,
        shard,
        memory_mib: args.memory_budget,
        stop: Some(Arc::clone(&stop)),
    };
    // For tests: stop as Ctrl-C would once this many runs have finished.
    let stop_after: Option<usize> = std::env::var(STOP_AFTER).ok().and_then(|v| v.parse().ok());
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(0);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{spinner} {bar:40} {pos}/{len} runs, {elapsed} (eta {eta})",
        ) {
            bar.set_style(style);
        }
        bar
    });
    let progress = |done: usize, total: usize| {
        if stop_after.is_some_and(|k| done >= k) {
            stop.store(true, Ordering::SeqCst);
        }
        if let Some(b) = &bar {
            b.set_length(total as u64);
            b.set_position(done as u64);
        }
    };
    let rows = run_sweep(&scenario, index, &options, &progress);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let rows = rows.map_err(|e| study_error(&e, color))?;
    let text = if shard.is_some() {
        rows.to_json()
    } else {
        let format = args.format.unwrap_or(FormatArg::Text);
        rows.render(format.to_report())
            + &draw(&rows, args.charts.as_deref(), format, args.out.as_deref())?
    };
    util::write_output(args.out.as_deref(), &text)?;
    if !rows.failed.is_empty() {
        // The finished points are written; each failed one is named with
        // its settings, and the sweep fails.
        let sweep = &rows.study.sweep;
        for f in &rows.failed {
            eprintln!(
                "error: point {} of sweep `{sweep}` ({}): {}",
                f.point + 1,
                f.settings,
                f.error
            );
        }
        eprintln!(
            "wrote the {} finished points{}; the {} failed point{} {} no rows",
            rows.points_run.len(),
            args.out
                .as_ref()
                .map(|p| format!(" to `{}`", p.display()))
                .unwrap_or_default(),
            rows.failed.len(),
            if rows.failed.len() == 1 { "" } else { "s" },
            if rows.failed.len() == 1 {
                "has"
            } else {
                "have"
            },
        );
        if rows.failed.iter().any(|f| f.work_budget) {
            eprintln!("help: `--work-budget` sets the work budget for this invocation");
        }
        return Err(EXIT_INVALID);
    }
    match rows.interrupted {
        None => Ok(()),
        Some(missing) => {
            eprintln!(
                "interrupted: wrote the {} finished points{}; the other {missing} were not run (run the sweep again for all of them)",
                rows.points_run.len(),
                args.out
                    .as_ref()
                    .map(|p| format!(" to `{}`", p.display()))
                    .unwrap_or_default()
            );
            Err(EXIT_INTERRUPTED)
        }
    }
}

/// Writes the sweep's charts into `dir` (when given); for markdown output,
/// the section that shows them.
fn draw(
    rows: &squall_report::sweep::SweepRows,
    dir: Option<&Path>,
    format: FormatArg,
    out: Option<&Path>,
) -> Result<String, u8> {
    let Some(dir) = dir else {
        return Ok(String::new());
    };
    let charts = rows.charts();
    crate::cmd::charts::write(dir, &charts)?;
    Ok(if format == FormatArg::Markdown {
        crate::cmd::charts::markdown(dir, out, &charts)
    } else {
        String::new()
    })
}

/// `squall merge FILE...`
pub fn merge(
    files: &[PathBuf],
    format: FormatArg,
    out: Option<&Path>,
    charts: Option<&Path>,
) -> u8 {
    if let Some(out) = out {
        let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
        if let Err(code) = util::refuse_overwriting(out, &inputs) {
            return code;
        }
    }
    let mut parts = Vec::new();
    for f in files {
        let text = match util::read(f) {
            Ok(t) => t,
            Err(code) => return code,
        };
        let name = f.display().to_string();
        match squall_report::read_shard(&name, &text) {
            Ok(p) => parts.push((name, p)),
            Err(e) => return merge_error(&e),
        }
    }
    let merged = match squall_report::merge(parts) {
        Ok(m) => m,
        Err(e) => return merge_error(&e),
    };
    let links = match draw(&merged, charts, format, out) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let text = merged.render(format.to_report()) + &links;
    match util::write_output(out, &text) {
        Ok(()) => EXIT_OK,
        Err(code) => code,
    }
}

/// Prints why shards do not merge, with how to make the shard files the
/// message asks for (the report crate names no flag), and returns the
/// usage exit code.
fn merge_error(e: &MergeError) -> u8 {
    let hint = match e {
        MergeError::NotAShard { .. } => "; write one with `squall sweep --shard K/N --out FILE`",
        _ => "",
    };
    util::usage(&format!("{}{hint}", e.words(&util::FLAGS)))
}
