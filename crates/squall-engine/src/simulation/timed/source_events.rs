//! The events of the timed path's sources: an open loop's next request
//! after its gap, a closed loop's clients thinking and sending. The rules
//! and the state they keep are in `sources.rs`.

use crate::time::Time;

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
        let stream = self.sources.stream(s);
        let at = self.timed.sources.open[s].next(spec, now, res, || stream.next_f64());
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
