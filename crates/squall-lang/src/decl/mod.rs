//! Declarations: what a file declares once names are bound and the call
//! graph is checked, before any value is resolved.
//!
//! Three layers, one suffix each: the syntax tree ([`crate::ast`], `*Ast`)
//! says what was written; a declaration (`*Decl`, here) says what it means
//! once names are bound, its values still as written; the model
//! ([`crate::model`], `*Spec`) is one run with every value in ticks.
//! [`crate::validate`] builds a [`Scenario`] from the syntax tree and
//! [`crate::resolve`] turns it, with [`Overrides`], into models.

mod fault;
mod link;
mod node;
mod overrides;
mod scenario;
mod source;
mod sweep;
mod variant;

pub use fault::FaultDecl;
pub use link::LinkDecl;
pub use node::NodeDecl;
pub use overrides::{Overrides, Setting};
pub use scenario::Scenario;
pub use source::{FeedDecl, SourceDecl};
pub use sweep::{seed_value, SweepDecl, MAX_SWEEP_POINTS, SEED_AXIS};
pub use variant::VariantDecl;
