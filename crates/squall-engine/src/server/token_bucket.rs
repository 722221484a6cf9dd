//! A token bucket: `rate` tokens per tick (below one allowed), at most
//! `burst` tokens, one token per call.
//!
//! The bucket starts full. Its level is an `f64` of tokens, refilled
//! lazily when a call arrives (no event per token): `rate / per_tick`
//! tokens per engine unit since the last call, capped at `burst`. A call
//! that finds less than one token is told how long until there is one
//! (a Retry-After, or the wait of a limiter that waits).

use crate::time::{Duration, Resolution, Time};

/// A token bucket.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenBucket {
    /// Tokens per engine unit.
    per_unit: f64,
    burst: f64,
    level: f64,
    last: Time,
}

impl TokenBucket {
    /// A full bucket of `burst` tokens refilled at `rate` tokens per tick.
    pub fn new(rate: f64, burst: f64, res: Resolution) -> Self {
        let burst = burst.max(1.0);
        TokenBucket {
            per_unit: rate.max(0.0) / res.per_tick() as f64,
            burst,
            level: burst,
            last: Time::ZERO,
        }
    }

    fn refill(&mut self, now: Time) {
        if now > self.last {
            let gained = now.since(self.last).units() as f64 * self.per_unit;
            self.level = (self.level + gained).min(self.burst);
            self.last = now;
        }
    }

    /// Takes a token at `now`; when none is there, the time until one is
    /// (`None` when the rate is zero: never).
    pub fn take(&mut self, now: Time) -> Result<(), Option<Duration>> {
        self.refill(now);
        // A tolerance of a millionth of a token against rounding of the
        // refill: 0.1 per tick for 10 ticks gives one token.
        if self.level >= 1.0 - 1e-9 {
            self.level = (self.level - 1.0).max(0.0);
            return Ok(());
        }
        if self.per_unit <= 0.0 {
            return Err(None);
        }
        let units = ((1.0 - self.level) / self.per_unit).ceil();
        Err(Some(Duration::from_units(units as u64)))
    }

    /// From `now` on, `rate` tokens per tick and at most `burst` (an
    /// adaptive sender changing its pace); tokens already earned are kept,
    /// down to the new burst.
    pub fn set_rate(&mut self, now: Time, rate: f64, burst: f64, res: Resolution) {
        self.refill(now);
        self.per_unit = rate.max(0.0) / res.per_tick() as f64;
        self.burst = burst.max(1.0);
        self.level = self.level.min(self.burst);
    }

    /// Tokens in the bucket at `now`.
    #[cfg(test)]
    pub fn level(&mut self, now: Time) -> f64 {
        self.refill(now);
        self.level
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use squall_lang::Clock;

    #[test]
    fn burst_then_rate() {
        // 2 tokens per tick, burst 3, one unit per tick.
        let mut b = TokenBucket::new(2.0, 3.0, Resolution::TICKS);
        let t0 = Time::from_units(0);
        assert!(b.take(t0).is_ok());
        assert!(b.take(t0).is_ok());
        assert!(b.take(t0).is_ok());
        // Empty: the next token is half a tick away, rounded up to a unit.
        assert_eq!(b.take(t0), Err(Some(Duration::from_units(1))));
        // One tick later: 2 tokens.
        let t1 = Time::from_units(1);
        assert!(b.take(t1).is_ok());
        assert!(b.take(t1).is_ok());
        assert!(b.take(t1).is_err());
        // Ten ticks idle: capped at the burst.
        assert_eq!(b.level(Time::from_units(11)), 3.0);
    }

    #[test]
    fn rates_below_one_per_tick() {
        // 0.2 per ms at ns resolution: one token every 5 ms.
        let res = Resolution::fine(Clock::Ms);
        let mut b = TokenBucket::new(0.2, 1.0, res);
        assert!(b.take(Time::ZERO).is_ok());
        assert_eq!(b.take(Time::ZERO), Err(Some(res.ticks(5))));
        // 4.9 ms later: 0.98 of a token.
        let t = Time::from_units(4_900_000);
        assert_eq!(b.take(t), Err(Some(Duration::from_units(100_000))));
        assert!(b.take(Time::from_units(5_000_000)).is_ok());
        // Ten calls 5 ms apart all pass; one more at the same time does not.
        for i in 2..12u64 {
            assert!(b.take(Time::from_units(i * 5_000_000)).is_ok(), "call {i}");
        }
        assert!(b.take(Time::from_units(55_000_000)).is_err());
    }

    #[test]
    fn zero_rate_never_refills() {
        let mut b = TokenBucket::new(0.0, 1.0, Resolution::TICKS);
        assert!(b.take(Time::ZERO).is_ok());
        assert_eq!(b.take(Time::from_units(1_000)), Err(None));
    }
}
