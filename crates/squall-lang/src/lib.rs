//! # squall-lang
//!
//! The scenario language of squall: a pest grammar, a syntax tree with spans,
//! and a validation pass that turns the tree into a typed model the engine
//! can run. This crate knows nothing about simulation; it only checks that a
//! file says something meaningful and resolves it into numbers.
//!
//! # Where things are
//!
//! Text flows through one layer per stage, each with its own suffix:
//!
//! - [`parse`]: text to the syntax tree of [`ast`] (`*Ast`), with a
//!   [`Span`] on every node;
//! - [`validate`]: the syntax tree to a [`Scenario`] of declarations
//!   ([`decl`], `*Decl`): names bound, the call graph checked;
//! - [`resolve`]: a scenario plus [`Overrides`] to a [`Model`] (the run
//!   model, `*Spec`, in [`model`]), every value in ticks; the report model
//!   ([`ReportSpec`]) is resolved once per scenario;
//! - [`format`](mod@format): the syntax tree back to canonical text (`squall fmt`);
//! - [`diagnostic`]: located errors, rendered with miette by the caller.
//!
//! ```
//! let text = r#"scenario "tiny" {
//!   clock round
//!   run 10 rounds
//!   source users { rate 2/round enters api }
//!   chain api -> db
//!   service db { capacity 5/round }
//! }"#;
//! let scenario = squall_lang::load("tiny.squall", text).expect("valid");
//! let model = scenario.model(&squall_lang::Overrides::default()).expect("resolves");
//! assert_eq!(model.ticks, 10);
//! assert_eq!(model.nodes.len(), 2);
//! ```
#![warn(missing_docs)]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::unreachable
)]

pub mod ast;
pub mod date;
pub mod decl;
pub mod diagnostic;
pub mod format;
pub mod model;
pub mod needs;
pub mod not_a;
pub mod parse;
pub mod resolve;
pub mod seed;
pub mod span;
pub mod template;
mod twice;
pub mod units;
pub mod unknown;
pub mod validate;

pub use decl::{Overrides, Scenario, Setting, SweepDecl, VariantDecl, SEED_AXIS};
pub use diagnostic::{Diagnostic, Diagnostics};
pub use model::*;
pub use resolve::RunKey;
pub use span::Span;
pub use validate::load;
