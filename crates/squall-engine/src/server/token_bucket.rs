//! A token bucket: `rate` tokens per tick (below one allowed), at most
//! `burst` tokens, one token per call.
//!
//! The bucket starts full. Its level is an `f64` of tokens, refilled
//! lazily when a call arrives (no event per token): `rate / per_tick`
//! tokens per engine unit since the last call, capped at `burst`. A call
//! that finds less than one token is told how long until there is one
//! (a Retry-After, or the wait of a limiter that waits).
//!
//! A limiter that waits ([`TokenBucket::reserve`]) takes its token at
//! once and lets the level go below zero: the missing tokens are owed,
//! and the call waits until the refill has paid them, so calls waiting
//! for tokens are served in arrival order, one token's time apart, with
//! no event per token and no queue to keep. A call that would wait longer
//! than it may takes nothing and is told its wait.

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

    /// Takes a token at `now` for a call that waits: the wait until the
    /// token is paid for (zero when one is there), or, when that wait
    /// would be longer than `max` (or never ends: a zero rate), the wait
    /// it would have had, taking nothing (`None`: never).
    pub fn reserve(
        &mut self,
        now: Time,
        max: Option<Duration>,
    ) -> Result<Duration, Option<Duration>> {
        self.refill(now);
        let after = self.level - 1.0;
        // The same tolerance as `take`.
        if after >= -1e-9 {
            self.level = after.max(0.0);
            return Ok(Duration::ZERO);
        }
        if self.per_unit <= 0.0 {
            return Err(None);
        }
        let wait = Duration::from_units((-after / self.per_unit).ceil() as u64);
        if max.is_some_and(|m| wait > m) {
            return Err(Some(wait));
        }
        self.level = after;
        Ok(wait)
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

    /// Calls every 5 ticks at a rate of one token per 10 ticks, burst 1:
    /// the first takes the full bucket; call `k` finds `1 - k/2` tokens
    /// owed after its own and waits `5 k` ticks — a wait growing linearly,
    /// by the difference of the two gaps (10 - 5) per call.
    #[test]
    fn a_waiting_limiter_owes_tokens_and_waits_grow_linearly() {
        let mut b = TokenBucket::new(0.1, 1.0, Resolution::TICKS);
        for k in 0..20u64 {
            let t = Time::from_units(6 + 5 * k);
            assert_eq!(
                b.reserve(t, None),
                Ok(Duration::from_units(5 * k)),
                "call {k}"
            );
        }
        // Below the rate (every 20 ticks) nothing waits.
        let mut b = TokenBucket::new(0.1, 1.0, Resolution::TICKS);
        for k in 0..20u64 {
            let t = Time::from_units(6 + 20 * k);
            assert_eq!(b.reserve(t, None), Ok(Duration::ZERO), "call {k}");
        }
    }

    /// With a longest wait of 12 ticks: waits 0, 5, 10; the fourth call
    /// (at 21) would wait 15 and takes nothing, so the fifth (at 26)
    /// waits 10 again, the sixth would wait 15, and so on.
    #[test]
    fn a_call_that_would_wait_too_long_takes_nothing() {
        let mut b = TokenBucket::new(0.1, 1.0, Resolution::TICKS);
        let max = Some(Duration::from_units(12));
        let got: Vec<Result<u64, Option<u64>>> = (0..7u64)
            .map(|k| {
                b.reserve(Time::from_units(6 + 5 * k), max)
                    .map(Duration::units)
                    .map_err(|e| e.map(Duration::units))
            })
            .collect();
        assert_eq!(
            got,
            vec![
                Ok(0),
                Ok(5),
                Ok(10),
                Err(Some(15)),
                Ok(10),
                Err(Some(15)),
                Ok(10)
            ]
        );
        let mut z = TokenBucket::new(0.0, 1.0, Resolution::TICKS);
        assert_eq!(z.reserve(Time::ZERO, None), Ok(Duration::ZERO));
        assert_eq!(z.reserve(Time::ZERO, None), Err(None));
    }

    #[test]
    fn zero_rate_never_refills() {
        let mut b = TokenBucket::new(0.0, 1.0, Resolution::TICKS);
        assert!(b.take(Time::ZERO).is_ok());
        assert_eq!(b.take(Time::from_units(1_000)), Err(None));
    }
}
