//! A sender's events as the engine's calendar carries them, and the one
//! thing a sender asks of that calendar: to schedule one.
//!
//! The calendar is the timed run's ([`crate::queue::EventQueue`] of the
//! simulation's events, which carries a sender's event as its `Send`
//! variant); a sender only sees the [`Calendar`] trait, so `sending/`
//! names nothing of `simulation/`. A [`SendEvent`] is two `u32`s, the
//! size of the largest of the other events, so carrying it does not make
//! the calendar's entry larger (a const assert beside the simulation's
//! `Event` holds this).

use crate::error::SimError;

/// What happens to a sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// The next record is created and queued (records at a rate, or the
    /// source that feeds the sender).
    Create,
    /// Idle consumers take queued records while the window cap and the
    /// pool's bucket allow.
    Dispatch,
    /// An attempt's answer to record `r` comes back; the caller side
    /// decides the state.
    Answer(u32),
    /// Pending record `r`'s `next_attempt_at`: back to the queue.
    Due(u32),
}

/// One event of one sender, packed: which sender, and what (`0` create,
/// `1` dispatch, `2 + 2r` the answer to record `r`, `3 + 2r` record `r`
/// due). A record's index is below
/// [`MAX_RECORDS`](squall_lang::model::sending::MAX_RECORDS) (ten
/// million, checked before it is created), so `3 + 2r` fits a `u32`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct SendEvent {
    /// The sender's index in its run.
    sender: u32,
    what: u32,
}

impl SendEvent {
    pub(super) fn new(sender: u32, kind: Kind) -> Self {
        let what = match kind {
            Kind::Create => 0,
            Kind::Dispatch => 1,
            Kind::Answer(r) => 2 + 2 * r,
            Kind::Due(r) => 3 + 2 * r,
        };
        SendEvent { sender, what }
    }

    /// The sender's index in its run.
    pub(super) fn sender(self) -> usize {
        self.sender as usize
    }

    /// What happens.
    pub(super) fn kind(self) -> Kind {
        match self.what {
            0 => Kind::Create,
            1 => Kind::Dispatch,
            w if w % 2 == 0 => Kind::Answer((w - 2) / 2),
            w => Kind::Due((w - 3) / 2),
        }
    }
}

/// The bytes of one event on the calendar that carries a [`SendEvent`]
/// (the simulation's `Event`, which asserts this size beside its
/// definition): what a pending event of a sender costs in a run's memory
/// estimate, less the calendar's own links.
pub const CALENDAR_EVENT_BYTES: usize = 12;

/// The calendar a sender schedules its events on.
pub trait Calendar {
    /// Schedules `event` at `at` \[engine units\], after every event
    /// already scheduled at that time.
    fn schedule_send(&mut self, at: u64, event: SendEvent) -> Result<(), SimError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packing and unpacking give back every kind, for the smallest and
    /// the largest record index a run can have (`MAX_RECORDS - 1`): the
    /// round trip is exact integer arithmetic, so equality is the test.
    #[test]
    fn kinds_round_trip() {
        let last = (squall_lang::model::sending::MAX_RECORDS - 1) as u32;
        for kind in [
            Kind::Create,
            Kind::Dispatch,
            Kind::Answer(0),
            Kind::Due(0),
            Kind::Answer(last),
            Kind::Due(last),
        ] {
            let e = SendEvent::new(7, kind);
            assert_eq!((e.sender(), e.kind()), (7, kind));
        }
    }
}
