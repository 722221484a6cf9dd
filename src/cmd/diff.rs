//! `squall diff A B`: two reports compared table by table.

use std::path::Path;

use squall_lang::not_a::NotA;
use squall_report::compare::{compare, DiffStyle};
use squall_report::{Report, Study, StudyOptions};

use crate::util::{self, EXIT_FAILED, EXIT_OK};
use crate::{DiffFormat, FailOn};

/// A report from a `.json` file, or by running a scenario.
fn side(path: &Path, color: bool) -> Result<Report, u8> {
    if path.extension().is_some_and(|e| e == "json") {
        let text = util::read(path)?;
        return Report::from_json(&text).map_err(|e| {
            let file = path.display().to_string();
            let why = e.to_string();
            util::usage(
                &NotA::new(&file, "a squall JSON report")
                    .because(&why)
                    .help("write one with `squall run --format json`")
                    .plain(),
            )
        });
    }
    let scenario = util::load(path, color)?;
    let study = Study::run(&scenario, StudyOptions::default())
        .map_err(|e| crate::cmd::run::study_error(&e, color))?;
    Ok(study.report())
}

/// Prints the comparison; exits 1 on a change that `fail_on` counts, 0
/// otherwise.
pub fn diff(old: &Path, new: &Path, format: DiffFormat, fail_on: FailOn, color: bool) -> u8 {
    let (a, b) = match (side(old, color), side(new, color)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    let style = match format {
        DiffFormat::Text => DiffStyle::Text {
            color: color && std::io::IsTerminal::is_terminal(&std::io::stdout()),
        },
        DiffFormat::Markdown => DiffStyle::Markdown { level: 2 },
    };
    let c = compare(&a, &b, style);
    // A closed pipe (`| head`) stops the printing; the answer stands.
    let _ = util::print_out(&c.text);
    let fails = match fail_on {
        FailOn::Any => c.changed,
        FailOn::BeyondNoise => c.beyond_noise || !c.flipped.is_empty(),
        FailOn::Flipped => !c.flipped.is_empty(),
    };
    if fails {
        EXIT_FAILED
    } else {
        EXIT_OK
    }
}
