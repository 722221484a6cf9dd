//! # squall-lang
//!
//! The scenario language of squall: a pest grammar, a syntax tree with spans,
//! and a validation pass that turns the tree into a typed model the engine
//! can run. This crate knows nothing about simulation; it only checks that a
//! file says something meaningful and resolves it into numbers.
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

pub mod adhoc;
pub mod ast;
pub mod date;
pub mod diagnostic;
pub mod format;
pub mod instantiate;
pub mod model;
pub mod parse;
pub mod seed;
pub mod span;
pub mod template;
pub mod timing;
pub mod units;
pub mod validate;

pub use diagnostic::{Diagnostic, Diagnostics};
pub use instantiate::RunKey;
pub use model::*;
pub use span::Span;
pub use timing::*;
pub use validate::{load, Overrides, Scenario, Setting, SweepSpec, VariantSpec};
