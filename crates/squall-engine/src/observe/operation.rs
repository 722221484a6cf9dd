//! [`OpRecord`]: how one operation of a sequential source went.
//!
//! A `sequential` source sends its operations one after another: the next
//! starts in the tick the previous one ends (after all its retries). Each
//! ends with a record of its start and end ticks, the tries its entry node
//! made, its final answer and the waits before each retry. An operation
//! still waiting for a retry when the run ends leaves no record.

use serde::Serialize;

use crate::outcome::Answer;

/// How one operation of a sequential source went.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpRecord {
    /// Its label.
    pub label: String,
    /// Tick it started.
    pub start: u64,
    /// Tick it ended.
    pub end: u64,
    /// Tries the entry node made.
    pub tries: u32,
    /// Its final answer.
    pub answer: Answer,
    /// The entry node's waits before each retry \[ticks\].
    pub waits: Vec<u64>,
}
