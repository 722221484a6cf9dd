//! End-to-end tests of the study and review commands: `sweep`, `merge`,
//! `test`, `diff`, `fmt`, `new`, `completions`, and the `expect` forms.
//!
//! One test binary (`cargo test --test study`); each module covers one job.

mod cli;
mod diff_exit;
mod diff_git;
mod fmt_props;
mod hostile;
mod meaning;
mod outputs;
mod shard_auto;
#[path = "../support/mod.rs"]
mod support;
mod sweep_charts;
mod sweep_data;
mod sweep_units;
