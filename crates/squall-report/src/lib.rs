//! # squall-report
//!
//! Turns a scenario's runs into a report: the tables, lines and diagnoses its
//! `report` block asks for, an accounting of every request, and the results
//! of its `expect` lines; rendered as aligned text, markdown or JSON. Same
//! input, same bytes out.
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

pub mod build;
pub mod chart;
pub mod client;
pub mod compare;
pub mod csv;
pub mod diagnose;
pub mod document;
pub mod eval;
pub mod number;
pub mod render;
pub mod series;
pub mod study;
pub mod sweep;
pub mod words;

pub use document::{Block, Cell, Report, Table};
pub use render::Format;
pub use study::{Run, Study, StudyError, StudyOptions};
pub use sweep::{merge, read_shard, run_sweep, MergeError, Shard, SweepOptions, SweepRows};
