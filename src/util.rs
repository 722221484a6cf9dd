//! What every command shares: exit codes, loading files, printing
//! diagnostics, reading `--set` and `--variant`.

use std::io::Write;
use std::path::Path;

use squall_lang::{Diagnostics, Scenario, Setting};
use squall_report::args::{ArgError, Spelling};

/// Exit code: success.
pub const EXIT_OK: u8 = 0;
/// Exit code: an expectation or a snapshot failed, reports differ, a file
/// needs formatting.
pub const EXIT_FAILED: u8 = 1;
/// Exit code: an invalid scenario.
pub const EXIT_INVALID: u8 = 2;
/// Exit code: a usage error (bad flag, missing file).
pub const EXIT_USAGE: u8 = 3;

/// The most threads `--jobs` may ask for: far more than any machine's
/// cores, far fewer than would exhaust the process's threads (`--jobs
/// 100000` started that many).
pub const MOST_JOBS: usize = 1024;

/// Checks `--jobs N`: at least one thread, at most [`MOST_JOBS`].
pub fn check_jobs(jobs: Option<usize>) -> Result<(), u8> {
    match jobs {
        Some(0) => Err(usage("`--jobs 0`: give at least one thread")),
        Some(n) if n > MOST_JOBS => Err(usage(&format!(
            "`--jobs {n}`: at most {MOST_JOBS} threads (one per core is the default)"
        ))),
        _ => Ok(()),
    }
}

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

/// How the command line spells the inputs the report crate reads: by their
/// flags. The report crate's refusals name no flag; the CLI words them with
/// these ([`squall_report::args::ArgError::words`]).
pub const FLAGS: Spelling = Spelling {
    set: "--set",
    vary: "--vary",
    shard: "--shard",
    replications: "--replications",
};

/// Prints a refusal of a flag's value, worded with [`FLAGS`], and returns
/// the usage exit code.
pub fn arg_error(e: &ArgError) -> u8 {
    usage(&e.words(&FLAGS))
}

/// `--set NAME=VALUE` settings, checked against the scenario's params
/// ([`squall_report::args::parse_sets`]).
pub fn parse_sets(scenario: &Scenario, sets: &[String]) -> Result<Vec<Setting>, u8> {
    squall_report::args::parse_sets(scenario, sets, &FLAGS).map_err(|e| arg_error(&e))
}

/// `--replications N`, when given, in place of the report's count
/// ([`squall_report::args::set_replications`]).
pub fn set_replications(scenario: &mut Scenario, n: Option<u64>) -> Result<(), u8> {
    match n {
        Some(n) => squall_report::args::set_replications(scenario, n).map_err(|e| arg_error(&e)),
        None => Ok(()),
    }
}

/// A variant by name or label ([`squall_report::args::find_variant`]).
pub fn find_variant(scenario: &Scenario, v: &str) -> Result<usize, u8> {
    squall_report::args::find_variant(scenario, v).map_err(|e| arg_error(&e))
}

/// Writes `text` to `out`, or to standard output (no `out`, or `-`).
pub fn write_output(out: Option<&Path>, text: &str) -> Result<(), u8> {
    match out.filter(|p| p.as_os_str() != "-") {
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

/// Where an output goes, to tell two outputs apart: standard output, or a
/// file by its absolute path (links followed, the folder made canonical
/// when the file does not exist yet).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Destination {
    Stdout,
    File(std::path::PathBuf),
    /// A character device other outputs may share (`/dev/null`).
    Sink,
}

fn destination(path: &Path) -> std::io::Result<Destination> {
    use squall_report::replace::Target;
    Ok(match squall_report::replace::target_of(path)? {
        Target::Stdout => Destination::Stdout,
        Target::Through(p) => {
            let real = std::fs::canonicalize(&p).unwrap_or(p);
            #[cfg(unix)]
            {
                use std::os::unix::fs::FileTypeExt as _;
                if std::fs::metadata(&real).is_ok_and(|m| m.file_type().is_char_device())
                    && real != Path::new("/dev/tty")
                    && !real.starts_with("/dev/pts")
                {
                    return Ok(Destination::Sink);
                }
            }
            Destination::File(real)
        }
        Target::Replace(p) => {
            let dir = match p.parent() {
                Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                _ => std::path::PathBuf::from("."),
            };
            let dir = std::fs::canonicalize(&dir).map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    format!("its folder `{}` cannot be used: {e}", dir.display()),
                )
            })?;
            Destination::File(dir.join(p.file_name().unwrap_or_default()))
        }
    })
}

