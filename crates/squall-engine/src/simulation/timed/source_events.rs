//! The calendar side of the timed path's sources: [`Timed`] puts on its
//! event queue what the sources' rules (`sources.rs`, [`TimedSources`])
//! say comes next. The event loop (`flow/`) sends a request when one of
//! these events comes, and calls back here for the source's next.
//!
//! [`TimedSources`]: super::sources::TimedSources

use squall_lang::{Model, Schedule, SourceSpec};

use crate::rng::Stream;
use crate::time::Time;

use super::super::{event::Event, source::Sources, SimError};
use super::Timed;

impl Timed {
    /// The first event of every source of `model`, in the order of the
    /// sources, at the run's first tick (none when the run has no tick):
    /// a rate source's first request, every client of a closed loop
    /// thinking (or waiting its first serial gap), an `at` source's first time, a sequential source's first
    /// operation. `streams` holds the sources' random streams.
    pub(super) fn start_sources(
        &mut self,
        model: &Model,
        streams: &mut Sources,
    ) -> Result<(), Box<SimError>> {
        if model.start > model.ticks {
            return Ok(());
        }
        let start = self.res.at_tick(model.start);
        for (s, spec) in model.sources.iter().enumerate() {
            let source = s as u32;
            match &spec.schedule {
                Schedule::Rate if spec.closed() => {
                    let n = spec.clients.as_ref().map_or(0, |c| c.count);
                    for client in 0..n {
                        self.think_then_send(start, s, client)?;
                    }
                }
                Schedule::Rate => self.next_arrival(start, s, spec, streams.stream(s))?,
                Schedule::At(times) => {
                    if let Some(&t) = times.first() {
                        let at = self.res.at_tick(t).units();
                        self.events.schedule(at, Event::At { source, index: 0 })?;
                    }
                }
                Schedule::Sequential(ops) => {
                    if !ops.is_empty() {
                        self.events
                            .schedule(start.units(), Event::Op { source, index: 0 })?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Schedules the next event of rate source `s` (described by `spec`)
    /// after `now`: its next request, or a new draw at the next change of
    /// rate. Inlined into the event loop, where a request comes.
    #[inline]
    pub(super) fn next_arrival(
        &mut self,
        now: Time,
        s: usize,
        spec: &SourceSpec,
        stream: &mut Stream,
    ) -> Result<(), Box<SimError>> {
        let (res, end) = (self.res, self.end);
        if let Some(at) = self.sources.next_arrival(now, s, spec, res, stream, end) {
            self.events
                .schedule(at.units(), Event::Source { source: s as u32 })?;
        }
        Ok(())
    }

    /// `at` source `source` (described by `spec`) sent its time `index`:
    /// schedules its next time, if it has one.
    pub(super) fn next_at(
        &mut self,
        spec: &SourceSpec,
        source: u32,
        index: u32,
    ) -> Result<(), Box<SimError>> {
        if let Schedule::At(times) = &spec.schedule {
            if let Some(&next) = times.get(index as usize + 1) {
                let at = self.res.at_tick(next).units();
                let index = index + 1;
                self.events.schedule(at, Event::At { source, index })?;
            }
        }
        Ok(())
    }

    /// A request of source `s` (described by `spec`) from `client` ended
    /// at `now`: a closed loop's client thinks and sends its next, a serial
    /// client sends its next one gap after the last start or now if later
    /// (nothing for an open-loop source). Inlined: an open loop pays one
    /// test.
    #[inline]
    pub(super) fn client_done(
        &mut self,
        now: Time,
        s: usize,
        spec: &SourceSpec,
        client: u32,
    ) -> Result<(), Box<SimError>> {
        if spec.closed() {
            self.think_then_send(now, s, client)?;
        }
        Ok(())
    }

    #[inline(never)]
    fn think_then_send(&mut self, now: Time, s: usize, client: u32) -> Result<(), Box<SimError>> {
        if let Some(at) = self.sources.next_send(now, s, client, self.end) {
            let source = s as u32;
            self.events
                .schedule(at.units(), Event::Think { source, client })?;
        }
        Ok(())
    }
}
