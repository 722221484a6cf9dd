//! Backoffs: how long a client waits before its next try.

use serde::Serialize;

use super::LibraryBackoff;

/// How long a service waits before its next try.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Backoff {
    /// The same wait before every retry \[ticks\].
    Fixed {
        /// The wait \[ticks\].
        wait: u64,
    },
    /// `base * multiplier^(n-1)` before retry `n`, at most `cap` \[ticks\].
    Exponential {
        /// The first wait \[ticks\].
        base: u64,
        /// Growth per retry.
        multiplier: f64,
        /// The largest wait \[ticks\].
        cap: Option<u64>,
    },
    /// `round(r * exponential(n))`: anywhere from 0 to the exponential wait.
    FullJitter {
        /// The first bound \[ticks\].
        base: u64,
        /// Growth per retry.
        multiplier: f64,
        /// The largest bound \[ticks\].
        cap: Option<u64>,
        /// Generator, by index in the model (`None`: the run's default).
        rng: Option<usize>,
    },
    /// `round(e/2 + r * e/2)` with `e = exponential(n)`: at least half the
    /// exponential wait.
    EqualJitter {
        /// The first bound \[ticks\].
        base: u64,
        /// Growth per retry.
        multiplier: f64,
        /// The largest bound \[ticks\].
        cap: Option<u64>,
        /// Generator.
        rng: Option<usize>,
    },
    /// `min(cap, round(base + r * (3 * previous - base)))`, the previous
    /// wait starting at `base`.
    Decorrelated {
        /// The smallest wait \[ticks\].
        base: u64,
        /// The largest wait \[ticks\].
        cap: Option<u64>,
        /// Generator.
        rng: Option<usize>,
    },
    /// A library's own backoff; it draws from the run's default generator.
    Library(LibraryBackoff),
}

impl Backoff {
    /// True when the policy draws a random number for each wait.
    pub fn draws(&self) -> bool {
        matches!(
            self,
            Backoff::FullJitter { .. }
                | Backoff::EqualJitter { .. }
                | Backoff::Decorrelated { .. }
                | Backoff::Library(_)
        )
    }

    /// The generator the policy draws from (`None`: the run's default).
    pub fn rng(&self) -> Option<usize> {
        match *self {
            Backoff::FullJitter { rng, .. }
            | Backoff::EqualJitter { rng, .. }
            | Backoff::Decorrelated { rng, .. } => rng,
            Backoff::Fixed { .. } | Backoff::Exponential { .. } | Backoff::Library(_) => None,
        }
    }
}
