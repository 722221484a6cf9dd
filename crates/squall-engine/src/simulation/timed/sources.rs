//! Sources in continuous time: open loops whose rate may change (steps,
//! spikes, ramps) and closed loops of clients that think. Their state is
//! here ([`TimedSources`]); the events that send their requests are in
//! `source_events.rs`.
//!
//! # Open loops
//!
//! A rate source sends one request at a time, its next request a gap after
//! the last; the rule (uniform and Poisson gaps, changes of rate, ramps)
//! is [`OpenLoop`]'s (`arrivals.rs`), which a sender a source feeds calls
//! too. A Poisson source draws from `source/<s>`.
//!
//! # Closed loops
//!
//! A source with `clients N  think ...` has N clients. Each thinks (one
//! draw from the source's `think/<s>` stream) before its first request,
//! then sends; when the request ends — completed, or dropped after its
//! last try, a timeout or its deadline — the client thinks again and sends
//! its next. So at most N requests of the source are ever open, and its
//! throughput follows the interactive response-time law `X = N / (R + Z)`
//! (R the mean response time, Z the mean think time). Draws are taken in
//! event order: client 0..N at the start, then one per ended request.

use squall_lang::Model;

use crate::arrivals::OpenLoop;
use crate::rng::Stream;
use crate::server::latency::Latency;
use crate::time::{Duration, Resolution};

/// The arrival state of a run's sources on the timed path.
#[derive(Debug, Default)]
pub(in crate::simulation) struct TimedSources {
    /// Per source: its open loop's gaps.
    pub(super) open: Vec<OpenLoop>,
    /// Per closed-loop source: its think time and the stream it draws from.
    think: Vec<Option<(Latency, Stream)>>,
}

impl TimedSources {
    /// The state of `model`'s sources at resolution `res`.
    pub(super) fn new(model: &Model, seed: u64, res: Resolution) -> Self {
        let n = model.sources.len();
        TimedSources {
            open: vec![OpenLoop::default(); n],
            think: model
                .sources
                .iter()
                .enumerate()
                .map(|(s, spec)| {
                    let think = spec.clients.as_ref()?.think.as_ref()?;
                    Some((
                        Latency::new(think, 0.0, res),
                        Stream::new(seed, &format!("think/{s}")),
                    ))
                })
                .collect(),
        }
    }

    /// True when source `s`'s pending event sends a request.
    pub(in crate::simulation) fn sends(&self, s: usize) -> bool {
        self.open[s].sends()
    }

    /// A think time of closed-loop source `s`.
    pub(super) fn think(&mut self, s: usize) -> Option<Duration> {
        let (latency, stream) = self.think.get_mut(s)?.as_mut()?;
        Some(latency.sample_loaded(stream, 0))
    }
}
