//! [`TraceRow`]: one decision of a circuit breaker, kept for the `trace`
//! report item.
//!
//! Every try a service with a breaker makes leaves one row: a try the
//! breaker did not send, at the tick it was refused; a try it sent, at the
//! tick it was sent, with the answer that came back (recorded when the
//! answer arrives). A node keeps at most [`TRACE_LIMIT`] rows; past that it
//! only counts the rows it left out, and builds none (`keep` takes the
//! row as a closure). Rows hold states, answers and indices; the report
//! words them.

use serde::Serialize;

use crate::outcome::Answer;
use crate::policy::breaker::State;

/// The most breaker decisions kept per node.
pub const TRACE_LIMIT: usize = 100_000;

/// One decision of a circuit breaker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TraceRow {
    /// The tick of the call \[ticks\].
    pub time: u64,
    /// Whether the call was sent.
    pub sent: bool,
    /// For a `per path` breaker, the request path it guards, as an index
    /// into [`Observations::paths`](super::Observations::paths); `None` for
    /// a breaker over all calls.
    pub scope: Option<usize>,
    /// The state the call found.
    pub before: State,
    /// The answer: for a call sent, what came back; for a call not sent,
    /// `CircuitOpen` with the ticks until a probe may go (0: a probe is in
    /// flight).
    pub answer: Answer,
    /// The state after the answer.
    pub after: State,
}

/// A try its breaker sent, as the timed path notes it when it goes: its
/// trace row is written when its answer (or its caller's timeout) comes
/// back, at the tick it was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SentTry {
    /// The tick it was sent.
    pub(crate) tick: u64,
    /// The state it found.
    pub(crate) before: State,
}

impl SentTry {
    /// Its row, once `answer` came back and left the breaker in `after`;
    /// `scope` as in [`TraceRow::scope`].
    pub(crate) fn answered(self, scope: Option<usize>, answer: Answer, after: State) -> TraceRow {
        TraceRow {
            time: self.tick,
            sent: true,
            scope,
            before: self.before,
            answer,
            after,
        }
    }
}

/// Keeps the row `row` builds in `rows` while there is room; past
/// [`TRACE_LIMIT`] counts it in `dropped` without building it.
#[inline]
pub(crate) fn keep(rows: &mut Vec<TraceRow>, dropped: &mut u64, row: impl FnOnce() -> TraceRow) {
    if rows.len() < TRACE_LIMIT {
        rows.push(row());
    } else {
        *dropped += 1;
    }
}
