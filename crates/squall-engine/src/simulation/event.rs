//! [`Event`]: what the queue holds.
//!
//! Four kinds of event drive a run: a rate source's tick, one send of an
//! `at [..]` source, the next operation of a `sequential` source, and a
//! service's next try after its backoff. The timed path adds its own (a
//! call's wake, a client's think time, a `workers` fault), and a run of
//! senders carries theirs (`Send`, which `sending/` schedules through its
//! `Calendar` trait, implemented here). An event is a few integers (a
//! source index, a request's slot and path position), so the queue stays
//! small and copying events is free. The queue orders them by
//! `(time, sequence)`; the derived `Ord` here is never used for that.

use crate::error::SimError;
use crate::queue::{BucketWidth, EventQueue};
use crate::sending::{Calendar, SendEvent, CALENDAR_EVENT_BYTES};

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
    /// A sender's event (`sending/`): a run of senders carries them on
    /// the timed path's loop, which hands them to the senders it holds.
    Send(SendEvent),
}

// A sender's event is two `u32`s like the largest of the others: carrying
// it leaves the calendar's entry the size it was (12 bytes: a tag and two
// `u32`s), so a run of services pays nothing in memory for it; a sender's
// memory estimate counts this size for each of its pending events.
const _: () = assert!(std::mem::size_of::<Event>() == CALENDAR_EVENT_BYTES);

impl<W: BucketWidth> Calendar for EventQueue<Event, W> {
    #[inline]
    fn schedule_send(&mut self, at: u64, event: SendEvent) -> Result<(), SimError> {
        Ok(self.schedule(at, Event::Send(event))?)
    }
}
