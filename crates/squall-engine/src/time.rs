//! Time inside the engine.
//!
//! On the zero-time path time is an integer count of ticks: a run covers
//! ticks `start..=ticks`, series are indexed by tick, and two events at
//! the same tick run in the order they were scheduled ([`crate::queue`]).
//! A run in which calls take time counts [`Time`] and [`Duration`] in
//! *units* finer than the file's clock.
//!
//! A scenario file reads its bare numbers, per-unit capacities, rates and
//! report bins in its clock (`round`, `ms`, `s`): one *tick*. Calls that
//! take time need more resolution than that (a 0.4 ms latency must not be
//! rounded to 0 or 1 ms), so the engine counts in units of a
//! [`Resolution`]: so many units per tick.
//!
//! | clock   | units per tick | one unit          |
//! |---------|----------------|-------------------|
//! | `ms`    | 1 000 000      | 1 ns              |
//! | `s`     | 1 000 000 000  | 1 ns              |
//! | `round` | 1 000 000      | a millionth round |
//!
//! A model with nothing that takes time runs at [`Resolution::TICKS`] (one
//! unit per tick), so its event times are exactly today's tick numbers.
//! Durations in the model are fractional ticks (`f64`); [`Resolution::duration`]
//! rounds them to the nearest unit once, when a run starts or a sample is
//! drawn. Arithmetic on [`Time`] saturates: `u64::MAX` units is "never".

use squall_lang::Clock;

/// Tick sentinel: never (a request never seen at a node, a ledger field
/// never fresh, a capacity never used).
pub(crate) const NEVER: u64 = u64::MAX;

/// A point in a run's time \[units of its [`Resolution`]\].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time(u64);

/// A length of time \[units of the run's [`Resolution`]\].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Duration(u64);

impl Time {
    /// The start of time.
    pub const ZERO: Time = Time(0);
    /// Never: later than every event.
    pub const NEVER: Time = Time(u64::MAX);

    /// The time `units` units after zero.
    pub const fn from_units(units: u64) -> Self {
        Time(units)
    }

    /// Units since zero.
    pub const fn units(self) -> u64 {
        self.0
    }

    /// `self + d`, saturating at [`Time::NEVER`].
    #[must_use]
    pub const fn after(self, d: Duration) -> Time {
        Time(self.0.saturating_add(d.0))
    }

    /// `self - earlier`, or zero when `earlier` is later.
    pub const fn since(self, earlier: Time) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
}

impl Duration {
    /// No time.
    pub const ZERO: Duration = Duration(0);

    /// A duration of `units` units.
    pub const fn from_units(units: u64) -> Self {
        Duration(units)
    }

    /// Its length in units.
    pub const fn units(self) -> u64 {
        self.0
    }

    /// True for a zero duration.
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }
}

impl std::ops::Add for Duration {
    type Output = Duration;
    fn add(self, other: Duration) -> Duration {
        Duration(self.0.saturating_add(other.0))
    }
}

/// `2^63`: the first float past `i64`'s range.
const I64_END: f64 = 9_223_372_036_854_775_808.0;

/// How many engine units make one tick of the file's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolution {
    per_tick: u64,
}

impl Default for Resolution {
    fn default() -> Self {
        Resolution::TICKS
    }
}

impl Resolution {
    /// One unit per tick: a model in which nothing takes time.
    pub const TICKS: Resolution = Resolution { per_tick: 1 };

    /// The fine resolution for `clock` (see the table in the module doc).
    pub fn fine(clock: Clock) -> Self {
        let per_tick = match clock {
            Clock::Round | Clock::Ms => 1_000_000,
            Clock::S => 1_000_000_000,
        };
        Resolution { per_tick }
    }

    /// Units per tick.
    pub const fn per_tick(self) -> u64 {
        self.per_tick
    }

    /// The start of tick `tick`.
    pub const fn at_tick(self, tick: u64) -> Time {
        Time(tick.saturating_mul(self.per_tick))
    }

    /// The tick that holds `t`.
    pub const fn tick_of(self, t: Time) -> u64 {
        t.0 / self.per_tick
    }

    /// `ticks` whole ticks as a duration.
    pub const fn ticks(self, ticks: u64) -> Duration {
        Duration(ticks.saturating_mul(self.per_tick))
    }

    /// `ticks` (fractional) ticks, rounded to the nearest unit; negative and
    /// NaN become zero, too large saturates.
    pub fn duration(self, ticks: f64) -> Duration {
        if ticks.is_nan() || ticks <= 0.0 {
            return Duration::ZERO;
        }
        let units = ticks * self.per_tick as f64;
        // `units.round()` (half away from zero) without the library call:
        // below 2^53 the fraction `units - whole` is exact; above, `units`
        // is a whole number already. Below 2^63 (every duration of a run)
        // the truncation and its way back go through `i64`, one
        // instruction each where `u64`'s take several.
        if units < I64_END {
            let whole = units as i64;
            let up = units - whole as f64 >= 0.5;
            return Duration(whole as u64 + u64::from(up));
        }
        if units >= u64::MAX as f64 {
            return Duration(u64::MAX);
        }
        Duration(units as u64)
    }

    /// `d` in (fractional) ticks.
    pub fn in_ticks(self, d: Duration) -> f64 {
        d.0 as f64 / self.per_tick as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_and_units() {
        let r = Resolution::fine(Clock::Ms);
        assert_eq!(r.at_tick(3), Time::from_units(3_000_000));
        assert_eq!(r.tick_of(Time::from_units(3_999_999)), 3);
        assert_eq!(r.tick_of(Time::from_units(4_000_000)), 4);
        // 0.4 ms is 400 000 ns, not 0 or 1 ms.
        assert_eq!(r.duration(0.4), Duration::from_units(400_000));
        assert_eq!(r.duration(-1.0), Duration::ZERO);
        assert_eq!(r.duration(f64::NAN), Duration::ZERO);
        assert_eq!(r.in_ticks(Duration::from_units(2_500_000)), 2.5);
        let s = Resolution::fine(Clock::S);
        assert_eq!(s.ticks(2), Duration::from_units(2_000_000_000));
        assert_eq!(Resolution::TICKS.at_tick(17), Time::from_units(17));
    }

    /// `duration` rounds as `f64::round` does (half away from zero), at the
    /// halves, just below them, and past 2^52 where every value is whole.
    #[test]
    fn duration_rounds_like_round() {
        let below_half = 0.5f64.next_down();
        let mut values = vec![0.0, below_half, 0.5, 1.5, 2.5, 1e15 + 0.5, 4.5e15];
        values.extend([2f64.powi(52), 2f64.powi(53) + 2.0, 1.8e19, 1e300]);
        let mut x = 0.3f64;
        for _ in 0..10_000 {
            x = (x * 1.7 + 0.123).fract();
            values.push(x * 1e7);
            values.push((x * 1e6).floor() + 0.5);
        }
        for v in values {
            let round = v.round();
            let want = if round >= u64::MAX as f64 {
                u64::MAX
            } else {
                round as u64
            };
            assert_eq!(Resolution::TICKS.duration(v).units(), want, "{v}");
        }
    }

    #[test]
    fn arithmetic_saturates() {
        assert_eq!(Time::NEVER.after(Duration::from_units(5)), Time::NEVER);
        assert_eq!(
            Time::from_units(3).since(Time::from_units(5)),
            Duration::ZERO
        );
        assert_eq!(
            Time::from_units(8).since(Time::from_units(5)),
            Duration::from_units(3)
        );
    }
}
