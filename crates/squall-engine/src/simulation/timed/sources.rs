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
//!
//! # Serial clients
//!
//! A source with `clients N  serial every ...` has N serial clients, the
//! rule of mbrooker's retry_sim `SerialClient` (client.py, `gen_load`):
//! each keeps one request in flight, and when it ends (as above, after all
//! its tries) the client draws a gap G from the source's `serial/<s>`
//! stream and starts its next request at `max(end, last start + G)` — at
//! once if the request took longer than the gap. At the run's start each
//! client's last start is the start itself, so its first request goes one
//! gap in. Each client then starts about once a gap while its requests
//! are shorter than the gaps, and its throughput is `1 / E[max(R, G)]`.

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
    /// Per closed-loop source: its think time or serial gap and the
    /// stream it draws from.
    think: Vec<Option<ClientGaps>>,
}

/// How the clients of one closed-loop source space their requests.
#[derive(Debug)]
struct ClientGaps {
    /// The think time, or the serial gap.
    latency: Latency,
    /// The stream it draws from (`think/<s>` or `serial/<s>`).
    stream: Stream,
    /// Serial clients: each one's last start (the run's start before its
    /// first). Empty for a closed loop that thinks.
    last_start: Vec<Time>,
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
                    let c = spec.clients.as_ref()?;
                    if let Some(think) = &c.think {
                        return Some(ClientGaps {
                            latency: Latency::new(think, 0.0, res),
                            stream: Stream::new(seed, &format!("think/{s}")),
                            last_start: Vec::new(),
                        });
                    }
                    let start = res.at_tick(model.start);
                    Some(ClientGaps {
                        latency: Latency::new(c.serial.as_ref()?, 0.0, res),
                        stream: Stream::new(seed, &format!("serial/{s}")),
                        last_start: vec![start; c.count as usize],
                    })
                })
                .collect(),
        }
    }

    /// True when source `s`'s pending event sends a request.
    pub(in crate::simulation) fn sends(&self, s: usize) -> bool {
        self.open[s].sends()
    }

    /// When rate source `s` (described by `spec`) has its next event after
    /// `now`: its next request, or a new draw at the next change of rate
    /// ([`OpenLoop::next`], a Poisson gap drawn from `stream`); `None` at
    /// or past the run's `end`.
    #[inline]
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

    /// When `client` of closed-loop source `s`, whose last request ended
    /// at `now` (or which starts at `now`, the run's start), sends its
    /// next: one think time later, or for a serial client at
    /// `max(now, last start + gap)`; `None` when the source has no such
    /// clients, or at or past the run's `end`.
    pub(super) fn next_send(
        &mut self,
        now: Time,
        s: usize,
        client: u32,
        end: Time,
    ) -> Option<Time> {
        let gaps = self.think.get_mut(s)?.as_mut()?;
        let drawn: Duration = gaps.latency.sample_loaded(&mut gaps.stream, 0);
        let at = match gaps.last_start.get_mut(client as usize) {
            Some(last) => {
                let at = last.after(drawn).max(now);
                *last = at;
                at
            }
            None => now.after(drawn),
        };
        (at < end).then_some(at)
    }
}
