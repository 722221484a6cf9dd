//! The clock: a file's unit of time, and what one tick is in milliseconds.

use serde::Serialize;

/// The unit of time of a scenario file. One tick is one unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub enum Clock {
    /// An abstract step (`tur`), with no wall-clock length.
    #[default]
    Round,
    /// One millisecond.
    Ms,
    /// One second.
    S,
}

impl Clock {
    /// Milliseconds in one tick; `None` for rounds.
    pub fn tick_millis(self) -> Option<u64> {
        match self {
            Clock::Round => None,
            Clock::Ms => Some(1),
            Clock::S => Some(1000),
        }
    }

    /// The singular name of one tick, as printed in reports.
    pub fn unit_name(self) -> &'static str {
        match self {
            Clock::Round => "round",
            Clock::Ms => "ms",
            Clock::S => "s",
        }
    }
}
