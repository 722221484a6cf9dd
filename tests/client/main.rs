//! Client-side retry (seed document 002): backoff and jitter, outcome
//! classification with Retry-After, and the circuit breaker.
//!
//! * `document` pins every number the document prints, from the scenario
//!   files in `scenarios/`, and snapshots the full reports.
//! * `mulberry32` checks the generator against an implementation written
//!   here from the document's JavaScript.
//! * `backoff`, `retry` and `breaker` run other parameters and compare with
//!   values derived in the test from the formulas and rules, never from
//!   squall's own code.
//! * `js` holds those references, written from the document's JavaScript.
//!
//! What a user sees for bad client-side input is checked with every other
//! bad input in `crates/squall-lang/tests/inputs/err/` (the `client-*`
//! files); that the client chapters of the book run and quote real reports,
//! by `crates/squall-report/tests/book_examples.rs` for the whole book.

mod backoff;
mod breaker;
mod document;
mod js;
mod mulberry32;
mod retry;
#[path = "../support/mod.rs"]
mod support;
