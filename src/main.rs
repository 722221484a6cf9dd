//! The `squall` command line.
//!
//! One module per command under `cmd/`; `util` holds what they share (exit
//! codes, loading, diagnostics).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

mod cmd;
mod interrupt;
mod late_bar;
mod util;

use util::EXIT_OK;

#[derive(Parser)]
#[command(
    name = "squall",
    version,
    about = "A discrete-event simulator for resilience patterns in service call chains",
    long_about = "squall runs scenario files that describe a chain of services (who calls whom, \
capacities, retries, faults) and prints a report that shows whether a fault turns into a retry \
storm, how long it outlives the fault, and what another policy would change.",
    after_help = "Examples:\n  squall run scenarios/retry-storm.squall\n  squall sweep scenarios/retry-storm.squall --vary attempts=1,2,3 --vary spacing=2,4\n  squall test scenarios/\n  squall diff old.squall new.squall\n  squall fmt scenarios/*.squall\n  squall new checkout\n\nExit codes: 0 ok, 1 an expectation or snapshot failed (or reports differ beyond noise, or a file needs formatting), 2 invalid scenario, 3 usage error."
)]
struct Cli {
    /// When to color diagnostics and diffs.
    #[arg(long, global = true, value_enum, default_value_t = ColorWhen::Auto)]
    color: ColorWhen,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorWhen {
    Auto,
    Always,
    Never,
}

/// Output formats of reports and result tables.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Aligned plain text.
    Text,
    /// GitHub-flavoured markdown.
    Markdown,
    /// JSON: the report as data, numbers as printed.
    Json,
    /// CSV: the tables only, numbers as computed; several tables are one
    /// long table with a `table` column.
    Csv,
}

