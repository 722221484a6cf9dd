//! Why a study did not run: errors as data, rendered by the CLI.

use squall_engine::SimError;
use squall_lang::Diagnostics;

use crate::refusal::Refusal;

/// A problem running a study.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    /// A run's values do not resolve (e.g. a `--set` value that does not fit).
    #[error("the scenario is invalid")]
    Invalid(Diagnostics),
    /// The engine refused a model.
    #[error("simulation failed: {0}")]
    Sim(#[from] SimError),
    /// The engine refused a run's model before simulating it (a limit),
    /// located at the declaration that causes it.
    #[error("{}: {}", .0.place(), .0.error)]
    Refused(Box<Refusal>),
    /// The thread pool for `--jobs` could not start.
    #[error("cannot start the worker threads: {0}")]
    Pool(String),
}
