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
//! * `diagnostics` checks what a user sees for bad input.
//! * `book` keeps the client chapters of the book honest.

mod backoff;
mod book;
mod breaker;
mod diagnostics;
mod document;
mod mulberry32;
mod retry;
mod support;
