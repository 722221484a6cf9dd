//! [`Sources`]: how many requests a rate source sends each tick.
//!
//! A source's rate \[requests/tick\] is the one in force at the tick (the
//! last matching period's, or its base rate). With uniform arrivals a
//! deterministic accumulator adds the rate every tick and a request enters
//! for every whole unit, fractions carrying over; with Poisson arrivals
//! the count is drawn from the source's own random stream (`source/<i>`,
//! derived from the run's seed), so sources never share draws.

use squall_lang::{Arrivals, SourceSpec};

use crate::rng::Stream;

/// The arrival state of every source of a run.
pub(super) struct Sources {
    /// Accumulators of uniform sources.
    acc: Vec<f64>,
    /// Random streams of Poisson sources.
    streams: Vec<Stream>,
}

impl Sources {
    /// The state of `count` sources of a run seeded with `seed`.
    pub(super) fn new(count: usize, seed: u64) -> Self {
        Sources {
            acc: vec![0.0; count],
            streams: (0..count)
                .map(|i| Stream::new(seed, &format!("source/{i}")))
                .collect(),
        }
    }

    /// The random stream of source `s` (`source/<s>`).
    pub(super) fn stream(&mut self, s: usize) -> &mut Stream {
        &mut self.streams[s]
    }

    /// The requests source `s` (described by `spec`) sends at tick `t`.
    pub(super) fn arrivals(&mut self, s: usize, spec: &SourceSpec, t: u64) -> u64 {
        let rate = spec.rate_at(t);
        match spec.arrivals {
            Arrivals::Uniform => {
                self.acc[s] += rate;
                let whole = self.acc[s].floor().max(0.0);
                self.acc[s] -= whole;
                whole as u64
            }
            Arrivals::Poisson => self.streams[s].poisson(rate),
        }
    }
}
