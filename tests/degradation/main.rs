//! Graceful degradation (seed document 001, "Zarif Bozulma"): composite
//! responses, a last-known-value ledger and three policies.
//!
//! * `document` pins every number the document prints, from
//!   `scenarios/degradation.squall`, read from the JSON report, and
//!   snapshots the full report.
//! * `reference` is the document's `kosum`, written here from its
//!   JavaScript and generalised; it is checked against the document first.
//! * `generality` generates scenarios over other fields, sources, bounds,
//!   periods, warm-ups, lengths and outages, and compares squall with the
//!   reference for all three policies, totals and tick by tick.
//! * `hand` checks cases derived by hand from the rules.
//! * `book` keeps the degradation chapters of the book complete.
//!
//! What a user sees for bad degradation input is checked with every other
//! bad input in `crates/squall-lang/tests/inputs/err/` (the `degradation-*`
//! files); damaged copies of the document's scenario go through the whole
//! pipeline in `tests/pipeline_robust.rs`.

mod book;
mod document;
mod generality;
mod hand;
mod reference;
#[path = "../support/mod.rs"]
mod support;
