//! Sources in continuous time: open loops whose rate may change (steps,
//! spikes, ramps) and closed loops of clients that think. Their state and
//! rules are here ([`TimedSources`]: when a source's next event falls);
//! `source_events.rs` puts those events on the run's calendar, and the
//! event loop (`flow/`) sends a request when one comes.
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

use squall_lang::{Model, SourceSpec};

use crate::arrivals::OpenLoop;
use crate::rng::Stream;
use crate::server::latency::Latency;
use crate::time::{Duration, Resolution, Time};

/// The arrival state of a run's sources on the timed path.
#[derive(Debug, Default)]
pub(in crate::simulation) struct TimedSources {
    /// Per source: its open loop's gaps.
    open: Vec<OpenLoop>,
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
    fn think(&mut self, s: usize) -> Option<Duration> {
        let (latency, stream) = self.think.get_mut(s)?.as_mut()?;
        Some(latency.sample_loaded(stream, 0))
    }

    /// When rate source `s` (described by `spec`) has its next event after
    /// `now`: its next request, or a new draw at the next change of rate
    /// ([`OpenLoop::next`], a Poisson gap drawn from `stream`); `None` at
    /// or past the run's `end`.
    pub(super) fn next_arrival(
        &mut self,
        now: Time,
        s: usize,
        spec: &SourceSpec,
        res: Resolution,
        stream: &mut Stream,
        end: Time,
    ) -> Option<Time> {
        let at = self.open[s].next(spec, now, res, || stream.exponential());
        (at < end).then_some(at)
    }

    /// When a client of closed-loop source `s` that starts thinking at
    /// `now` sends: one think time later; `None` when the source does not
    /// think, or at or past the run's `end`.
    pub(super) fn next_think(&mut self, now: Time, s: usize, end: Time) -> Option<Time> {
        let at = now.after(self.think(s)?);
        (at < end).then_some(at)
    }
}
