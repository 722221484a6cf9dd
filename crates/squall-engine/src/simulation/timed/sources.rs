//! Sources in continuous time: open loops whose rate may change (steps,
//! spikes, ramps) and closed loops of clients that think. Their state is
//! here ([`TimedSources`]); the events that send their requests are in
//! `source_events.rs`.
//!
//! # Open loops
//!
//! A rate source sends one request at a time, its next request a gap after
//! the last: `1 / rate` for a uniform source, an exponential draw of mean
//! `1 / rate` (from `source/<s>`) for a Poisson one, with the rate in
//! force when the gap is drawn. A gap that would cross a change of rate is
//! cut at the change and drawn again there. That is exact for a Poisson
//! source, which has no memory; a uniform source keeps the share of a
//! request it had made up before the change (`credit`), so a rate that
//! steps from 2/s to 4/s half-way through a gap sends after a quarter
//! second more, not half a second. A ramp (`rate A to B during ..`)
//! changes its rate every tick, so its rate is constant within a tick and
//! a gap is cut at every tick the ramp spans.
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

use crate::rng::Stream;
use crate::server::latency::Latency;
use crate::time::{Duration, Resolution, Time};

/// The arrival state of a run's sources on the timed path.
#[derive(Debug, Default)]
pub(in crate::simulation) struct TimedSources {
    /// Per source: whether its next event sends a request (or only draws
    /// a new gap at a change of rate).
    pub(super) pending: Vec<bool>,
    /// Per uniform source: the share of its next request made up so far,
    /// the moment it was last brought up to date, and the rate since.
    pub(super) credit: Vec<f64>,
    pub(super) since: Vec<Time>,
    pub(super) rate: Vec<f64>,
    /// Per closed-loop source: its think time and the stream it draws from.
    think: Vec<Option<(Latency, Stream)>>,
}

impl TimedSources {
    /// The state of `model`'s sources at resolution `res`.
    pub(super) fn new(model: &Model, seed: u64, res: Resolution) -> Self {
        let n = model.sources.len();
        TimedSources {
            pending: vec![false; n],
            credit: vec![0.0; n],
            since: vec![Time::ZERO; n],
            rate: vec![0.0; n],
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
        self.pending[s]
    }

    /// A think time of closed-loop source `s`.
    pub(super) fn think(&mut self, s: usize) -> Option<Duration> {
        let (latency, stream) = self.think.get_mut(s)?.as_mut()?;
        Some(latency.sample_loaded(stream, 0))
    }
}
