//! The `squall` command line.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use squall_lang::{Diagnostics, Scenario, Setting};
use squall_report::{Format, Study, StudyError, StudyOptions};

/// Exit code: success.
const EXIT_OK: u8 = 0;
/// Exit code: an invalid scenario.
const EXIT_INVALID: u8 = 2;
/// Exit code: a usage error (bad flag, missing file).
const EXIT_USAGE: u8 = 3;

#[derive(Parser)]
#[command(
    name = "squall",
    version,
    about = "A discrete-event simulator for resilience patterns in service call chains",
    long_about = "squall runs scenario files that describe a chain of services (who calls whom, \
capacities, retries, faults) and prints a report that shows whether a fault turns into a retry \
storm, how long it outlives the fault, and what another policy would change.",
    after_help = "Examples:\n  squall run scenarios/retry-storm.squall\n  squall run scenarios/retry-storm.squall --set attempts=2 --format markdown\n  squall check scenarios/*.squall\n\nExit codes: 0 ok, 2 invalid scenario, 3 usage error."
)]
struct Cli {
    /// When to color diagnostics.
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

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    Text,
    Markdown,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario and print its report.
    #[command(
        after_help = "Examples:\n  squall run scenarios/retry-storm.squall\n  squall run scenarios/retry-storm.squall --variant storm --variant no_retries\n  squall run scenarios/retry-storm.squall --set attempts=2 --set spacing='8 rounds'\n  squall run scenarios/retry-storm.squall --format json --out report.json"
    )]
    Run {
        /// The scenario file.
        file: PathBuf,
        /// Only these variants (by name); repeat for several. Default: all.
        #[arg(long = "variant", value_name = "NAME")]
        variants: Vec<String>,
        /// Override a param, e.g. `--set attempts=2` or `--set demand=6/round`.
        #[arg(long = "set", value_name = "NAME=VALUE")]
        sets: Vec<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = FormatArg::Text)]
        format: FormatArg,
        /// Write the report to this file instead of standard output.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Check scenario files and print their diagnostics.
    #[command(
        after_help = "Examples:\n  squall check scenarios/retry-storm.squall\n  squall check scenarios/*.squall\n\nExit codes: 0 when every file is valid, 2 when one is not, 3 when a file cannot be read."
    )]
    Check {
        /// The scenario files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Also print each file's resolved model (every run) as RON.
        #[arg(long)]
        model: bool,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
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
    let code = match cli.command {
        Command::Run {
            file,
            variants,
            sets,
            format,
            out,
        } => run(&file, &variants, &sets, format, out, color),
        Command::Check { files, model } => check(&files, model, color),
    };
    ExitCode::from(code)
}

fn usage(msg: &str) -> u8 {
    eprintln!("error: {msg}");
    EXIT_USAGE
}

fn print_diagnostics(d: &Diagnostics, color: bool) {
    let handler = if color {
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode())
    } else {
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
    };
    let mut out = String::new();
    for located in d.located() {
        let _ = handler.render_report(&mut out, &located);
        out.push('\n');
    }
    let n = d.list.len();
    out.push_str(&format!(
        "{}: {n} problem{}\n",
        d.name,
        if n == 1 { "" } else { "s" }
    ));
    let _ = std::io::stderr().write_all(out.as_bytes());
}

fn load(path: &PathBuf, color: bool) -> Result<Scenario, u8> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return Err(usage(&format!("cannot read `{}`: {e}", path.display()))),
    };
    squall_lang::load(&path.display().to_string(), &text).map_err(|d| {
        print_diagnostics(&d, color);
        EXIT_INVALID
    })
}

fn parse_sets(scenario: &Scenario, sets: &[String]) -> Result<Vec<Setting>, u8> {
    let mut out = Vec::new();
    for s in sets {
        let Some((name, value)) = s.split_once('=') else {
            return Err(usage(&format!(
                "`--set {s}` needs the form NAME=VALUE, e.g. `--set attempts=2`"
            )));
        };
        let name = name.trim();
        if !scenario.params.contains_key(name) {
            let hint = squall_lang::diagnostic::did_you_mean(
                name,
                scenario.params.keys().map(String::as_str),
            )
            .map(|h| format!("; {h}"))
            .unwrap_or_default();
            let known: Vec<&str> = scenario.params.keys().map(String::as_str).collect();
            return Err(usage(&format!(
                "`--set {s}`: the scenario has no param `{name}`{hint} (params: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )));
        }
        let value = squall_lang::parse::parse_value(value.trim())
            .map_err(|d| usage(&format!("`--set {s}`: {}", d.message)))?;
        out.push(Setting {
            name: name.to_string(),
            value,
            origin: Some(format!("--set {s}")),
        });
    }
    Ok(out)
}

fn run(
    file: &PathBuf,
    variants: &[String],
    sets: &[String],
    format: FormatArg,
    out: Option<PathBuf>,
    color: bool,
) -> u8 {
    let scenario = match load(file, color) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let cli = match parse_sets(&scenario, sets) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let selected = if variants.is_empty() {
        None
    } else {
        let mut ids = Vec::new();
        for v in variants {
            match scenario
                .variants
                .iter()
                .position(|x| x.name == *v || x.label == *v)
            {
                Some(i) => ids.push(i),
                None => {
                    let names: Vec<&str> =
                        scenario.variants.iter().map(|x| x.name.as_str()).collect();
                    let hint = squall_lang::diagnostic::did_you_mean(v, names.iter().copied())
                        .map(|h| format!("; {h}"))
                        .unwrap_or_default();
                    return usage(&format!(
                        "no variant `{v}`{hint} (variants: {})",
                        names.join(", ")
                    ));
                }
            }
        }
        Some(ids)
    };
    let study = match Study::run(
        &scenario,
        StudyOptions {
            cli,
            variants: selected,
        },
    ) {
        Ok(s) => s,
        Err(StudyError::Invalid(d)) => {
            print_diagnostics(&d, color);
            return EXIT_INVALID;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_INVALID;
        }
    };
    let format = match format {
        FormatArg::Text => Format::Text,
        FormatArg::Markdown => Format::Markdown,
        FormatArg::Json => Format::Json,
    };
    let text = study.report().render(format);
    match out {
        Some(path) => {
            if let Err(e) = std::fs::write(&path, text) {
                return usage(&format!("cannot write `{}`: {e}", path.display()));
            }
        }
        None => {
            let _ = std::io::stdout().write_all(text.as_bytes());
        }
    }
    EXIT_OK
}

fn check(files: &[PathBuf], model: bool, color: bool) -> u8 {
    let mut worst = EXIT_OK;
    for f in files {
        match load(f, color) {
            Ok(s) => {
                println!(
                    "{}: ok ({} nodes, {} variants, {} sweeps)",
                    f.display(),
                    s.nodes.len(),
                    s.variants.len(),
                    s.sweeps.len()
                );
                if model {
                    for key in s.all_runs() {
                        if let Ok(m) = s.model_for(key, &[]) {
                            let pretty = ron::ser::PrettyConfig::new();
                            match ron::ser::to_string_pretty(&m, pretty) {
                                Ok(text) => println!("// {key:?}\n{text}"),
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
