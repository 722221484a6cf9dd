//! Integration tests of the `squall` package: the scenarios in `scenarios/`
//! run end to end, pinned to the seed documents' numbers and checked against
//! independent reference models.
//!
//! One test binary; each module below is a file beside this one.

mod accounting;
mod browser;
mod cli;
mod determinism;
mod generality;
mod layers;
mod memory;
mod pipeline_robust;
mod reference;
mod retry_storm;
mod support;
