//! A variant as declared: a name, a label and the overrides it applies.

use super::Overrides;

/// A variant: a named set of overrides.
#[derive(Debug, Clone)]
pub struct VariantDecl {
    /// The name used in paths.
    pub name: String,
    /// The label printed in reports.
    pub label: String,
    /// Its overrides.
    pub overrides: Overrides,
}
