//! The typed model: what the engine runs and what the report evaluates.
//!
//! Two audiences, two folders: `run/` is one fully resolved run, the
//! engine's input ([`Model`] and its components, every value in ticks);
//! `report/` is the report a scenario asks for ([`ReportSpec`]), resolved
//! once per scenario. Both are plain data, re-exported here, so
//! `squall_lang::model::NodeSpec` names a type wherever it lives.

mod report;
mod run;
pub mod sending;

pub use report::*;
pub use run::*;
