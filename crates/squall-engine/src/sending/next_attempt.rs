//! When a pending record may be queued again: `next_attempt_at`.
//!
//! The provider's Retry-After is the one authoritative number, so it wins
//! when present: a number of seconds counts from the answer, an HTTP date
//! is a moment (a date already past means "now"). Without one, full
//! jitter: a uniform point inside the current backoff window, not its
//! edge, so records throttled in the same second do not come back in the
//! same second and rebuild the wave.
//!
//! | attempts so far `n` | window `min(cap, base * 2^(n-1))` (base 500 ms, cap 60 s) |
//! |---------------------|-----------------------------------------------------------|
//! | 1                   | 500 ms                                                    |
//! | 2                   | 1 s                                                       |
//! | 3                   | 2 s                                                       |
//! | 8                   | 60 s (64 s capped)                                        |
//!
//! The wait is `floor(r * window)` for one uniform draw `r` in `[0, 1)`,
//! made only when there is no Retry-After. Everything is in engine units
//! ([`crate::time`]); `next_attempt_at` is a moment like any other, kept
//! in UTC by the log that prints it.

use crate::time::{Duration, Time};

/// A provider's Retry-After, already read into engine time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryAfter {
    /// `Retry-After: 3`: this long after the answer.
    Delay(Duration),
    /// `Retry-After: <HTTP date>`: at this moment.
    At(Time),
}

/// Full jitter with a doubling window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FullJitter {
    /// The first window.
    pub base: Duration,
    /// The largest window.
    pub cap: Duration,
}

impl FullJitter {
    /// The window after `attempts` attempts (1 = after the first):
    /// `min(cap, base * 2^(attempts-1))`.
    pub fn window(self, attempts: u32) -> Duration {
        let doublings = attempts.saturating_sub(1).min(63);
        let w = self.base.units().saturating_mul(1u64 << doublings);
        Duration::from_units(w.min(self.cap.units()))
    }

    /// `floor(r * window)` for a draw `r` in `[0, 1)`.
    pub fn wait(self, attempts: u32, r: f64) -> Duration {
        let w = self.window(attempts).units() as f64;
        Duration::from_units((r.clamp(0.0, 1.0) * w).floor().min(w) as u64)
    }
}

/// `next_attempt_at` for an answer at `now` after `attempts` attempts.
/// `draw` is called (once) only when there is no Retry-After to honour.
pub fn next_attempt_at(
    now: Time,
    attempts: u32,
    retry_after: Option<RetryAfter>,
    jitter: FullJitter,
    draw: impl FnOnce() -> f64,
) -> Time {
    match retry_after {
        Some(RetryAfter::Delay(d)) => now.after(d),
        Some(RetryAfter::At(t)) => t.max(now),
        None => now.after(jitter.wait(attempts, draw())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Milliseconds as units (a resolution of one unit per ms).
    fn ms(n: u64) -> Duration {
        Duration::from_units(n)
    }

    const DOC: FullJitter = FullJitter {
        base: Duration::from_units(500),
        cap: Duration::from_units(60_000),
    };

    #[test]
    fn windows_double_to_the_cap() {
        // 0.5 s, 1 s, 2 s, ... capped at 60 s (the document's comment).
        let windows: Vec<u64> = (1..=9).map(|n| DOC.window(n).units()).collect();
        assert_eq!(
            windows,
            [500, 1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]
        );
        assert_eq!(DOC.window(0), ms(500));
        assert_eq!(DOC.window(u32::MAX), ms(60_000));
    }

    #[test]
    fn full_jitter_is_inside_the_window() {
        assert_eq!(DOC.wait(1, 0.0), ms(0));
        assert_eq!(DOC.wait(1, 0.5), ms(250));
        assert_eq!(DOC.wait(3, 0.999_9), ms(1999));
        assert_eq!(DOC.wait(20, 0.25), ms(15_000));
    }

    #[test]
    fn retry_after_wins_and_draws_nothing() {
        let now = Time::from_units(10_000);
        let no_draw = || -> f64 { unreachable!("no draw with a Retry-After") };
        let d = Some(RetryAfter::Delay(ms(3000)));
        assert_eq!(
            next_attempt_at(now, 1, d, DOC, no_draw),
            Time::from_units(13_000)
        );
        let at = Some(RetryAfter::At(Time::from_units(12_500)));
        assert_eq!(
            next_attempt_at(now, 4, at, DOC, no_draw),
            Time::from_units(12_500)
        );
        // A date already past: now.
        let past = Some(RetryAfter::At(Time::from_units(9_000)));
        assert_eq!(next_attempt_at(now, 1, past, DOC, no_draw), now);
        // No header: jitter, one draw.
        assert_eq!(
            next_attempt_at(now, 2, None, DOC, || 0.5),
            Time::from_units(10_500)
        );
    }
}
