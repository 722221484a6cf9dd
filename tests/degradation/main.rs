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
//! * `diagnostics` checks what a user sees for bad input.
//! * `book` keeps the degradation chapters of the book complete.

mod book;
mod diagnostics;
mod document;
mod generality;
mod hand;
mod reference;
mod support;
