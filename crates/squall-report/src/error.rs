//! Why a study did not run: errors as data, rendered by the CLI.

use squall_engine::SimError;
use squall_lang::Diagnostics;

use crate::memory::MemoryEstimate;
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
    /// The invocation would hold more memory than its budget: refused
    /// before any run starts.
    #[error("{}", memory_text(.estimate, *.budget_mib))]
    Memory {
        /// What it would hold.
        estimate: MemoryEstimate,
        /// The budget \[MiB\].
        budget_mib: u64,
    },
    /// The thread pool for `--jobs` could not start.
    #[error("cannot start the worker threads: {0}")]
    Pool(String),
}

/// The memory refusal in words: how much, for how many runs, and what to do.
fn memory_text(e: &MemoryEstimate, budget_mib: u64) -> String {
    let mib = |b: u64| b.div_ceil(1 << 20);
    let kept = if e.reduced {
        "the runs in progress hold all their counters, finished runs only their window totals"
    } else {
        "every run keeps all its counters, for the series, charts or per-tick measures"
    };
    format!(
        "this invocation would hold about {} MiB for {} run{} ({kept}; the largest run's estimated peak is {} MiB), more than the memory budget of {budget_mib} MiB: run fewer variants or points (`--variant`, `--shard`), a shorter `run` or fewer `--jobs`, or raise `--memory-budget`",
        mib(e.total),
        e.runs,
        if e.runs == 1 { "" } else { "s" },
        mib(e.per_run),
    )
}
