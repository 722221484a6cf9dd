//! The report model: what the report evaluates.
//!
//! A [`ReportSpec`] is resolved once per scenario, not per run: its
//! expressions refer to variants, windows and nodes by index, and the
//! report evaluates them against each run's observations. Items that are
//! not tables live in `items`, tables in `table`, `expect` lines in
//! `expect`, expressions in `expr` and the metrics they read in `metric`.

mod chart_series;
mod expect;
mod expr;
mod items;
mod metric;
mod send_metric;
mod send_series;
mod table;

pub use chart_series::ChartSeries;
pub use expect::{CheckSpec, ExpectSpec, ToleranceSpec};
pub use expr::{Func, RExpr};
pub use items::{ChartSpec, DiagnoseSpec, HerdSpec, IsolationSpec, LinePart, WaitsSpec};
pub use metric::Metric;
pub use send_metric::SendMetric;
pub use send_series::SendSeries;
pub use table::{AxisSpec, ColumnSpec, TableSpec};

use serde::Serialize;

/// Most replications a report may ask for: each is a whole copy of every
/// run, and past a thousand the interval narrows only by `1/sqrt(N)` while
/// the work grows by `N`.
pub const MAX_REPLICATIONS: u32 = 1000;
/// The most retries a `waits` table shows (a row each).
pub const MAX_WAITS_ATTEMPTS: u64 = 10_000;
/// The most clients a `herd` draws (a wake-up and a `#` each).
pub const MAX_HERD_CLIENTS: u64 = 100_000;
/// The highest retry a `herd` looks at (each client draws every wait up
/// to it).
pub const MAX_HERD_ATTEMPT: u64 = 1_000;

/// The report a scenario asks for, with every name bound.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct ReportSpec {
    /// `replications N`: every run is repeated with N derived seeds and
    /// every number is a mean with a 95 % interval; `None`: one run each.
    pub replications: Option<u32>,
    /// Named per-run expressions.
    pub measures: Vec<MeasureSpec>,
    /// Tables, lines and diagnoses in declaration order.
    pub items: Vec<ReportItemSpec>,
    /// `expect` lines.
    pub expects: Vec<ExpectSpec>,
}

/// `measure name = expr`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeasureSpec {
    /// Its name.
    pub name: String,
    /// Its value in a run.
    pub expr: RExpr,
}

/// One item of a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ReportItemSpec {
    /// A table.
    Table(TableSpec),
    /// A sentence with embedded values, and the variant they come from when
    /// they name none.
    Line(Vec<LinePart>, Option<usize>),
    /// A demand-or-retry-storm verdict per variant.
    Diagnose(DiagnoseSpec),
    /// Waits of several backoff policies per retry.
    Waits(WaitsSpec),
    /// When a herd of clients wakes up.
    Herd(HerdSpec),
    /// Each operation of a sequential source.
    Operations {
        /// Title.
        title: String,
        /// The source, by index.
        source: usize,
    },
    /// A circuit breaker's decisions.
    Trace {
        /// Title.
        title: String,
        /// The node, by index.
        node: usize,
    },
    /// Which source down leaves what of a composite response.
    Isolation(IsolationSpec),
    /// A metric per time bin, one line per variant.
    Chart(ChartSpec),
}
