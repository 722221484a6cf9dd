//! What every command shares: exit codes, loading files, printing
//! diagnostics, reading `--set` and `--variant`.

use std::io::Write;
use std::path::Path;

use squall_lang::{Diagnostics, Scenario, Setting};

/// Exit code: success.
pub const EXIT_OK: u8 = 0;
/// Exit code: an expectation or a snapshot failed, reports differ, a file
/// needs formatting.
pub const EXIT_FAILED: u8 = 1;
/// Exit code: an invalid scenario.
pub const EXIT_INVALID: u8 = 2;
/// Exit code: a usage error (bad flag, missing file).
pub const EXIT_USAGE: u8 = 3;

/// Prints `error: msg` and returns the usage exit code.
pub fn usage(msg: &str) -> u8 {
    eprintln!("error: {msg}");
    EXIT_USAGE
}

/// The most diagnostics of one file printed in full; past it, a count.
/// Rendering one reads the file up to it, so printing them all would cost
/// the problems times the file (a generated file with thousands of mistakes
/// printed hundreds of megabytes).
pub const SHOWN_DIAGNOSTICS: usize = 20;

/// Renders diagnostics to standard error with miette.
pub fn print_diagnostics(d: &Diagnostics, color: bool) {
    let _ = std::io::stderr().write_all(render_diagnostics(d, color).as_bytes());
}

/// Diagnostics as miette renders them (the first [`SHOWN_DIAGNOSTICS`]),
/// with a count at the end.
pub fn render_diagnostics(d: &Diagnostics, color: bool) -> String {
    let handler = if color {
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode())
    } else {
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
    };
    let mut out = String::new();
    for located in d.located_upto(SHOWN_DIAGNOSTICS) {
        let _ = handler.render_report(&mut out, &located);
        out.push('\n');
    }
    let n = d.list.len();
    if n > SHOWN_DIAGNOSTICS {
        out.push_str(&format!(
            "... and {} more (the first {SHOWN_DIAGNOSTICS} are shown; fix them and check again)\n",
            n - SHOWN_DIAGNOSTICS
        ));
    }
    out.push_str(&format!(
        "{}: {n} problem{}\n",
        d.name,
        if n == 1 { "" } else { "s" }
    ));
    out
}

/// Reads a file, or says why not (as a usage error).
pub fn read(path: &Path) -> Result<String, u8> {
    let bytes = std::fs::read(path)
        .map_err(|e| usage(&format!("cannot read `{}`: {e}", path.display())))?;
    text_of(bytes).map_err(|m| usage(&format!("cannot read `{}`: {m}", path.display())))
}

/// A file's bytes as text: UTF-8, a leading byte-order mark dropped (some
/// editors write one; it is not part of the scenario). Not UTF-8: where the
/// first bad byte is.
pub fn text_of(bytes: Vec<u8>) -> Result<String, String> {
    match String::from_utf8(bytes) {
        Ok(mut text) => {
            if text.starts_with('\u{feff}') {
                text.drain(..'\u{feff}'.len_utf8());
            }
            Ok(text)
        }
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let good = &e.as_bytes()[..at];
            let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
            let line_start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            // Valid up to `at`, so the line's start is valid too.
            let col = String::from_utf8_lossy(&good[line_start..]).chars().count() + 1;
            Err(format!(
                "it is not UTF-8 text: byte {at} (line {line}, column {col}) is 0x{:02x}; save the file as UTF-8",
                e.as_bytes()[at]
            ))
        }
    }
}

/// Reads and validates a scenario file; `name` is how messages and the
/// report name it.
pub fn load_named(path: &Path, name: &str, color: bool) -> Result<Scenario, u8> {
    let text = read(path)?;
    squall_lang::load(name, &text).map_err(|d| {
        print_diagnostics(&d, color);
        EXIT_INVALID
    })
}

/// Reads and validates a scenario file.
pub fn load(path: &Path, color: bool) -> Result<Scenario, u8> {
    load_named(path, &path.display().to_string(), color)
}

pub use squall_report::args::unknown_hint;

/// `--set NAME=VALUE` settings, checked against the scenario's params
/// ([`squall_report::args::parse_sets`]).
pub fn parse_sets(scenario: &Scenario, sets: &[String]) -> Result<Vec<Setting>, u8> {
    squall_report::args::parse_sets(scenario, sets).map_err(|m| usage(&m))
}

/// A variant by name or label ([`squall_report::args::find_variant`]).
pub fn find_variant(scenario: &Scenario, v: &str) -> Result<usize, u8> {
    squall_report::args::find_variant(scenario, v).map_err(|m| usage(&m))
}

/// Writes `text` to `out`, or to standard output.
pub fn write_output(out: Option<&Path>, text: &str) -> Result<(), u8> {
    match out {
        Some(path) => write_file(path, text.as_bytes())
            .map_err(|e| usage(&format!("cannot write `{}`: {e}", path.display()))),
        // A closed pipe ends the output; what was asked for is done.
        None => {
            let _ = print_out(text);
            Ok(())
        }
    }
}

/// Refuses an output path that names one of the inputs: `--out` onto the
/// scenario would replace it with its own report.
pub fn refuse_overwriting(out: &Path, inputs: &[&Path]) -> Result<(), u8> {
    // An output that does not exist yet cannot be an input.
    let Ok(target) = std::fs::canonicalize(out) else {
        return Ok(());
    };
    for input in inputs {
        if std::fs::canonicalize(input).is_ok_and(|i| i == target) {
            return Err(usage(&format!(
                "`{}` is an input of this command; writing to it would replace it (pick another file)",
                out.display()
            )));
        }
    }
    Ok(())
}

/// Writes a whole file or nothing: the bytes go to a temporary file in the
/// same folder, which then replaces `path` in one rename. An interrupted
/// write (Ctrl-C, a full disk) leaves the old file as it was, never a
/// truncated one.
pub fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    // Through a link, as a plain write would: the link's target is replaced,
    // not the link.
    let resolved;
    let path = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            resolved = std::fs::canonicalize(path)?;
            resolved.as_path()
        }
        _ => path,
    };
    squall_report::replace::replace_file(
        path,
        |tmp| {
            let mut f = std::fs::File::create(tmp)?;
            f.write_all(bytes)?;
            f.sync_all()?;
            // Keep the permissions of the file being replaced (a script
            // stays executable).
            match std::fs::metadata(path) {
                Ok(m) => std::fs::set_permissions(tmp, m.permissions()),
                Err(_) => Ok(()),
            }
        },
        |e| e,
    )
}

/// Prints to standard output; false when nobody reads it any more. A reader
/// that stops early (`| head`) closes the pipe; like other Unix tools the
/// command then stops printing quietly (`print!` would panic).
#[must_use = "a closed output ends the command"]
pub fn print_out(text: &str) -> bool {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .is_ok()
}

/// A unified diff of two texts, coloured when asked.
pub fn unified_diff(old: &str, new: &str, old_name: &str, new_name: &str, color: bool) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(old_name, new_name)
        .to_string();
    if !color {
        return text;
    }
    text.lines()
        .map(|l| {
            if l.starts_with("+++") || l.starts_with("---") {
                format!("\x1b[1m{l}\x1b[0m\n")
            } else if l.starts_with('+') {
                format!("\x1b[32m{l}\x1b[0m\n")
            } else if l.starts_with('-') {
                format!("\x1b[31m{l}\x1b[0m\n")
            } else if l.starts_with("@@") {
                format!("\x1b[36m{l}\x1b[0m\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}
