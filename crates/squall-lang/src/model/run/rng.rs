//! Named random generators and their algorithms.

use serde::Serialize;

/// A named random generator.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RngSpec {
    /// Its name.
    pub name: String,
    /// The algorithm.
    pub algorithm: RngAlgorithm,
    /// Its explicit seed; `None`: derived from the run's seed and the name.
    pub seed: Option<u64>,
}

/// Random number algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RngAlgorithm {
    /// mulberry32: 32-bit state, the seed documents' generator.
    Mulberry32,
    /// SplitMix64: squall's default.
    SplitMix64,
}
