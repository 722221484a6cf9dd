//! What a plan's runs hold in memory, estimated before they run: the
//! figure the invocation's memory budget is weighed against, and the data
//! of the refusal when it is past it ([`crate::StudyError::Memory`], whose
//! [`MemoryEstimate`] lives beside the error so that errors need no
//! estimating).

use squall_lang::Model;

pub use crate::error::MemoryEstimate;

/// The bytes of a model's per-tick series: 4 system counters, 2 per
/// source on a model with more than one, 7 per node and 6 more for a
/// composite response (one of them 8 bytes wide), one entry per tick.
pub(crate) fn series_bytes(m: &Model) -> u64 {
    let sources = if m.sources.len() > 1 {
        m.sources.len() as u64
    } else {
        0
    };
    let per_tick: u64 = 4 * 4
        + 2 * 4 * sources
        + m.nodes
            .iter()
            .map(|n| {
                if n.composite.is_some() {
                    7 * 4 + 5 * 4 + 8
                } else {
                    7 * 4
                }
            })
            .sum::<u64>();
    (m.ticks.saturating_add(1)).saturating_mul(per_tick)
}

/// The bytes one run holds while it runs, and once finished and reduced.
/// A run that takes time counts per bin, not per tick, and holds
/// histograms and work in flight: while it runs it holds the engine's own
/// estimate ([`squall_engine::simulation::estimate`], the peak `squall
/// check --estimate` prints), and reduced it still keeps its bins. A round
/// model holds its per-tick counters, and reduced its window totals.
fn run_bytes(m: &Model) -> (u64, u64) {
    if squall_engine::simulation::takes_time(m) {
        let e = squall_engine::simulation::estimate(m);
        (
            e.peak_bytes().saturating_add(held_bytes(m)),
            reduced_bytes(m).saturating_add(e.series_bytes),
        )
    } else {
        (
            series_bytes(m).saturating_add(held_bytes(m)),
            reduced_bytes(m),
        )
    }
}

/// The bytes a reduced run keeps: one set of totals per window, and what
/// every finished run keeps however short (its [`held_bytes`]).
fn reduced_bytes(m: &Model) -> u64 {
    let per_window = 64 + 128 * m.nodes.len() as u64;
    (m.windows.len() as u64 * per_window).saturating_add(held_bytes(m))
}

/// What a finished run holds besides its counters: the record itself (in
/// its map), the
/// model it ran (its nodes, sources, faults, windows and their names) and
/// the parts of its observations that do not shrink (one series record and
/// one unique count per window for each node, its name again). Nested
/// parts of a declaration (a retry policy's lists, a route's steps) are
/// counted at [`NESTED`] bytes per declaration. A study of a million runs
/// holds a million of these: gigabytes the budget must see.
pub(crate) fn held_bytes(m: &Model) -> u64 {
    use std::mem::size_of;
    let names = m.name.len()
        + m.nodes.iter().map(|n| 2 * n.name.len()).sum::<usize>()
        + m.sources.iter().map(|x| x.name.len()).sum::<usize>()
        + m.faults.iter().map(|x| x.name.len()).sum::<usize>()
        + m.windows.iter().map(|x| x.name.len()).sum::<usize>()
        + m.rngs.iter().map(|x| x.name.len()).sum::<usize>()
        + m.backoffs.iter().map(|x| x.0.len()).sum::<usize>();
    let nodes = m.nodes.len()
        * (size_of::<squall_lang::NodeSpec>()
            + size_of::<squall_engine::observe::NodeSeries>()
            + 8 * m.windows.len());
    let declarations = m.nodes.len()
        + m.sources.len()
        + m.faults.len()
        + m.windows.len()
        + m.rngs.len()
        + m.backoffs.len();
    // A finished run's record sits in a sorted map whose nodes fill about
    // half their room: twice the record.
    let fixed = 2 * size_of::<crate::run::Run>()
        + nodes
        + m.sources.len() * size_of::<squall_lang::SourceSpec>()
        + m.faults.len() * size_of::<squall_lang::FaultSpec>()
        + m.windows.len() * size_of::<squall_lang::WindowSpec>()
        + m.rngs.len() * size_of::<squall_lang::RngSpec>()
        + m.backoffs.len() * size_of::<(String, squall_lang::Backoff)>()
        + declarations * NESTED;
    (fixed + names) as u64
}

/// Bytes counted per declaration for what it holds on the heap beyond its
/// own record (lists, nested policies, allocator rounding).
const NESTED: usize = 256;

/// The bytes of one row of a call log.
const CALL_ROW: u64 = std::mem::size_of::<squall_engine::observe::CallRow>() as u64;

/// The bytes of the call log a run of `m` fills when it keeps at most
/// `limit` rows: one row per call the run answers without a failure
/// ([`squall_engine::simulation::Estimate::calls`]), capped by the limit.
/// The rows grow by doubling from 4 (the standard library's `Vec`), so
/// they take the next power of two of their count.
pub(crate) fn call_log_bytes(m: &Model, limit: usize) -> u64 {
    let calls = squall_engine::simulation::estimate(m).calls.ceil();
    let rows = (limit as f64).min(calls) as u64;
    if rows == 0 {
        return 0;
    }
    rows.max(4)
        .checked_next_power_of_two()
        .unwrap_or(u64::MAX)
        .saturating_mul(CALL_ROW)
}

/// The invocation's peak: without reduction every run's series at once;
/// with it, the series of the runs in progress (one per thread) and the
/// totals of every run; with a call log of at most `log` rows per run, its
/// rows ([`call_log_bytes`]) more for every run. Each model comes with the
/// bytes of its senders' run
/// ([`squall_engine::sending::estimate_bytes`]), held while it runs and
/// kept once finished (the attempt log reads every attempt), and with the
/// number of runs it stands for (its replications).
pub(crate) fn estimate<'m>(
    models: impl Iterator<Item = (&'m Model, u64, usize)>,
    threads: usize,
    reduce: bool,
    log: Option<usize>,
) -> MemoryEstimate {
    let mut sizes: Vec<(u64, u64, u64)> = Vec::new();
    for (m, sending, n) in models {
        let (running, kept) = run_bytes(m);
        // A run keeps its log once finished, reduced or not.
        let log = log.map_or(0, |limit| call_log_bytes(m, limit));
        let size = (
            running.saturating_add(sending),
            kept.saturating_add(log).saturating_add(sending),
            log,
        );
        sizes.extend(std::iter::repeat_n(size, n));
    }
    let runs = sizes.len();
    let per_run = sizes.iter().map(|x| x.0).max().unwrap_or(0);
    let total = if reduce {
        sizes.sort_unstable_by_key(|x| std::cmp::Reverse(x.0));
        let running: u64 = sizes.iter().take(threads).map(|x| x.0).sum();
        running.saturating_add(sizes.iter().map(|x| x.1).sum())
    } else {
        sizes
            .iter()
            .map(|x| x.0.saturating_add(x.2))
            .fold(0u64, u64::saturating_add)
    };
    MemoryEstimate {
        runs,
        per_run,
        total,
        reduced: reduce,
    }
}
