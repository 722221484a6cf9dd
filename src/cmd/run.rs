//! `squall run` and `squall check`.

use std::path::{Path, PathBuf};

use squall_report::{Study, StudyError, StudyOptions};

use crate::util::{self, EXIT_INVALID, EXIT_OK};
use crate::FormatArg;

/// `squall run FILE`: runs the scenario and prints its report.
pub fn run(
    file: &Path,
    variants: &[String],
    sets: &[String],
    format: FormatArg,
    out: Option<&Path>,
    color: bool,
) -> u8 {
    let scenario = match util::load(file, color) {
        Ok(s) => s,
        Err(code) => return code,
    };
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
    let study = match Study::run(
        &scenario,
        StudyOptions {
            cli,
            variants: selected,
        },
    ) {
        Ok(s) => s,
        Err(e) => return study_error(&e, color),
    };
    let text = study.report().render(format.to_report());
    match util::write_output(out, &text) {
        Ok(()) => EXIT_OK,
        Err(code) => code,
    }
}

/// Prints a study error and returns its exit code.
pub fn study_error(e: &StudyError, color: bool) -> u8 {
    match e {
        StudyError::Invalid(d) => util::print_diagnostics(d, color),
        other => eprintln!("error: {other}"),
    }
    EXIT_INVALID
}

/// `squall check FILE...`: validates scenario files.
pub fn check(files: &[PathBuf], model: bool, color: bool) -> u8 {
    let mut worst = EXIT_OK;
    for f in files {
        match util::load(f, color) {
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
