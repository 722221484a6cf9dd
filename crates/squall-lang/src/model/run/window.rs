//! Windows: named inclusive ranges of ticks the report measures over.

use serde::Serialize;

/// A named inclusive range of ticks.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct WindowSpec {
    /// The window's name.
    pub name: String,
    /// First tick.
    pub from: u64,
    /// Last tick.
    pub to: u64,
}

impl WindowSpec {
    /// Number of ticks in the window.
    pub fn len(&self) -> u64 {
        self.to + 1 - self.from
    }

    /// True for an empty window (never: validation requires `from <= to`).
    pub fn is_empty(&self) -> bool {
        self.to < self.from
    }
}

// ------------------------------------------------------------------ report --
