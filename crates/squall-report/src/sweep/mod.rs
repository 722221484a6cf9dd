//! What-if studies: every point of a sweep, run in parallel, as one table.
//!
//! # The table
//!
//! A sweep's result is the report's tables whose rows are `sweep NAME`,
//! filled with the sweep's points. When the report has no such table, the
//! result is one table with a column per `measure`.
//!
//! # Random streams
//!
//! Every point runs with its own seed, derived from the scenario seed and
//! the point's settings (not its position):
//! `derive_seed(seed, "point/attempts=2,spacing=4 rounds")`, params sorted
//! by name and values in canonical spelling. A point's numbers therefore
//! depend only on the scenario and the point itself: not on the thread
//! count, the order of `--vary` values, the other points, or how the points
//! are split into shards. A variant's seed follows its name, and a point run
//! on a variant follows both (`Scenario::run_seed`; see [`crate::plan`]).
//! A `seed` axis (`--vary seed=1,2,3`) gives each point that root seed
//! instead of the scenario's, and with `replications N` every point runs N
//! times, each replication with a seed of its own; both depend only on the
//! point, so shards still add up to the whole table.
//!
//! # Shards
//!
//! `--shard K/N` (1-based) runs the points `i` with `i % N == K - 1`: round
//! robin, so each slice gets a share of every axis and slices take about the
//! same time even when cost grows along an axis. A [`SweepRows`] records each
//! row's place in the full table; [`merge`] puts the shards' rows back in
//! place after checking they come from the same study and cover every point
//! once. A merged study renders byte for byte like a single run.
//!
//! # Files
//!
//! - `run.rs`: [`run_sweep`] and its [`SweepOptions`], running one sweep (or
//!   one shard of it) through the [run planner](crate::plan) and filling its
//!   tables.
//! - `shard.rs`: the shard file format ([`SweepRows`] and its parts), writing
//!   and reading it ([`read_shard`]).
//! - `merge.rs`: [`merge`], joining shards back into the whole sweep.
//! - `merge_error.rs`: [`MergeError`], why shard files do not join.
//! - `data.rs`: the sweep as data (CSV and JSON with one column per varied
//!   param, full precision; [`SweepRows::render`]).
//! - `wall.rs`: measure columns under a wall clock, in seconds and per
//!   second ([`WallColumn`]).

mod data;
mod merge;
mod merge_error;
mod run;
mod shard;
mod wall;

use squall_lang::{AxisSpec, ReportItemSpec, Scenario};

pub use crate::data::full;
pub use crate::plan::sweep_tables;
pub use data::param_axes;
pub use merge::merge;
pub use merge_error::MergeError;
pub(crate) use run::sweep_table;
pub use run::{run_sweep, SweepOptions};
pub use shard::{
    read_shard, text_hash, FailedPoint, ParamAxis, ParamValue, RowEntry, Shard, StoredCell,
    StudyId, SweepRows, TableRows, WallColumn, SHARD_VERSION,
};

/// The sweep `--vary` replaces when no `--sweep` is named: the first sweep
/// a report table shows.
pub fn default_sweep(scenario: &Scenario) -> Option<usize> {
    scenario.report.items.iter().find_map(|item| match item {
        ReportItemSpec::Table(t) => t.rows.iter().find_map(|a| match a {
            AxisSpec::Sweep(i) => Some(*i),
            _ => None,
        }),
        _ => None,
    })
}
