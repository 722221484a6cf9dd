//! Why a study did not run: errors as data, rendered by the CLI. The
//! messages name the file's settings but no command-line flag: the CLI
//! adds the flag that changes a limit as a hint of its own.

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

/// A budget a study can be over. The messages say which and by how much;
/// the CLI names the flag that sets it ([`StudyError::budget`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// The invocation's memory, over all its runs ([`StudyError::Memory`]).
    Invocation,
    /// One run's own estimated memory ([`SimError::MemoryOverBudget`]).
    RunMemory,
    /// One run's estimated work ([`SimError::EstimateOverBudget`]).
    Work,
}

impl StudyError {
    /// The budget this error says the study is over, if any.
    pub fn budget(&self) -> Option<Budget> {
        let sim = |e: &SimError| match e {
            SimError::MemoryOverBudget { .. } | SimError::SendersOverBudget { .. } => {
                Some(Budget::RunMemory)
            }
            SimError::EstimateOverBudget { .. } => Some(Budget::Work),
            _ => None,
        };
        match self {
            StudyError::Memory { .. } => Some(Budget::Invocation),
            StudyError::Refused(r) => sim(&r.error),
            StudyError::Sim(e) => sim(e),
            StudyError::Invalid(_) | StudyError::Pool(_) => None,
        }
    }
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
        "this invocation would hold about {} MiB for {} run{} ({kept}; the largest run's estimated peak is {} MiB), more than the memory budget of {budget_mib} MiB: run fewer variants or points, a shorter `run` or fewer at once, or raise the budget",
        mib(e.total),
        e.runs,
        if e.runs == 1 { "" } else { "s" },
        mib(e.per_run),
    )
}

/// What a plan would hold in memory at most, estimated before it runs:
/// the per-tick counters of the runs in progress (for a run that takes
/// time, the engine's estimate of its peak), and what every finished run
/// keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryEstimate {
    /// Runs (every replication counted).
    pub runs: usize,
    /// The largest run's per-tick counters (for a run that takes time, its
    /// estimated peak) \[bytes\].
    pub per_run: u64,
    /// The whole invocation at its peak \[bytes\].
    pub total: u64,
    /// Whether finished runs are reduced to their window totals.
    pub reduced: bool,
}
