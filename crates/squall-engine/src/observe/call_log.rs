//! [`CallLog`]: one row per answered call, when a run is asked to keep them
//! (`SimulationBuilder::call_log`, for `squall run --events`).
//!
//! A row is written when a node answers a call: on the zero-time path in
//! the tick of the call (latency 0), on the timed path when the answer
//! leaves the node (latency from the call's arrival, queueing included).
//! Times are engine units: ticks on the zero-time path, `units_per_tick`
//! units a tick on the timed path ([`CallLog::units_per_tick`]). Calls
//! still in flight at the end have no row. Past `limit` rows, calls are
//! only counted ([`CallLog::dropped`]).

use serde::Serialize;

use crate::outcome::Answer;

/// One answered call.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CallRow {
    /// When the node answered \[engine units\].
    pub time: u64,
    /// The request's id (1 for the run's first request).
    pub request: u64,
    /// The node that answered, by index.
    pub node: u32,
    /// Which try of its caller this call was (1 for the first; the entry
    /// call and the fetches of a composite response are try 1).
    pub try_no: u32,
    /// What the node answered.
    pub outcome: Answer,
    /// From the call's arrival at the node to its answer \[engine units\].
    pub latency: u64,
}

/// The calls of a run, in the order they were answered.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct CallLog {
    /// Engine units per tick: 1 on the zero-time path.
    pub units_per_tick: u64,
    /// The most rows kept.
    pub limit: usize,
    /// The rows, at most `limit`.
    pub rows: Vec<CallRow>,
    /// Calls answered past the limit, not kept.
    pub dropped: u64,
}

impl CallLog {
    /// An empty log that keeps at most `limit` rows.
    pub fn new(limit: usize) -> CallLog {
        CallLog {
            units_per_tick: 1,
            limit,
            rows: Vec::new(),
            dropped: 0,
        }
    }

    /// Keeps a row, or counts it past the limit.
    #[inline]
    pub(crate) fn push(&mut self, row: CallRow) {
        if self.rows.len() < self.limit {
            self.rows.push(row);
        } else {
            self.dropped += 1;
        }
    }
}
