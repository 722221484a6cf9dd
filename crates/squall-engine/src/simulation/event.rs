//! [`Event`]: what the queue holds.
//!
//! Four kinds of event drive a run: a rate source's tick, one send of an
//! `at [..]` source, the next operation of a `sequential` source, and a
//! service's next try after its backoff. An event is a few integers (a
//! source index, a request's slot and path position), so the queue stays
//! small and copying events is free. The queue orders them by
//! `(time, sequence)`; the derived `Ord` here is never used for that.

/// An event in the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Event {
    /// A rate source's tick.
    Source { source: u32 },
    /// An `at` source's `index`-th send.
    At { source: u32, index: u32 },
    /// A sequential source's `index`-th operation.
    Op { source: u32, index: u32 },
    /// The service at `pos` of a request's path makes its next try.
    Retry { slot: u32, pos: u32 },
    /// A call that takes time moves on (see `timed`), if it is still at
    /// generation `gen`.
    Wake { call: u32, gen: u32 },
    /// A closed-loop source's `client` has thought and sends (see
    /// `timed/sources.rs`).
    Think { source: u32, client: u32 },
    /// A `workers` fault on `node` starts or ends: the node's worker count
    /// is set again (see `timed/arrival.rs`).
    Workers { node: u32 },
}
