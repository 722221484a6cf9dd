//! A progress bar for a command that may run long (`squall run`): drawn on
//! stderr only when stderr is a terminal and only once the work has taken
//! more than [`SHOW_AFTER`], so a quick run prints nothing but its report
//! and a piped or captured run (CI, tests) never sees a bar.
//!
//! The bar reads "runs finished of runs in all" as the plan reports them,
//! with the time so far and, once a run has finished, indicatif's estimate
//! of the rest; a spinner
//! keeps moving while a long single run has not finished yet.

use std::io::IsTerminal;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long the work runs before the bar appears.
pub const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Runs `work`, handing it the progress callback the plan calls after each
/// run with (finished, total); draws the bar as the module doc says.
pub fn with_late_bar<T>(work: impl FnOnce(&(dyn Fn(usize, usize) + Sync)) -> T) -> T {
    if !std::io::stderr().is_terminal() {
        return work(&|_, _| {});
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    // No estimate before a run has finished: indicatif would say "0s".
    let style = |template| ProgressStyle::with_template(template).ok();
    if let Some(s) = style("{spinner} {bar:40} {pos}/{len} runs, {elapsed}") {
        bar.set_style(s);
    }
    let estimating = style("{spinner} {bar:40} {pos}/{len} runs, {elapsed} (eta {eta})");
    let (finished, wait) = mpsc::channel::<()>();
    let out = std::thread::scope(|scope| {
        let shown = &bar;
        scope.spawn(move || {
            // Nothing is drawn when the work ends within SHOW_AFTER.
            if wait.recv_timeout(SHOW_AFTER) == Err(RecvTimeoutError::Timeout) {
                shown.set_draw_target(ProgressDrawTarget::stderr());
                shown.enable_steady_tick(Duration::from_millis(120));
                // Until the work ends (the sender is dropped).
                let _ = wait.recv();
            }
        });
        let progress = |done: usize, total: usize| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            if done == 1 {
                if let Some(s) = &estimating {
                    bar.set_style(s.clone());
                }
            }
        };
        let out = work(&progress);
        drop(finished);
        out
    });
    bar.finish_and_clear();
    out
}