impl FormatArg {
    fn to_report(self) -> squall_report::Format {
        match self {
            FormatArg::Text => squall_report::Format::Text,
            FormatArg::Markdown => squall_report::Format::Markdown,
            FormatArg::Json => squall_report::Format::Json,
            FormatArg::Csv => squall_report::Format::Csv,
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario and print its report.
    #[command(after_help = "Examples:
  squall run scenarios/retry-storm.squall
  squall run scenarios/retry-storm.squall --variant storm --variant no_retries
  squall run scenarios/retry-storm.squall --set attempts=2 --set spacing='8 rounds'
  squall run scenarios/retry-storm.squall --seed 7
  squall run scenarios/jitter.squall --replications 3
  squall run scenarios/retry-storm.squall --format json --out report.json
  squall run scenarios/retry-storm.squall --series ticks.csv --chart db.svg --chart-node db
  squall run scenarios/retry-storm.squall --charts charts/ --html report.html
  squall run scenarios/rate-limit.squall --attempt-log log.sqlite

Exit codes: 0 ok, 2 invalid scenario, 3 usage error.")]
    Run {
        /// The scenario file.
        file: PathBuf,
        /// Only these variants (by name or label); repeat for several. Default: all.
        #[arg(long = "variant", value_name = "NAME")]
        variants: Vec<String>,
        /// Override a param, e.g. `--set attempts=2` or `--set demand=6/round`.
        #[arg(long = "set", value_name = "NAME=VALUE")]
        sets: Vec<String>,
        /// Run with this root seed instead of the file's `seed` (printed in
        /// the report's header); every run derives its stream from it.
        #[arg(long, value_name = "N")]
        seed: Option<u64>,
        /// Run every run N times (2 to 1000) instead of the report's
        /// `replications` (or once): the same report as `replications N` in
        /// the file, every number a mean with its 95 % interval.
        #[arg(long, value_name = "N")]
        replications: Option<u64>,
        /// The events each run may handle before it stops with an error,
        /// instead of the file's `work_budget` (or the default).
        #[arg(long = "work-budget", value_name = "N")]
        work_budget: Option<u64>,
        /// The memory the whole invocation may hold [MiB] (default 4096):
        /// refused before any run when the estimate is over it.
        #[arg(long = "memory-budget", value_name = "MIB")]
        memory_budget: Option<u64>,
        /// Threads to run on (at most 1024). Default: one per core. The report
        /// is the same for any number.
        #[arg(long, value_name = "N")]
        jobs: Option<usize>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = FormatArg::Text)]
        format: FormatArg,
        /// Write the report to this file instead of standard output (`-`:
        /// standard output). A regular file is replaced whole; a device or
        /// FIFO is written through. With `--format csv`, a folder (a path
        /// ending in `/`, or an existing folder) gets one CSV file per table,
        /// named after its title. Every output is checked (writable, no two
        /// onto one file) before the run.
        #[arg(long, value_name = "FILE|DIR/")]
        out: Option<PathBuf>,
        /// Also write every variant's per-tick counters (each node's calls,
        /// served, failed, refused, blocked; the system's arrivals,
        /// completions, drops) to this CSV file.
        #[arg(long, value_name = "FILE")]
        series: Option<PathBuf>,
        /// Also draw the calls per tick at a node, one line per variant, fault
        /// windows shaded, to this SVG file.
        #[arg(long, value_name = "FILE")]
        chart: Option<PathBuf>,
        /// The node `--chart` draws (default: the node the first node calls,
        /// and so on down, to the bottom of that chain).
        #[arg(long, value_name = "NODE", requires = "chart")]
        chart_node: Option<String>,
        /// Also write every chart of the report into this directory, one
        /// SVG file each (created if missing).
        #[arg(long, value_name = "DIR")]
        charts: Option<PathBuf>,
        /// Also write the whole report as one self-contained HTML page:
        /// charts inline, every table and line, the scenario's source.
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        /// Also write every answered call of every run (run, time, request,
        /// node, try, outcome, latency; times in the clock's ticks) to this
        /// file: JSON lines, or an SQLite table `calls` when the name ends
        /// in `.sqlite`.
        #[arg(long, value_name = "FILE")]
        events: Option<PathBuf>,
        /// The most calls `--events` writes (default 1000000); past it the
        /// first ones are written and squall says how many were left out.
        #[arg(long = "events-limit", value_name = "N", requires = "events")]
        events_limit: Option<usize>,
        /// Also write every send attempt of the scenario's senders (record,
        /// attempt, created_at in UTC, provider_code, internal_status,
        /// next_attempt_at, variant) to this SQLite database (table
        /// `send_attempts`; `FILE.sqlite`, `.sqlite3` or `.db`) or CSV file
        /// (`FILE.csv`), written whole or not at all.
        #[arg(long = "attempt-log", value_name = "FILE")]
        attempt_log: Option<PathBuf>,
    },
    /// Check scenario files and print their diagnostics.
    #[command(
        after_help = "Examples:\n  squall check scenarios/retry-storm.squall\n  squall check scenarios/*.squall\n  squall check scenarios/metastable.squall --estimate --set attempts=5 --replications 10\n\nExit codes: 0 when every file is valid, 2 when one is not, 3 when a file cannot be read."
    )]
    Check {
        /// The scenario files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Also print each file's resolved model (every run) as RON.
        #[arg(long)]
        model: bool,
        /// Also print, for each run in which calls take time, its estimated
        /// work (events without a failure, against the work budget), peak
        /// memory and, with retries, the most calls if every try fails;
        /// with replications, the runs in all.
        #[arg(long)]
        estimate: bool,
        /// The memory one run may hold [MiB] (default 4096, as for `run`):
        /// a run that takes time whose estimated peak is over it is refused.
        #[arg(long = "memory-budget", value_name = "MIB")]
        memory_budget: Option<u64>,
        /// Check (and estimate) every run with this param overridden, as
        /// `run --set` would run it, e.g. `--set attempts=5`; repeat for
        /// several. Each file must declare the param.
        #[arg(long = "set", value_name = "NAME=VALUE")]
        sets: Vec<String>,
        /// Count N replications (2 to 1000) in `--estimate`'s total instead
        /// of the report's `replications`, as `run --replications N` makes.
        #[arg(long, value_name = "N")]
        replications: Option<u64>,
    },
    /// Run a what-if study: one row per point of a sweep, in parallel.
    #[command(
        long_about = "Runs every point of a sweep and prints one table: the report's tables whose rows are \
`sweep NAME`, filled with the points, or (when the report has none) one column per `measure`. \
Points are the cross product of the `--vary` values, first axis outermost. Each point runs \
with its own random stream derived from the scenario seed and the point's values, so the \
table is the same for any `--jobs` and any `--shard` split.",
        after_help = "Examples:\n  squall sweep scenarios/retry-storm.squall --vary attempts=1,2,3 --vary spacing=2,4\n  squall sweep scenarios/retry-storm.squall --sweep allowance --format csv\n  squall sweep scenarios/jitter.squall --vary attempts=2,4 --replications 5\n  squall sweep scenarios/retry-storm.squall --vary attempts=1,2,3 --vary spacing=2,4 --charts charts/ --format markdown --out study.md\n  squall sweep scenarios/retry-storm.squall --vary attempts=1,2,3 --shard 2/3 --out part-2.json\n  squall merge part-1.json part-2.json part-3.json\n\nExit codes: 0 ok, 2 invalid scenario (or a point that does not resolve), 3 usage error."
    )]
    Sweep(SweepArgs),
    /// Join the shard files of a sweep into the table a single run prints.
    #[command(
        after_help = "Examples:\n  squall merge part-1.json part-2.json part-3.json\n  squall merge parts/*.json --format markdown\n\nExit codes: 0 ok, 3 when the files are not the complete shards of one study."
    )]
    Merge {
        /// The shard files (`squall sweep --shard K/N --out FILE`), in any order.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = FormatArg::Text)]
        format: FormatArg,
        /// Write the table to this file instead of standard output.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Also draw the merged results into this directory, as `squall
        /// sweep --charts` does.
        #[arg(long, value_name = "DIR")]
        charts: Option<PathBuf>,
    },
    /// Run every scenario under a folder, check its `expect` lines and compare
    /// its report with the committed snapshot.
    #[command(
        long_about = "Runs every `.squall` file under PATH (a folder, searched recursively, or one file), \
checks its `expect` lines, and compares its markdown report with the snapshot \
`snapshots/<name>.md` next to it. A difference is printed as a unified diff. \
`--accept` writes the new reports as the snapshots.",
        after_help = "Examples:\n  squall test scenarios/\n  squall test scenarios/retry-storm.squall\n  squall test scenarios/ --accept\n\nExit codes: 0 all passed, 1 an expectation or snapshot failed, 2 a scenario is invalid, 3 usage error."
    )]
    Test {
        /// A folder of scenarios, or one scenario file.
        #[arg(default_value = "scenarios")]
        path: PathBuf,
        /// Write the new reports as the snapshots instead of failing on a difference.
        #[arg(long)]
        accept: bool,
        /// The events each run may handle before it stops with an error,
        /// instead of each file's `work_budget` (or the default).
        #[arg(long = "work-budget", value_name = "N")]
        work_budget: Option<u64>,
    },
    /// Compare two reports table by table: two scenario files, or two JSON reports.
    #[command(
        after_help = "Examples:\n  squall diff before.squall after.squall\n  squall diff old.json new.json --format markdown\n  squall diff --git origin/main scenarios/ --format markdown\n\nExit codes: 0 no change beyond noise (with `--fail-on any`: no change at all; with `--fail-on flipped`: no expectation flipped), 1 a change beyond noise or a flipped expectation (with `--fail-on any`: any change; with `--fail-on flipped`: a flipped expectation), 2 invalid scenario or a scenario that fails to run, 3 usage error (a bad ref, a missing file)."
    )]
    Diff {
        /// The old side: a `.squall` scenario or a `.json` report. With
        /// `--git`: the folder (or file) of scenarios, `scenarios/` if left out.
        #[arg(required_unless_present = "git")]
        old: Option<PathBuf>,
        /// The new side: a `.squall` scenario or a `.json` report.
        #[arg(required_unless_present = "git", conflicts_with = "git")]
        new: Option<PathBuf>,
        /// Compare every scenario under the folder as it is at this git ref
        /// (read with git, nothing checked out) with how it is now; a renamed
        /// scenario is followed.
        #[arg(long, value_name = "REF")]
        git: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
        format: DiffFormat,
        /// Which change exits 1: `beyond-noise` (a text, a row, a number of a
        /// single run, intervals that are apart, a flipped expectation), `any`
        /// (within noise too) or `flipped` (only an expectation whose result
        /// changed).
        #[arg(long = "fail-on", value_enum, default_value_t = FailOn::BeyondNoise)]
        fail_on: FailOn,
    },
    /// Rewrite scenario files in the one canonical layout, keeping comments.
    #[command(
        after_help = "Examples:\n  squall fmt scenarios/retry-storm.squall\n  squall fmt --check scenarios/*.squall\n\nExit codes: 0 ok, 1 with `--check` when a file needs formatting, 2 a file does not parse, 3 usage error."
    )]
    Fmt {
        /// The scenario files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Change nothing; print a diff and exit 1 when a file is not formatted.
        #[arg(long)]
        check: bool,
    },
    /// Write a commented starter scenario that runs as it is.
    #[command(
        after_help = "Examples:\n  squall new checkout          # writes checkout.squall\n  squall new studies/payments  # writes studies/payments.squall\n\nExit codes: 0 ok, 3 when the file exists or cannot be written."
    )]
    New {
        /// The scenario's name; `NAME.squall` is written (never overwritten).
        /// Not a folder (`dir/`, `..`), and one line of text.
        name: String,
    },
    /// Print a shell completion script.
    #[command(
        after_help = "Examples:\n  squall completions bash > ~/.local/share/bash-completion/completions/squall\n  squall completions zsh > ~/.zfunc/_squall\n  squall completions fish > ~/.config/fish/completions/squall.fish"
    )]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// Which change makes `squall diff` exit 1.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Any change, within noise too.
    Any,
    /// A change beyond the replications' noise (every change of a report
    /// without replications but its facts).
    BeyondNoise,
    /// Only an expectation whose result changed (`ok` -> `FAILED`, say).
    Flipped,
}

