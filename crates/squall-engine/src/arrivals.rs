//! An open-loop source in continuous time: when its next request goes.
//! One owner of the rule, called by every path that takes time: the timed
//! path's sources (`simulation/timed/source_events.rs`) and a sender that
//! a source feeds (`sending/feed.rs`), whose records are the source's
//! requests.
//!
//! A rate source sends one request at a time, its next request a gap after
//! the last: `1 / rate` for a uniform source, an exponential draw of mean
//! `1 / rate` (a ziggurat draw from the caller's stream,
//! [`crate::rng::Stream::exponential`]) for a Poisson one, with the rate
//! in force when the gap is drawn. A gap that would cross a change of rate
//! is cut at the change and drawn again there. That is exact for a Poisson
//! source, which has no memory; a uniform source keeps the share of a
//! request it had made up before the change (`credit`), so a rate that
//! steps from 2/s to 4/s half-way through a gap sends after a quarter
//! second more, not half a second. A ramp (`rate A to B during ..`)
//! changes its rate every tick, so its rate is constant within a tick and
//! a gap is cut at every tick the ramp spans.

use squall_lang::{Arrivals, SourceSpec};

use crate::time::{Duration, Resolution, Time};

/// The arrival state of one open-loop source.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct OpenLoop {
    /// Whether its next event sends a request (or only draws a new gap at
    /// a change of rate).
    sends: bool,
    /// A uniform source's share of its next request made up so far, the
    /// moment it was last brought up to date, and the rate since.
    credit: f64,
    since: Time,
    rate: f64,
}

impl OpenLoop {
    /// True when the source's pending event sends a request.
    pub(crate) fn sends(&self) -> bool {
        self.sends
    }

    /// The source's next event after `now` (its next request, or a new
    /// draw at the next change of rate), or [`Time::NEVER`]. `draw` gives
    /// an exponential draw of mean 1: called once, for a Poisson gap only.
    /// Inlined: a source's next request is one of the run's most
    /// frequent events.
    #[inline]
    pub(crate) fn next(
        &mut self,
        spec: &SourceSpec,
        now: Time,
        res: Resolution,
        draw: impl FnOnce() -> f64,
    ) -> Time {
        let (rate, change) = if spec.periods.is_empty() {
            // One rate throughout, which never changes: what the general
            // way below gives without periods, with no tick to find.
            (spec.rate, Time::NEVER)
        } else {
            let tick = res.tick_of(now);
            // The next tick at which the rate may change: a period's
            // bounds, or the next tick inside a ramp.
            let change = spec
                .periods
                .iter()
                .flat_map(|p| {
                    let inside = p.to_rate.is_some() && p.from <= tick && tick < p.to;
                    [
                        p.from,
                        p.to.saturating_add(1),
                        if inside { tick + 1 } else { 0 },
                    ]
                })
                .filter(|&b| b > tick)
                .min()
                .map_or(Time::NEVER, |b| res.at_tick(b));
            (spec.rate_at(tick), change)
        };
        let mut at = change;
        let mut sends = false;
        if spec.arrivals == Arrivals::Uniform {
            // What was made up since the last event, at the rate in force
            // then; a request just sent takes one whole request of it. (Not
            // reset to 0: the gap was rounded to a unit, and what the
            // rounding gave or took is made good on the next gap instead of
            // drifting, so `rate x run` requests are sent over a long run.)
            let sent = if self.sends { 1.0 } else { 0.0 };
            self.credit += res.in_ticks(now.since(self.since)) * self.rate - sent;
            // A rate that starts (at the run's start, or after a stretch
            // at 0) counts its first tick at once, as the path where
            // nothing takes time adds a tick's rate when the tick starts:
            // `rate 1/ms` over 1000 ms sends 1000 on both paths, the first
            // at the start (not 999 from the second tick on). At most one
            // request's worth: a rate above one a tick sends its first at
            // once and the rest `1/rate` apart (`rate 4/ms` over 100 ms:
            // 400, not the 4 at once plus 399 that adding the whole tick's
            // rate gave).
            if self.rate == 0.0 {
                self.credit += rate.min(1.0);
            }
            // A rate that stops drops what it had made up: its first
            // request went at its start, so the request its last gap
            // completes at the stop is one more than `rate x duration`
            // (`rate 5/ms during 1ms..1ms` sent 6), and a credit kept
            // over the stop would go at once when a rate starts again.
            if rate == 0.0 {
                self.credit = 0.0;
            }
            self.since = now;
            self.rate = rate;
        }
        if rate > 0.0 {
            let gap = match spec.arrivals {
                Arrivals::Uniform => (1.0 - self.credit).max(0.0) / rate,
                Arrivals::Poisson => draw() / rate,
            };
            // No gap only for a uniform request already made up (at a
            // start, or when a change of rate completed it); sending it
            // takes its credit, so the gaps that follow are not empty.
            let least = u64::from(gap > 0.0 || spec.arrivals == Arrivals::Poisson);
            let gap = res.duration(gap).max(Duration::from_units(least));
            let next = now.after(gap);
            // A uniform request that falls on a change of rate is decided
            // at the change, by the credit and the rate from then on (a
            // Poisson gap ending there is as good as any: it is sent).
            let before = next < change || (next == change && spec.arrivals == Arrivals::Poisson);
            if before {
                at = next;
                sends = true;
            }
        }
        self.sends = sends;
        at
    }
}
