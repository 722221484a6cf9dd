//! Integration tests of `squall-lang`, one binary with a module per concern:
//!
//! - [`snapshots`]: every file under `inputs/err` renders its diagnostics
//!   (miette, no colour, and the plain `file:line:col` form); every file under
//!   `inputs/ok` summarises what it resolved to.
//! - [`errors`]: explicit assertions on line, column and help for key cases,
//!   and the exact diagnostic of every client-side and degradation case.
//! - [`robust`]: truncated, mangled and pathological inputs never panic,
//!   never hang, and never overflow the stack (a seeded sample by default,
//!   the long run with `SQUALL_LONG_TESTS=1`).
//! - [`grammar`]: table-driven tests of values, expressions, templates, units.
//! - [`resolve`]: overrides from outside the file, and sweeps.
//! - [`variants_timed`]: a variant that changes a service's timed settings.
//! - [`traps`]: readings once taken silently (`queue N` then `timeout D`,
//!   `workers N` alone, fractional duration params), now read one way or
//!   refused where written.
//! - [`bounds`]: settings whose size becomes memory or work before a run
//!   (a resilience4j time window, `waits`, `herd`), refused past a bound.
//! - [`kinds`]: the "X needs Y" and "X is not a Y" families of diagnostics,
//!   located, for a sample of the sites that build each.
//! - [`disciplines`]: `discipline fifo|lifo`, resolved, formatted, refused
//!   where written.
//! - [`adaptive_lifo`]: `discipline adaptive_lifo { ... }` and a source's
//!   `priority`, resolved, formatted, refused where written.
//! - [`conflicts`]: `optimistic [conflict CODE]` and `at [t x N]`,
//!   resolved, formatted, refused where written.
//! - [`replicas`]: `replicas N`, `balance ...` and `on api[1]`, resolved,
//!   formatted, refused where written.
//! - [`links`]: faults on a link (`on api -> db`) and on the answer leg,
//!   resolved, formatted, refused where written.
//! - [`clients`]: ramps, open and closed loops of clients: what they resolve
//!   to, their located errors, and `squall fmt` keeping them.
//! - [`batches`]: a sender's records in bursts (`records N batch B per D`).
//! - [`serial`]: serial clients (`serial every ...`), resolved, formatted,
//!   refused where written.

mod adaptive_lifo;
mod batches;
mod bounds;
mod clients;
mod common;
mod conflicts;
mod disciplines;
mod errors;
mod grammar;
mod kinds;
mod limiters;
mod link_latency;
mod links;
mod replicas;
mod resolve;
mod retry_gate;
mod robust;
mod sending;
mod serial;
mod snapshots;
mod traps;
mod variants_timed;
