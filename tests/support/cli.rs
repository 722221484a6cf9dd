//! The built `squall` binary, as a person runs it: colourless, from a
//! chosen folder.

use std::path::Path;
use std::process::{Command, Output};

/// `squall` with `--color never` (and `NO_COLOR`), started in `dir`; add
/// the arguments.
pub fn squall_in(dir: &Path) -> Command {
    squall_at(Path::new(env!("CARGO_BIN_EXE_squall")), dir)
}

/// A given `squall` binary (say the release build) with `--color never`
/// (and `NO_COLOR`), started in `dir`; add the arguments.
pub fn squall_at(bin: &Path, dir: &Path) -> Command {
    let mut c = Command::new(bin);
    c.current_dir(dir)
        .env("NO_COLOR", "1")
        .arg("--color")
        .arg("never");
    c
}

/// Runs `squall ARGS` in `dir`: exit code (-1 for a signal), stdout, stderr.
pub fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    run_cmd(squall_in(dir), args)
}

/// Runs `command ARGS` (a [`squall_in`] or [`squall_at`]): exit code (-1 for
/// a signal), stdout, stderr.
pub fn run_cmd(mut command: Command, args: &[&str]) -> (i32, String, String) {
    let out = command
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot start squall: {e}"));
    split(&out)
}

/// An output's exit code (-1 for a signal), stdout and stderr.
pub fn split(out: &Output) -> (i32, String, String) {
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
