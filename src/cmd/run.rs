//! `squall run` and `squall check`.

use std::path::{Path, PathBuf};

use squall_lang::unknown::Unknown;
use squall_lang::{RunKey, Scenario, Setting};
use squall_report::events::DEFAULT_EVENTS_LIMIT;
use squall_report::{Budget, Keep, RunPlan, Study, StudyError, StudyOptions};

use crate::util::{self, EXIT_INVALID, EXIT_OK};
use crate::FormatArg;

/// Files `squall run` writes besides the report.
pub struct Extras {
    /// Per-tick counters as CSV.
    pub series: Option<PathBuf>,
    /// A chart of one node's calls as SVG.
    pub chart: Option<PathBuf>,
    /// The node to chart.
    pub chart_node: Option<String>,
    /// A directory for every chart of the report, one SVG each.
    pub charts: Option<PathBuf>,
    /// The report as one self-contained HTML page.
    pub html: Option<PathBuf>,
    /// Every answered call: JSON lines, or SQLite for `.sqlite`.
    pub events: Option<PathBuf>,
    /// The most calls written to `events`.
    pub events_limit: Option<usize>,
    /// Every send attempt, as SQLite or CSV (by the extension).
    pub attempt_log: Option<PathBuf>,
}

/// `--seed` and `--jobs` of `squall run`.
pub struct Seeding {
    /// The root seed instead of the file's.
    pub seed: Option<u64>,
    /// `--replications`: the count instead of the report's.
    pub replications: Option<u64>,
    /// `--work-budget`: the events a run may handle, instead of the file's.
    pub work_budget: Option<u64>,
    /// `--memory-budget`: the memory the invocation may hold \[MiB\].
    pub memory_budget: Option<u64>,
    /// Threads; `None` for one per core.
    pub jobs: Option<usize>,
}

