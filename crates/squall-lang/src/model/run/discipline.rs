//! The order in which a node's queued calls take a freed worker
//! (`discipline ...` on a service with `workers`), and adaptive LIFO with
//! CoDel's shedding (`discipline adaptive_lifo { ... }`), FIFO with the
//! same shedding (`discipline codel { ... }`). Durations are
//! ticks of the file's clock, as fractions.

use serde::Serialize;

/// The order in which a node's queued calls take a freed worker.
/// Non-preemptive: a call in service keeps its worker. With sources of
/// more than one `priority`, the queue is one queue per priority, the
/// highest served first, and the discipline orders each.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QueueDiscipline {
    /// `fifo` (the default): the call that has waited longest.
    #[default]
    Fifo,
    /// `lifo`: the call that joined the queue last.
    Lifo,
    /// `adaptive_lifo`: FIFO while few calls wait, LIFO past a threshold,
    /// and CoDel sheds, at dequeue, the calls that waited too long while
    /// the queue is overloaded. Boxed: a node's spec stays as small as
    /// with one of the others.
    AdaptiveLifo(Box<AdaptiveLifo>),
    /// `codel`: FIFO, and CoDel sheds at dequeue as under `adaptive_lifo`,
    /// with no switch to LIFO (fbthrift's `ThreadManager`). Boxed as
    /// adaptive LIFO is.
    Codel(Box<CodelFifo>),
}

/// FIFO with CoDel's shedding, as fbthrift's `ThreadManager` runs it
/// (`thrift/lib/cpp/concurrency/ThreadManager.cpp`: its worker asks
/// folly's `Codel::overloaded` of each task it takes from its FIFO queue
/// and drops an expired one): adaptive LIFO without the switch.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CodelFifo {
    /// CoDel's target queueing delay \[ticks\], as [`AdaptiveLifo`]'s.
    pub target_delay: f64,
    /// CoDel's interval \[ticks\], as [`AdaptiveLifo`]'s.
    pub interval: f64,
}

/// Adaptive LIFO with CoDel, as HBase's `AdaptiveLifoCoDelCallQueue`
/// (after Facebook's "Fail at Scale") runs it, with folly's CoDel.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AdaptiveLifo {
    /// CoDel's target queueing delay \[ticks\] (folly's
    /// `codel_target_delay`): an interval whose smallest delay exceeds it
    /// is overloaded, and then a call that waited more than twice it is
    /// shed.
    pub target_delay: f64,
    /// CoDel's interval \[ticks\] (folly's `codel_interval`).
    pub interval: f64,
    /// A freed worker takes the newest call while more calls than this
    /// wait, the oldest otherwise (HBase: `lifo_threshold` times the
    /// queue's bound; HHVM: `lifo_switch_threshold`, a count).
    pub lifo_above: f64,
}

impl QueueDiscipline {
    /// Every discipline's keyword, in the order the reference lists them.
    pub const KEYWORDS: [&'static str; 4] = ["fifo", "lifo", "adaptive_lifo", "codel"];

    /// The settings each keyword takes in its `{ ... }` block.
    pub fn settings_of(word: &str) -> &'static [&'static str] {
        match word {
            "adaptive_lifo" => &[
                "target_delay",
                "interval",
                "lifo_threshold",
                "lifo_switch_threshold",
            ],
            "codel" => &["target_delay", "interval"],
            _ => &[],
        }
    }

    /// True for the disciplines whose CoDel sheds calls (`adaptive_lifo`,
    /// `codel`).
    pub fn sheds(&self) -> bool {
        matches!(
            self,
            QueueDiscipline::AdaptiveLifo(_) | QueueDiscipline::Codel(_)
        )
    }

    /// True for the default, FIFO (left out of the model's JSON, so a
    /// model without `discipline` serializes as before).
    pub fn is_fifo(&self) -> bool {
        *self == QueueDiscipline::Fifo
    }
}
