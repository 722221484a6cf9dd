//! Ctrl-C. One handler for every command: a sweep's first Ctrl-C stops it
//! between points (the finished ones are written); otherwise, and on a
//! second Ctrl-C, the command removes the temporary files of the writes in
//! progress ([`squall_report::replace::remove_temporaries`], SQLite's
//! journals included) and exits with [`EXIT_INTERRUPTED`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use squall_report::replace::{self, Stage};

/// The exit code of a command stopped by Ctrl-C (128 + SIGINT, as shells
/// report it).
pub const EXIT_INTERRUPTED: u8 = 130;

/// The environment variable tests set to stop the command, as a Ctrl-C
/// arriving then would, at a stage of its writes: `before-rename` (a
/// temporary file is full) or `in-transaction` (an SQLite database has its
/// first row). The handler's own routine runs; no signal is sent, so the
/// test has no race.
pub const STOP_AT: &str = "SQUALL_STOP_AT_WRITE";

/// Set while a sweep runs: the first Ctrl-C only asks it to stop.
static GENTLE: AtomicBool = AtomicBool::new(false);

fn flag() -> &'static Arc<AtomicBool> {
    static STOP: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    STOP.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// Installs the handler (once, at start), and the test stop of [`STOP_AT`].
pub fn install() {
    let _ = ctrlc::set_handler(on_interrupt);
    if std::env::var_os(STOP_AT).is_some() {
        replace::set_stop_hook(stop_for_test);
    }
}

/// From now on the first Ctrl-C sets the returned flag instead of quitting
/// (a sweep checks it between points); a second one quits.
pub fn stop_between_runs() -> Arc<AtomicBool> {
    GENTLE.store(true, Ordering::SeqCst);
    Arc::clone(flag())
}

/// What Ctrl-C does.
fn on_interrupt() {
    if GENTLE.load(Ordering::SeqCst) && !flag().swap(true, Ordering::SeqCst) {
        return;
    }
    quit();
}

/// Removes the temporary files of unfinished writes and exits.
fn quit() -> ! {
    let removed = replace::remove_temporaries();
    eprintln!(
        "interrupted{}",
        match removed {
            0 => String::new(),
            1 => "; removed 1 unfinished file".to_string(),
            n => format!("; removed {n} unfinished files"),
        }
    );
    std::process::exit(i32::from(EXIT_INTERRUPTED));
}

/// The test stop: quits as Ctrl-C would when the write reaches the stage
/// [`STOP_AT`] names.
fn stop_for_test(stage: Stage) {
    let wanted = std::env::var(STOP_AT).unwrap_or_default();
    let name = match stage {
        Stage::BeforeRename => "before-rename",
        Stage::InTransaction => "in-transaction",
    };
    if wanted == name {
        quit();
    }
}
