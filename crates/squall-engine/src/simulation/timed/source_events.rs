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
            // A request just sent starts a new one from nothing; a change
            // of rate keeps what was made up at the old rate.
            src.credit[s] = if src.pending[s] {
                0.0
            } else {
                src.credit[s] + res.in_ticks(now.since(src.since[s])) * src.rate[s]
            };
            src.since[s] = now;
            src.rate[s] = rate;
        }
        if rate > 0.0 {
            let gap = match spec.arrivals {
                Arrivals::Uniform => (1.0 - src.credit[s]).max(0.0) / rate,
                Arrivals::Poisson => -(1.0 - self.sources.stream(s).next_f64()).ln() / rate,
            };
            let gap = res.duration(gap).max(Duration::from_units(1));
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
