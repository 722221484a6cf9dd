//! One module per command.

pub mod charts;
pub mod diff;
pub mod diff_git;
pub mod fmt;
pub mod new;
pub mod run;
pub mod shard;
pub mod sweep;
pub mod tables;
pub mod test;
