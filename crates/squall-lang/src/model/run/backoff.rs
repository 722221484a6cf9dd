//! Backoffs: how long a client waits before its next try.

use serde::Serialize;

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
}

impl Backoff {
    /// The exponential bound before retry `n` (1 = after the first failed
    /// try): `base * multiplier^(n-1)`, at most `cap`. For a fixed backoff,
    /// the fixed wait; for decorrelated jitter, the base.
    pub fn bound(&self, n: u32) -> f64 {
        let grow = |base: u64, multiplier: f64, cap: Option<u64>| {
            let w = (base as f64) * multiplier.powi(n.saturating_sub(1).min(1024) as i32);
            cap.map_or(w, |c| w.min(c as f64))
        };
        match *self {
            Backoff::Fixed { wait } => wait as f64,
            Backoff::Exponential {
                base,
                multiplier,
                cap,
            }
            | Backoff::FullJitter {
                base,
                multiplier,
                cap,
                ..
            }
            | Backoff::EqualJitter {
                base,
                multiplier,
                cap,
                ..
            } => grow(base, multiplier, cap),
            Backoff::Decorrelated { base, .. } => base as f64,
        }
    }

    /// True when the policy draws a random number for each wait.
    pub fn draws(&self) -> bool {
        matches!(
            self,
            Backoff::FullJitter { .. } | Backoff::EqualJitter { .. } | Backoff::Decorrelated { .. }
        )
    }

    /// The generator the policy draws from (`None`: the run's default).
    pub fn rng(&self) -> Option<usize> {
        match *self {
            Backoff::FullJitter { rng, .. }
            | Backoff::EqualJitter { rng, .. }
            | Backoff::Decorrelated { rng, .. } => rng,
            Backoff::Fixed { .. } | Backoff::Exponential { .. } => None,
        }
    }

    /// The wait before retry `n`, given a uniform draw `r` in `[0, 1)` (not
    /// used by deterministic policies) and the previous wait of the same
    /// retry loop (decorrelated jitter; `None` before the first retry).
    /// Rounding is half away from zero, as JavaScript's `Math.round` for
    /// the non-negative values here.
    pub fn wait_with(&self, n: u32, r: f64, previous: Option<u64>) -> u64 {
        let whole = |w: f64| {
            if w.is_finite() && w > 0.0 {
                w.min(9.0e15).round() as u64
            } else {
                0
            }
        };
        match *self {
            Backoff::Fixed { wait } => wait,
            Backoff::Exponential { .. } => whole(self.bound(n)),
            Backoff::FullJitter { .. } => whole(r * self.bound(n)),
            Backoff::EqualJitter { .. } => {
                let e = self.bound(n);
                whole(e / 2.0 + r * e / 2.0)
            }
            Backoff::Decorrelated { base, cap, .. } => {
                let prev = previous.unwrap_or(base) as f64;
                let w = whole(base as f64 + r * (prev * 3.0 - base as f64));
                cap.map_or(w, |c| w.min(c))
            }
        }
    }

    /// The wait before retry `n` for a deterministic policy; for jittered
    /// policies, the largest wait the draw can give.
    pub fn wait(&self, n: u32) -> u64 {
        match *self {
            Backoff::Decorrelated { cap, .. } => cap.unwrap_or(u64::MAX),
            _ => self.wait_with(n, 1.0, None),
        }
    }
}
