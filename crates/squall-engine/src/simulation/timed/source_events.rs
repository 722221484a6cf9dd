//! The events of the timed path's sources: an open loop's next request
//! after its gap, a closed loop's clients thinking and sending. The rules
//! and the state they keep are in `sources.rs`.

use squall_lang::Arrivals;

use crate::time::{Duration, Time};

use super::super::{event::Event, runner::Runner, SimError};

impl Runner<'_, '_> {
    /// Schedules the next event of rate source `s` after `now`: its next
    /// request, or a new draw at the next change of rate.
    pub(in crate::simulation) fn next_arrival(
        &mut self,
        now: Time,
        s: usize,
    ) -> Result<(), SimError> {
        let res = self.timed.res;
        let spec = &self.sim.model.sources[s];
        let tick = res.tick_of(now);
        let rate = spec.rate_at(tick);
        // The next tick at which the rate may change: a period's bounds,
        // or the next tick inside a ramp.
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
        let mut at = change;
        let mut pending = false;
        let src = &mut self.timed.sources;
        if spec.arrivals == Arrivals::Uniform {
            // What was made up since the last event, at the rate in force
            // then; a request just sent takes one whole request of it. (Not
            // reset to 0: the gap was rounded to a unit, and what the
            // rounding gave or took is made good on the next gap instead of
            // drifting, so `rate x run` requests are sent over a long run.)
            let sent = if src.pending[s] { 1.0 } else { 0.0 };
            src.credit[s] += res.in_ticks(now.since(src.since[s])) * src.rate[s] - sent;
            // A rate that starts (at the run's start, or after a stretch
            // at 0) counts its first tick at once, as the path where
            // nothing takes time adds a tick's rate when the tick starts:
            // `rate 1/ms` over 1000 ms sends 1000 on both paths, the first
            // at the start (not 999 from the second tick on). At most one
            // request's worth: a rate above one a tick sends its first at
            // once and the rest `1/rate` apart (`rate 4/ms` over 100 ms:
            // 400, not the 4 at once plus 399 that adding the whole tick's
            // rate gave).
            if src.rate[s] == 0.0 {
                src.credit[s] += rate.min(1.0);
            }
            src.since[s] = now;
            src.rate[s] = rate;
        }
        if rate > 0.0 {
            let gap = match spec.arrivals {
                Arrivals::Uniform => (1.0 - src.credit[s]).max(0.0) / rate,
                Arrivals::Poisson => -(1.0 - self.sources.stream(s).next_f64()).ln() / rate,
            };
            // No gap only for a uniform request already made up (at a
            // start, or when a change of rate completed it); sending it
            // takes its credit, so the gaps that follow are not empty.
            let least = u64::from(gap > 0.0 || spec.arrivals == Arrivals::Poisson);
            let gap = res.duration(gap).max(Duration::from_units(least));
            let next = now.after(gap);
            if next <= change {
                at = next;
                pending = true;
            }
        }
        self.timed.sources.pending[s] = pending;
        if at < self.timed.end {
            self.timed
                .events
                .schedule(at.units(), Event::Source { source: s as u32 })?;
        }
        Ok(())
    }

    /// Closed-loop source `s` starts at `now`: each client thinks, then
    /// sends its first request.
    pub(in crate::simulation) fn start_clients(
        &mut self,
        now: Time,
        s: usize,
    ) -> Result<(), SimError> {
        let n = self.sim.model.sources[s]
            .clients
            .as_ref()
            .map_or(0, |c| c.count);
        for client in 0..n {
            self.think_then_send(now, s, client)?;
        }
        Ok(())
    }

    /// A request of closed-loop source `s`'s `client` ended at `now`: the
    /// client thinks and sends its next (nothing for an open-loop source).
    pub(in crate::simulation) fn client_done(
        &mut self,
        now: Time,
        s: usize,
        client: u32,
    ) -> Result<(), SimError> {
        if self.sim.model.sources[s].closed() {
            self.think_then_send(now, s, client)?;
        }
        Ok(())
    }

    fn think_then_send(&mut self, now: Time, s: usize, client: u32) -> Result<(), SimError> {
        let Some(think) = self.timed.sources.think(s) else {
            return Ok(());
        };
        let at = now.after(think);
        if at < self.timed.end {
            self.timed.events.schedule(
                at.units(),
                Event::Think {
                    source: s as u32,
                    client,
                },
            )?;
        }
        Ok(())
    }

    /// Closed-loop source `s`'s `client` has thought: it sends at `now`.
    pub(in crate::simulation) fn client_sends(
        &mut self,
        now: Time,
        s: usize,
        client: u32,
    ) -> Result<(), SimError> {
        self.clients.sending = Some(client);
        self.enter_timed(now, s, self.sim.kind_base[s])
    }
}
