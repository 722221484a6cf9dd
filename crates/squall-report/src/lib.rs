//! # squall-report
//!
//! Turns a scenario's runs into a report: the tables, lines and diagnoses its
//! `report` block asks for, an accounting of every request, and the results
//! of its `expect` lines; rendered as aligned text, markdown or JSON. Same
//! input, same bytes out.
//!
//! # How a report is made
//!
//! 1. [`plan`] decides which runs a piece of work needs and with which seed
//!    ([`RunPlan`]), and runs them in parallel into [`Run`]s ([`run`]);
//!    reports, sweeps and `squall check` all plan there. A run that cannot
//!    start is a [`StudyError`] ([`error`]).
//! 2. [`study`] holds a scenario with its finished runs ([`Study`]); every
//!    report item is a method on it and reads its numbers through [`eval`].
//! 3. [`build`] gathers the items, in the file's order, into a [`Report`]
//!    ([`document`]): plain data, so every format says the same thing.
//! 4. [`render`] writes it as text, markdown or JSON, [`csv`] as CSV
//!    ([`number`] formats numbers as the documents do; [`data`] gives the
//!    tables as data, numbers as computed, for CSV and notebooks).
//!
//! With `replications N` in the report, the planner runs every run N times
//! (one seed each) and every number of a table or a line is a mean with a
//! 95 % interval ([`interval`]); `expect` lines check the mean.
//!
//! # Where each report item lives
//!
//! | in the `report` block | built in |
//! |---|---|
//! | `table` | [`table`] (rows laid out by `Study::plan_rows`) |
//! | `line` | [`line`](mod@line) |
//! | `measure`, and every expression | [`eval`] |
//! | `diagnose` | [`diagnose`] |
//! | `waits` | `client/waits.rs` ([`client`]) |
//! | `herd` | `client/herd.rs` |
//! | `operations` | `client/operations.rs` (answers worded by [`words`]) |
//! | `trace` | `client/trace.rs` (states and outcomes worded by [`words`]) |
//! | `isolation` | [`isolation`] |
//! | `expect` | [`expect`] |
//! | the accounting table | [`build`] |
//!
//! Beside the report: [`sweep`] runs a sweep (`squall sweep`), writes and
//! merges its shard files (`squall merge`); [`series`] writes the per-tick
//! CSV and the SVG chart of `squall run --series/--chart`; [`events`] the
//! call log of `squall run --events`; [`compare`]
//! compares two reports (`squall diff`).
//!
//! ```
//! let text = r#"scenario "tiny" {
//!   run 10 rounds
//!   source users { rate 2/round enters api }
//!   chain api -> db
//!   service db { capacity 5/round }
//!   window all 1..10
//!   report {
//!     table "load" { rows windows  at db  column "calls/round" = call_rate }
//!   }
//! }"#;
//! let scenario = squall_lang::load("tiny.squall", text).unwrap();
//! let study = squall_report::Study::run(&scenario, Default::default()).unwrap();
//! let report = study.report();
//! let squall_report::Block::Table(table) = &report.blocks[0] else { panic!("a table") };
//! assert_eq!(table.rows[0][1].display(), "2.00"); // calls per round at `db` over `all`
//! assert!(report.to_text().contains("calls/round"));
//! ```
#![warn(missing_docs)]

pub mod args;
pub mod bins;
pub mod build;
mod call_bound;
pub mod chart;
pub mod client;
pub mod compare;
pub mod counts;
pub mod csv;
pub mod data;
pub mod diagnose;
pub mod document;
pub mod error;
pub mod escape;
pub mod eval;
pub mod events;
pub mod expect;
pub mod html;
pub mod interval;
pub mod isolation;
pub mod line;
pub mod memory;
pub mod number;
pub mod observed;
pub mod plan;
pub mod recovery;
pub mod refusal;
pub mod render;
pub mod replace;
mod replica;
pub mod run;
pub mod saturation;
pub mod sending;
pub mod series;
pub mod shed;
mod stretch;
pub mod study;
pub mod sweep;
pub mod table;
pub mod unit;
pub mod words;

pub use document::{Block, Cell, Report, Table};
pub use error::{Budget, StudyError};
pub use interval::Interval;
pub use plan::{Keep, MemoryEstimate, OverBudget, Progress, RunOptions, RunPlan};
pub use refusal::Refusal;
pub use render::Format;
pub use run::Run;
pub use study::{Study, StudyOptions};
pub use sweep::{merge, read_shard, run_sweep, MergeError, Shard, SweepOptions, SweepRows};
