//! One finished run: which run it was, what it ran, what it measured.
//!
//! The run planner (`plan.rs`) makes these; a `Study` keeps them by
//! [`RunKey`], and every report item reads its numbers from them.

use squall_engine::Observations;
use squall_lang::{Model, Overrides, RunKey};

/// One finished run.
#[derive(Debug, Clone)]
pub struct Run {
    /// Which run.
    pub key: RunKey,
    /// Its overrides.
    pub overrides: Overrides,
    /// The model it ran.
    pub model: Model,
    /// What it measured.
    pub obs: Observations,
}
