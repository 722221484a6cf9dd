//! [`Operations`]: the running operation of each sequential source, and
//! the record of each that ended. Both paths call the same three methods:
//! [`Operations::start`] when an operation's request enters,
//! [`Operations::wait`] when its entry node waits before a retry, and
//! [`Operations::ended`] when its entry call answers; the loop puts the
//! record into the run's observations and schedules the next operation.
//!
//! A `sequential` source has at most one operation in flight. The first
//! starts at the first tick of the run; an operation is one request of its
//! own kind (method, path, key, retry policy); it ends when its entry call
//! answers, and the next starts at that moment (on the timed path in
//! engine units, not rounded to a tick). Its record
//! ([`OpRecord`]) holds the ticks it started and ended,
//! the tries its entry node made (1 when the entry calls nothing) and the
//! waits the entry node chose before each retry, in ticks.

use squall_lang::{Schedule, SourceSpec};

use crate::observe::OpRecord;
use crate::outcome::Answer;

use super::kind::Kind;

/// The running operation of each sequential source.
pub(super) struct Operations {
    /// Waits of the running operation of each source \[ticks\].
    waits: Vec<Vec<u64>>,
    /// Start tick of the running operation of each source.
    start: Vec<u64>,
    /// Some source is sequential: without one, no request is an
    /// operation.
    any: bool,
}

impl Operations {
    /// No operation running, for `sources`.
    pub(super) fn new(sources: &[SourceSpec]) -> Self {
        let count = sources.len();
        Operations {
            waits: vec![Vec::new(); count],
            start: vec![0; count],
            any: sources
                .iter()
                .any(|s| matches!(s.schedule, Schedule::Sequential(_))),
        }
    }

    /// Whether any source is sequential (only then can a request be an
    /// operation).
    #[inline(always)]
    pub(super) fn any(&self) -> bool {
        self.any
    }

    /// Source `s` starts an operation at tick `t`.
    pub(super) fn start(&mut self, s: usize, t: u64) {
        self.waits[s].clear();
        self.start[s] = t;
    }

    /// The entry node of a request of `kind` from source `s` waits `wait`
    /// ticks before its next try: an operation's record keeps it (for
    /// other requests the waits would pile up for the whole run).
    pub(super) fn wait(&mut self, s: usize, kind: &Kind, wait: u64) {
        if kind.op.is_some() {
            self.waits[s].push(wait);
        }
    }

    /// A request of `kind` from source `s` (described by `spec`) ended at
    /// tick `end` with `answer`, its entry node having made `tries` tries
    /// downstream (`None`: the entry calls nothing, counted as one). For
    /// an operation: its record, and the index of the source's next
    /// operation if there is one. `None` for any other request.
    pub(super) fn ended(
        &mut self,
        s: usize,
        spec: &SourceSpec,
        kind: &Kind,
        end: u64,
        tries: Option<u32>,
        answer: Answer,
    ) -> Option<(OpRecord, Option<u32>)> {
        let op = kind.op?;
        let Schedule::Sequential(ops) = &spec.schedule else {
            return None;
        };
        let record = OpRecord {
            label: ops.get(op).map_or(String::new(), |o| o.label.clone()),
            start: self.start[s],
            end,
            tries: tries.unwrap_or(1),
            answer,
            waits: std::mem::take(&mut self.waits[s]),
        };
        let next = (op + 1 < ops.len()).then_some(op as u32 + 1);
        Some((record, next))
    }
}