/// `squall run FILE`: runs the scenario and prints its report.
#[allow(clippy::too_many_arguments)]
pub fn run(
    file: &Path,
    variants: &[String],
    sets: &[String],
    seeding: &Seeding,
    format: FormatArg,
    out: Option<&Path>,
    extras: &Extras,
    color: bool,
) -> u8 {
    let mut scenario = match util::load(file, color) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if let Some(seed) = seeding.seed {
        scenario.seed = seed;
    }
    if let Err(code) = util::set_replications(&mut scenario, seeding.replications) {
        return code;
    }
    if seeding.work_budget == Some(0) {
        return util::usage("`--work-budget 0`: give at least one event");
    }
    if let Some(n) = seeding.work_budget {
        scenario.work_budget = Some(n);
    }
    if let Err(code) = util::check_jobs(seeding.jobs) {
        return code;
    }
    let cli = match util::parse_sets(&scenario, sets) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let selected = if variants.is_empty() {
        None
    } else {
        let mut ids = Vec::new();
        for v in variants {
            match util::find_variant(&scenario, v) {
                Ok(i) => ids.push(i),
                Err(code) => return code,
            }
        }
        Some(ids)
    };
    // Every argument is checked before the run: a bad one must not cost a
    // run, nor leave a series file written.
    for written in [
        out,
        extras.series.as_deref(),
        extras.chart.as_deref(),
        extras.html.as_deref(),
        extras.events.as_deref(),
    ]
    .into_iter()
    .flatten()
    {
        if let Err(code) = util::refuse_overwriting(written, &[file]) {
            return code;
        }
    }
    let given: Vec<(&str, &Path)> = [
        ("--series", &extras.series),
        ("--chart", &extras.chart),
        ("--html", &extras.html),
        ("--events", &extras.events),
        ("--attempt-log", &extras.attempt_log),
    ]
    .into_iter()
    .filter_map(|(flag, p)| p.as_deref().map(|p| (flag, p)))
    .collect();
    let checked = match out.filter(|o| format == FormatArg::Csv && crate::cmd::tables::is_dir(o)) {
        Some(dir) => util::check_outputs_to_folder(dir, &given),
        None => util::check_outputs(out, &given),
    };
    if let Err(code) = checked {
        return code;
    }
    if scenario.nodes.is_empty() && (extras.series.is_some() || extras.chart.is_some()) {
        return util::usage(&format!(
            "`--series` and `--chart` draw a call chain's ticks, and `{}` has no `chain`",
            file.display()
        ));
    }
    let log_form = match &extras.attempt_log {
        Some(path) => match attempt_log_form(path, &scenario, file) {
            Ok(f) => Some(f),
            Err(code) => return code,
        },
        None => None,
    };
    let chart_node = match &extras.chart {
        Some(_) => match chart_node(&scenario, extras.chart_node.as_deref()) {
            Ok(i) => Some(i),
            Err(code) => return code,
        },
        None => None,
    };
    if extras.events_limit == Some(0) {
        return util::usage("`--events-limit 0`: give at least one call");
    }
    let events_limit = extras
        .events
        .as_ref()
        .map(|_| extras.events_limit.unwrap_or(DEFAULT_EVENTS_LIMIT));
    // A run longer than about a second shows a progress bar on a terminal.
    let study = crate::late_bar::with_late_bar(|progress| {
        Study::run_with_progress(
            &scenario,
            StudyOptions {
                cli,
                variants: selected,
                jobs: seeding.jobs,
                // The series and charts read every tick; the report alone reads
                // window totals, so each run is reduced as it finishes.
                keep: if extras.series.is_some()
                    || extras.chart.is_some()
                    || extras.charts.is_some()
                    || extras.html.is_some()
                {
                    Keep::Everything
                } else {
                    Keep::Report
                },
                memory_mib: seeding.memory_budget,
                events: events_limit,
            },
            progress,
        )
    });
    let study = match study {
        Ok(s) => s,
        Err(e) => return study_error(&e, color),
    };
    if let (Some(path), Some(limit)) = (&extras.events, events_limit) {
        let events = study.events(limit);
        if let Err(m) = events.write(path) {
            return util::usage(&m);
        }
        if events.truncated() {
            eprintln!(
                "warning: `{}` holds the first {} of {} calls, the limit (`--events-limit`); the other {} are left out",
                path.display(),
                events.rows.len(),
                events.total,
                events.total - events.rows.len() as u64
            );
        }
    }
    if let Some(path) = &extras.series {
        if let Err(code) = util::write_output(Some(path), &study.series_csv()) {
            return code;
        }
    }
    if let (Some(path), Some(form)) = (&extras.attempt_log, log_form) {
        if let Err(code) = write_attempt_log(&study, path, form) {
            return code;
        }
    }
    if let (Some(path), Some(node)) = (&extras.chart, chart_node) {
        if let Err(code) = util::write_output(Some(path), &study.chart_svg(node)) {
            return code;
        }
    }
    let report = study.report();
    let mut links = String::new();
    if extras.charts.is_some() || extras.html.is_some() {
        let charts = study.charts();
        let table_charts = study.sweep_charts(charts.len() + 1);
        if let Some(dir) = &extras.charts {
            let mut all = charts.clone();
            all.extend(table_charts.iter().map(|(_, c)| c.clone()));
            if let Err(code) = crate::cmd::charts::write(dir, &all) {
                return code;
            }
            if format == FormatArg::Markdown {
                links = crate::cmd::charts::markdown(dir, out, &all);
            }
        }
        if let Some(path) = &extras.html {
            let source = util::read(file).unwrap_or_default();
            let page = squall_report::html::HtmlPage {
                report: &report,
                charts: &charts,
                table_charts: &table_charts,
                source: &source,
                version: env!("CARGO_PKG_VERSION"),
            };
            if let Err(code) = util::write_output(Some(path), &page.render()) {
                return code;
            }
        }
    }
    if let Some(dir) = out.filter(|o| format == FormatArg::Csv && crate::cmd::tables::is_dir(o)) {
        return match crate::cmd::tables::write(dir, &report.data_tables()) {
            Ok(()) => EXIT_OK,
            Err(code) => code,
        };
    }
    let text = report.render(format.to_report()) + &links;
    match util::write_output(out, &text) {
        Ok(()) => EXIT_OK,
        Err(code) => code,
    }
}

/// How `--attempt-log` writes, by the file's extension.
#[derive(Debug, Clone, Copy)]
enum LogForm {
    Sqlite,
    Csv,
}

/// Checks `--attempt-log` before the run: a scenario with senders, a
/// known extension, not an input.
fn attempt_log_form(path: &Path, scenario: &Scenario, file: &Path) -> Result<LogForm, u8> {
    if scenario.senders.is_empty() {
        return Err(util::usage(&format!(
            "`--attempt-log`: `{}` has no `sender`, so no send attempts to log",
            file.display()
        )));
    }
    util::refuse_overwriting(path, &[file])?;
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "sqlite" | "sqlite3" | "db" => Ok(LogForm::Sqlite),
        "csv" => Ok(LogForm::Csv),
        _ => Err(util::usage(&format!(
            "`--attempt-log {}`: name a `.sqlite` (or `.sqlite3`, `.db`) file for SQLite, or a `.csv` file",
            path.display()
        ))),
    }
}