/// Checks every output of a command before it runs anything: two outputs
/// may not name the same file (or both go to standard output), and each
/// must be writable, tried by making and removing the temporary file its
/// write would use. A device or FIFO is written through and not tried.
/// `report` is `--out` (`None`: standard output); `extras` the other
/// (flag, path) pairs given.
pub fn check_outputs(report: Option<&Path>, extras: &[(&str, &Path)]) -> Result<(), u8> {
    check_destinations(
        std::iter::once(("--out", report)).chain(extras.iter().map(|&(f, p)| (f, Some(p)))),
    )
}

/// [`check_outputs`] for a report written as one file per table into the
/// folder `dir` (`--format csv --out DIR/`): the folder is made now and must
/// take new files; the other outputs are checked as usual.
pub fn check_outputs_to_folder(dir: &Path, extras: &[(&str, &Path)]) -> Result<(), u8> {
    std::fs::create_dir_all(dir)
        .and_then(|()| try_writing(&dir.join(".squall-check")))
        .map_err(|e| {
            usage(&format!(
                "`--out {}`: cannot write there: {e} (checked before running anything)",
                dir.display()
            ))
        })?;
    check_destinations(extras.iter().map(|&(f, p)| (f, Some(p))))
}

fn check_destinations<'a>(
    outputs: impl Iterator<Item = (&'a str, Option<&'a Path>)>,
) -> Result<(), u8> {
    let mut seen: Vec<(&str, String, Destination)> = Vec::new();
    for (flag, path) in outputs {
        let (shown, dest) = match path {
            None => ("standard output".to_string(), Destination::Stdout),
            Some(p) => {
                let dest = destination(p).map_err(|e| {
                    usage(&format!(
                        "`{flag} {}`: cannot write there: {e}",
                        p.display()
                    ))
                })?;
                (format!("`{flag} {}`", p.display()), dest)
            }
        };
        if dest != Destination::Sink {
            if let Some((other, other_shown, _)) = seen.iter().find(|(_, _, d)| *d == dest) {
                let what = if dest == Destination::Stdout {
                    "both write to standard output".to_string()
                } else {
                    "name the same file".to_string()
                };
                return Err(usage(&format!(
                    "{other_shown} and {shown} {what}, so one would overwrite the other; give `{other}` and `{flag}` different files"
                )));
            }
        }
        if let (Some(p), Destination::File(real)) = (path, &dest) {
            if squall_report::replace::target_of(p)
                .is_ok_and(|t| matches!(t, squall_report::replace::Target::Replace(_)))
            {
                try_writing(real).map_err(|e| {
                    usage(&format!(
                        "`{flag} {}`: cannot write there: {e} (checked before running anything)",
                        p.display()
                    ))
                })?;
            }
        }
        seen.push((flag, shown, dest));
    }
    Ok(())
}

/// Makes and removes the temporary file a write to `path` would use: the
/// folder takes new files. An existing read-only `path` is refused too (the
/// write would replace it, and the user marked it read-only).
fn try_writing(path: &Path) -> std::io::Result<()> {
    if std::fs::metadata(path).is_ok_and(|m| m.permissions().readonly()) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            "the file is read-only",
        ));
    }
    let tmp = squall_report::replace::temporary_beside(path);
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)?;
    std::fs::remove_file(&tmp)
}

/// Writes a whole file or nothing ([`squall_report::replace`]): a regular
/// file is replaced in one rename, so an interrupted write (Ctrl-C, a full
/// disk) leaves the old file as it was, never a truncated one; a device, a
/// FIFO or `-` (standard output) is written through; a link's target is
/// written.
pub fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    squall_report::replace::replace_file(
        path,
        |tmp| {
            let mut f = std::fs::File::create(tmp)?;
            f.write_all(bytes)?;
            f.sync_all()
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
