//! Integration tests of the `squall` package: the scenarios in `scenarios/`
//! run end to end, pinned to the seed documents' numbers and checked against
//! independent reference models.
//!
//! One test binary of four (see `Cargo.toml`); each module below is a file
//! beside this one, and `support` is the folder `tests/support/` that the
//! `client`, `degradation` and `study` binaries share.

mod accounting;
mod bench_results;
mod book_charts;
mod browser;
mod cli;
mod common_draws;
mod determinism;
mod docs_match;
mod generality;
mod highlighting;
mod invocation;
mod layers;
mod limits;
mod memory;
mod paired_diff;
mod pictures;
mod pipeline_robust;
mod rate_limit;
mod recovery_paths;
mod reference;
mod replica_paths;
mod replications;
mod retry_storm;
mod source_shape;
mod support;
mod traps;
mod variants_reach;
mod verdicts;
