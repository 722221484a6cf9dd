//! Sequential sources on the timed path: one operation at a time, each
//! starting when the one before it ends, as on the zero-time path
//! (`simulation/call.rs`, `Runner::finish`).
//!
//! The first operation starts at the first tick of the run. An operation
//! is one request of its own kind (method, path, key, retry policy); it
//! ends when its entry call answers, and the next starts at that moment
//! (in engine units, not rounded to a tick). Its record
//! ([`crate::OpRecord`]) holds the ticks it started and ended, the tries
//! its entry node made (1 when the entry calls nothing) and the waits the
//! entry node chose before each retry, in ticks.

use squall_lang::Schedule;

use crate::observe::OpRecord;
use crate::outcome::Answer;
use crate::time::Time;

use super::super::{event::Event, runner::Runner, SimError};

impl Runner<'_, '_> {
    /// Schedules the first operation of sequential source `s`.
    pub(super) fn start_sequential(&mut self, s: usize) -> Result<(), SimError> {
        let m = self.sim.model;
        if let Schedule::Sequential(ops) = &m.sources[s].schedule {
            if !ops.is_empty() {
                let at = self.timed.res.at_tick(m.start);
                self.timed.events.schedule(
                    at.units(),
                    Event::Op {
                        source: s as u32,
                        index: 0,
                    },
                )?;
            }
        }
        Ok(())
    }

    /// Operation `index` of sequential source `s` starts at `now`.
    pub(super) fn start_op(&mut self, now: Time, s: usize, index: u32) -> Result<(), SimError> {
        let tick = self.timed.res.tick_of(now);
        self.operations.start(s, tick);
        self.enter_timed(now, s, self.sim.kind_base[s] + index)
    }

    /// The entry node of the request in `slot` waits `wait` ticks before
    /// its next try: an operation's record keeps it.
    pub(super) fn op_wait(&mut self, slot: u32, wait: u64) {
        let kind = self.requests.kind[slot as usize] as usize;
        if self.sim.kinds[kind].op.is_some() {
            let s = self.requests.source[slot as usize] as usize;
            self.operations.waits[s].push(wait);
        }
    }

    /// The request in `slot` ended at `now` with `answer` after `tries`
    /// tries at its entry node: an operation is recorded and the next one
    /// starts.
    pub(super) fn op_ended(
        &mut self,
        now: Time,
        slot: u32,
        answer: Answer,
        tries: u32,
    ) -> Result<(), SimError> {
        let kind = self.requests.kind[slot as usize] as usize;
        let Some(op) = self.sim.kinds[kind].op else {
            return Ok(());
        };
        let source = self.requests.source[slot as usize] as usize;
        let m = self.sim.model;
        let Schedule::Sequential(ops) = &m.sources[source].schedule else {
            return Ok(());
        };
        let entry = self.sim.paths[source][0];
        let tries = if m.nodes[entry].downstream.is_some() {
            tries
        } else {
            1
        };
        self.obs.ops[source].push(OpRecord {
            label: ops.get(op).map_or(String::new(), |o| o.label.clone()),
            start: self.operations.start[source],
            end: self.timed.res.tick_of(now),
            tries,
            answer,
            waits: std::mem::take(&mut self.operations.waits[source]),
        });
        if op + 1 < ops.len() {
            self.timed.events.schedule(
                now.units(),
                Event::Op {
                    source: source as u32,
                    index: op as u32 + 1,
                },
            )?;
        }
        Ok(())
    }
}