/// Writes the study's attempt log, whole or not at all.
fn write_attempt_log(
    study: &squall_report::Study<'_>,
    path: &Path,
    form: LogForm,
) -> Result<(), u8> {
    let named = study.attempt_logs();
    let logs = study.run_logs(&named);
    match form {
        LogForm::Csv => {
            util::write_output(Some(path), &squall_report::sending::attempt_log_csv(&logs))
        }
        LogForm::Sqlite => squall_report::sending::write_attempt_log_sqlite(path, &logs)
            .map_err(|e| util::usage(&e.to_string())),
    }
}

/// The node `--chart` draws: `--chart-node`, or the bottom of the first chain.
fn chart_node(scenario: &squall_lang::Scenario, name: Option<&str>) -> Result<usize, u8> {
    match name {
        Some(name) => scenario
            .nodes
            .iter()
            .position(|n| n.name == name)
            .ok_or_else(|| {
                let known: Vec<&str> = scenario.nodes.iter().map(|n| n.name.as_str()).collect();
                util::usage(&Unknown::new("node", name).within("to chart").plain(&known))
            }),
        None => Ok(squall_report::chart::default_node(scenario)),
    }
}

/// Prints a study error and returns its exit code.
pub fn study_error(e: &StudyError, color: bool) -> u8 {
    match e {
        StudyError::Invalid(d) => util::print_diagnostics(d, color),
        StudyError::Refused(r) => eprintln!("{}: error: {}", r.place(), r.error),
        other => eprintln!("error: {other}"),
    }
    print_flag_hint(e);
    EXIT_INVALID
}

/// The command-line flags that change the limit a study error names. The
/// engine and the report word their errors without flags (a library has
/// none); the CLI knows its own.
fn flag_hint(e: &StudyError) -> Option<&'static str> {
    Some(match e.budget()? {
        Budget::Invocation => "`--variant` and `--shard` run fewer variants or points, `--jobs` fewer at once, and `--memory-budget` raises the budget",
        Budget::RunMemory => "raise the memory budget with `--memory-budget`",
        Budget::Work => "`--work-budget` sets the work budget for this invocation",
    })
}

/// Prints [`flag_hint`]'s hint, if the error has one.
fn print_flag_hint(e: &StudyError) {
    if let Some(hint) = flag_hint(e) {
        eprintln!("help: {hint}");
    }
}

/// How `squall check` names a run the engine refuses.
fn run_name(s: &Scenario, key: RunKey) -> String {
    match key {
        RunKey::Variant(v) => format!("variant `{}`", s.variants[v].name),
        RunKey::Point(i, p) => format!("point {} of sweep `{}`", p + 1, s.sweeps[i].name),
        RunKey::Cross(v, i, p) => format!(
            "point {} of sweep `{}` on variant `{}`",
            p + 1,
            s.sweeps[i].name,
            s.variants[v].name
        ),
    }
}

/// What `squall check` is asked besides the files.
pub struct Checking<'a> {
    /// `--model`: print every run's resolved model.
    pub model: bool,
    /// `--estimate`: print every timed run's estimated work and memory.
    pub estimate: bool,
    /// `--memory-budget` \[MiB\]; `None` for `run`'s default.
    pub memory_mib: Option<u64>,
    /// `--set NAME=VALUE` settings, read against each file's params.
    pub sets: &'a [String],
    /// `--replications N` instead of each report's count.
    pub replications: Option<u64>,
}