/// Formats of `squall diff`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    /// Aligned text; changed cells highlighted on a terminal.
    Text,
    /// Markdown, for a pull-request comment; changed cells in bold.
    Markdown,
}

/// The arguments of `squall sweep`.
#[derive(Args)]
pub struct SweepArgs {
    /// The scenario file.
    pub file: PathBuf,
    /// Vary a param over values, e.g. `--vary attempts=1,2,3`; repeat for
    /// more axes. `--vary seed=1,2,3` varies the root seed.
    #[arg(long = "vary", value_name = "NAME=V1,V2,...")]
    pub vary: Vec<String>,
    /// The file's sweep to run (or whose points `--vary` replaces). Default:
    /// the sweep the report's first sweep table shows.
    #[arg(long = "sweep", value_name = "NAME")]
    pub sweep: Option<String>,
    /// The variant every point starts from. Default: the sweep's own, or the first variant.
    #[arg(long = "variant", value_name = "NAME")]
    pub variant: Option<String>,
    /// Override a param for every point, e.g. `--set demand=6/round`.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub sets: Vec<String>,
    /// Run with this root seed instead of the file's `seed`; every point
    /// derives its stream from it. (To sweep seeds: `--vary seed=1,2,3`.)
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Run every point N times (2 to 1000) instead of the report's
    /// `replications` (or once): each cell a mean with its 95 % interval,
    /// as with `replications N` in the file.
    #[arg(long, value_name = "N")]
    pub replications: Option<u64>,
    /// The events each run may handle before it stops with an error,
    /// instead of the file's `work_budget` (or the default).
    #[arg(long = "work-budget", value_name = "N")]
    pub work_budget: Option<u64>,
    /// The memory the whole invocation may hold [MiB] (default 4096):
    /// refused before any run when the estimate is over it.
    #[arg(long = "memory-budget", value_name = "MIB")]
    pub memory_budget: Option<u64>,
    /// Threads to run points on (at most 1024). Default: one per core.
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Run only the K-th of N slices of the points (1-based; point i goes to
    /// slice i mod N + 1) and write a shard file for `squall merge`. `auto`
    /// takes K (and N) from the batch system: JOB_COMPLETION_INDEX with
    /// `auto/N` or JOB_COMPLETIONS (a Kubernetes Indexed Job), or
    /// SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (a Slurm job array).
    #[arg(long, value_name = "K/N|auto[/N]")]
    pub shard: Option<String>,
    /// Output format (not with `--shard`, which always writes a shard file).
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// Write the output to this file instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Also draw the results into this directory (created if missing), one
    /// SVG (and its data as CSV) each: every numeric column as lines over
    /// the first varied param, bands for replication intervals, and a heat
    /// map for two params. Markdown output shows them.
    #[arg(long, value_name = "DIR")]
    pub charts: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() {
                util::EXIT_USAGE
            } else {
                EXIT_OK
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let color = match cli.color {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            std::io::IsTerminal::is_terminal(&std::io::stderr())
                && std::env::var_os("NO_COLOR").is_none()
        }
    };
    interrupt::install();
    let code = match cli.command {
        Command::Run {
            file,
            variants,
            sets,
            seed,
            replications,
            work_budget,
            memory_budget,
            jobs,
            format,
            out,
            series,
            chart,
            chart_node,
            charts,
            html,
            events,
            events_limit,
            attempt_log,
        } => cmd::run::run(
            &file,
            &variants,
            &sets,
            &cmd::run::Seeding {
                seed,
                replications,
                work_budget,
                memory_budget,
                jobs,
            },
            format,
            out.as_deref(),
            &cmd::run::Extras {
                series,
                chart,
                chart_node,
                charts,
                html,
                events,
                events_limit,
                attempt_log,
            },
            color,
        ),
        Command::Check {
            files,
            model,
            estimate,
            memory_budget,
            sets,
            replications,
        } => cmd::run::check(
            &files,
            &cmd::run::Checking {
                model,
                estimate,
                memory_mib: memory_budget,
                sets: &sets,
                replications,
            },
            color,
        ),
        Command::Sweep(args) => cmd::sweep::sweep(&args, color),
        Command::Merge {
            files,
            format,
            out,
            charts,
        } => cmd::sweep::merge(&files, format, out.as_deref(), charts.as_deref()),
        Command::Test {
            path,
            accept,
            work_budget,
        } => cmd::test::test(&path, accept, work_budget, color),
        Command::Diff {
            old,
            new,
            git,
            format,
            fail_on,
        } => match (git, old, new) {
            (Some(rev), path, _) => cmd::diff_git::diff_git(
                &rev,
                path.as_deref().unwrap_or(Path::new("scenarios")),
                format,
                fail_on,
            ),
            (None, Some(old), Some(new)) => cmd::diff::diff(&old, &new, format, fail_on, color),
            _ => util::usage("`squall diff` takes OLD and NEW, or `--git REF [PATH]`"),
        },
        Command::Fmt { files, check } => cmd::fmt::fmt(&files, check, color),
        Command::New { name } => cmd::new::new(&name),
        Command::Completions { shell } => {
            let mut command = Cli::command();
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut command, "squall", &mut script);
            let _ = util::print_out(&String::from_utf8_lossy(&script));
            EXIT_OK
        }
    };
    ExitCode::from(code)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_is_consistent() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
