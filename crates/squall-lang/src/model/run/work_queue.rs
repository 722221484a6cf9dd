//! A work queue: messages worked by a pool of consumers, redelivered when
//! their work fails, moved to a dead-letter queue past a receive cap.

use serde::Serialize;

use super::{Backoff, LatencySpec};

/// Which messages always fail.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Poison {
    /// The first `n` messages that reach the queue.
    First(u64),
    /// Each message independently with this probability \[0, 1\], one draw
    /// per message from the queue's own stream (`poison/<node>`).
    Share(f64),
}

/// A node that is a work queue (`consumers N` on a service).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkQueueSpec {
    /// Messages worked at once.
    pub consumers: u32,
    /// How long working one message takes; `None`: no time.
    pub work: Option<LatencySpec>,
    /// Messages that always fail.
    pub poison: Option<Poison>,
    /// The wait before a failed message is visible again (`None`: requeued
    /// at once).
    pub redeliver: Option<Backoff>,
    /// Receives per message, at most; at the last failed one the message
    /// moves to the dead-letter queue. `None`: redelivered for ever.
    pub max_receives: Option<u32>,
    /// The dead-letter queue's name.
    pub dead_letter: Option<String>,
}