/// `squall check FILE...`: validates scenario files, and every run the
/// file can make ([`RunPlan::every`]: variants, sweep points, points crossed
/// with variants) with the `--set` settings against the engine's limits
/// and, for a run that takes time, its own estimated memory against
/// `memory_mib` (the default budget of `run` when `None`), so `check`
/// passes only what `run` and `sweep` run with the same settings.
pub fn check(files: &[PathBuf], how: &Checking<'_>, color: bool) -> u8 {
    use std::io::Write as _;
    let mut worst = EXIT_OK;
    let mut stdout = std::io::stdout().lock();
    for f in files {
        let loaded = util::load(f, color).and_then(|mut s| {
            util::set_replications(&mut s, how.replications)?;
            let cli = util::parse_sets(&s, how.sets)?;
            Ok((s, cli))
        });
        match loaded {
            Ok((s, cli)) => {
                let refused = RunPlan::every(&s).refusals(&s, &cli, how.memory_mib);
                if !refused.is_empty() {
                    for (key, problem) in &refused {
                        match problem {
                            StudyError::Invalid(d) => util::print_diagnostics(d, color),
                            StudyError::Refused(r) => {
                                let others = match r.runs {
                                    1 => String::new(),
                                    2 => " and 1 other run".to_string(),
                                    n => format!(" and {} other runs", n - 1),
                                };
                                eprintln!(
                                    "{}: error: {}{others}: {}",
                                    r.place(),
                                    run_name(&s, *key),
                                    r.error
                                );
                                print_flag_hint(problem);
                            }
                            other => {
                                eprintln!("{}: error: {}: {other}", f.display(), run_name(&s, *key))
                            }
                        }
                    }
                    worst = worst.max(EXIT_INVALID);
                    continue;
                }
                // Once per file, with the count: a file of 200 000 runs
                // printed 74 705 warnings.
                let over = RunPlan::every(&s).over_budget(&s, &cli);
                if let Some(first) = over.first() {
                    let others = match over.len() - 1 {
                        0 => String::new(),
                        1 => " (and 1 other run alike)".to_string(),
                        n => format!(" (and {n} other runs alike)"),
                    };
                    eprintln!(
                        "{}: warning: {}{others}: source `{}` may make up to {:.0} calls (its requests times the tries and the fan-out along its chain), more than the work budget of {} events; the run may stop at the budget (set `work_budget` or `--work-budget`, make fewer tries, or wait between them)",
                        f.display(),
                        run_name(&s, first.key),
                        first.source,
                        first.bound,
                        first.budget
                    );
                }
                let count =
                    |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
                let _ = writeln!(
                    stdout,
                    "{}: ok ({}, {}, {})",
                    f.display(),
                    count(s.nodes.len(), "node"),
                    count(s.variants.len(), "variant"),
                    count(s.sweeps.len(), "sweep")
                );
                if how.estimate && print_estimates(&mut stdout, &s, &cli).is_err() {
                    return worst;
                }
                if how.model {
                    for key in s.all_runs() {
                        if let Ok(m) = s.model_for(key, &cli) {
                            let pretty = ron::ser::PrettyConfig::new();
                            match ron::ser::to_string_pretty(&m, pretty) {
                                Ok(text) => {
                                    // A closed pipe (`| head`) ends the listing quietly.
                                    if writeln!(stdout, "// {key:?}\n{text}").is_err() {
                                        return worst;
                                    }
                                }
                                Err(e) => eprintln!("error: cannot print the model: {e}"),
                            }
                        }
                    }
                }
            }
            Err(code) => worst = worst.max(code),
        }
    }
    worst
}

/// `check --estimate`: one line per run in which calls take time, with its
/// failure-free work against its work budget and its estimated peak
/// memory ([`RunPlan::estimates`]).
fn print_estimates(
    out: &mut impl std::io::Write,
    s: &Scenario,
    cli: &[Setting],
) -> std::io::Result<()> {
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    let estimates = RunPlan::every(s).estimates(s, cli);
    for (key, budget, e) in &estimates {
        writeln!(
            out,
            "  {}: about {:.0} events if nothing fails ({:.0} requests; work budget {budget}), peak memory about {:.1} MiB ({:.1} counters and bins, {:.1} histograms, {:.1} in flight)",
            run_name(s, *key),
            e.events,
            e.requests,
            mib(e.peak_bytes()),
            mib(e.series_bytes),
            mib(e.histogram_bytes),
            mib(e.in_flight_bytes),
        )?;
        // Retries only add work: how much at most, when every try fails.
        if e.calls_if_all_fail > e.calls {
            writeln!(
                out,
                "    with retries: {:.0} calls if nothing fails, at most {:.0} if every try fails ({:.1} per request; budgets and breakers only lower it)",
                e.calls,
                e.calls_if_all_fail,
                e.calls_if_all_fail / e.requests.max(1.0),
            )?;
        }
    }
    // Every run above is made once per replication.
    let replications = s.report.replications.map_or(1, |n| n.max(1));
    if replications > 1 && !estimates.is_empty() {
        let events: f64 = estimates.iter().map(|(_, _, e)| e.events).sum();
        writeln!(
            out,
            "  in all: {} runs x {replications} replications = {} runs, about {:.0} events if nothing fails",
            estimates.len(),
            estimates.len() * replications as usize,
            events * f64::from(replications),
        )?;
    }
    Ok(())
}
