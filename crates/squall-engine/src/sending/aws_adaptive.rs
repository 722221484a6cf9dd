//! The AWS SDKs' adaptive retry mode: a client-side rate limiter whose rate
//! follows CUBIC (botocore `retries/adaptive.py`, `throttling.py`,
//! `bucket.py`; the JS v3 `DefaultRateLimiter` has the same constants).
//!
//! Three pieces, each as botocore has it:
//!
//! * **Measured send rate** ([`RateClocker`]): answers are counted in
//!   half-second buckets; when an answer falls in a later bucket than the
//!   last, `measured = 0.8 * count / (bucket - last_bucket) + 0.2 * measured`
//!   (the answer that opens the bucket is in `count`).
//! * **CUBIC** ([`Cubic`]): on a throttle, `w_max = rate`,
//!   `k = cbrt(w_max * (1 - beta) / C)`, `last_fail = now`, and the new rate
//!   is `beta * w_max`; on any other answer the rate is
//!   `C * (now - last_fail - k)^3 + w_max`. C = 0.4, beta = 0.7; the
//!   curve starts at `w_max = 0.5` at time zero.
//! * **The limiter** ([`AwsAdaptive`]): off until the first throttle (no
//!   gating at all); on a throttle the rate CUBIC starts from is the
//!   measured rate the first time and `min(measured, fill rate)` after;
//!   either way the bucket's fill rate becomes
//!   `max(0.5, min(new rate, 2 * measured))`.
//!
//! Time is in seconds, rates per second: C is a constant in those units.
//! Unlike AIMD, the adaptive mode reacts to every answer, not to a
//! window's ratio: that is the library's rule, kept as it is.

/// CUBIC's scaling constant \[per s^3\].
pub const C: f64 = 0.4;
/// CUBIC's multiplicative decrease.
pub const BETA: f64 = 0.7;
/// The lowest fill rate \[per s\].
pub const MIN_FILL_RATE: f64 = 0.5;
/// Weight of the newest bucket in the measured rate.
pub const SMOOTHING: f64 = 0.8;
/// Width of a measuring bucket \[s\].
pub const BUCKET: f64 = 0.5;

/// botocore's `RateClocker`: the measured send rate.
#[derive(Debug, Clone, PartialEq)]
pub struct RateClocker {
    count: u64,
    last_bucket: f64,
    measured: f64,
}

impl RateClocker {
    /// A clocker started at `now` \[s\].
    pub fn new(now: f64) -> Self {
        RateClocker {
            count: 0,
            last_bucket: (now / BUCKET).floor() * BUCKET,
            measured: 0.0,
        }
    }

    /// Counts one answer at `now` and returns the measured rate.
    pub fn record(&mut self, now: f64) -> f64 {
        let bucket = (now / BUCKET).floor() * BUCKET;
        self.count += 1;
        if bucket > self.last_bucket {
            let current = self.count as f64 / (bucket - self.last_bucket);
            self.measured = current * SMOOTHING + self.measured * (1.0 - SMOOTHING);
            self.count = 0;
            self.last_bucket = bucket;
        }
        self.measured
    }
}

/// botocore's `CubicCalculator`.
#[derive(Debug, Clone, PartialEq)]
pub struct Cubic {
    w_max: f64,
    k: f64,
    last_fail: f64,
}

impl Cubic {
    /// The curve botocore starts with: `w_max = 0.5` failing at `now`.
    pub fn new(now: f64) -> Self {
        let w_max = 0.5;
        Cubic {
            w_max,
            k: Self::zero_point(w_max),
            last_fail: now,
        }
    }

    fn zero_point(w_max: f64) -> f64 {
        (w_max * (1.0 - BETA) / C).cbrt()
    }

    /// A throttle at `now` while sending at `rate`: the new rate.
    pub fn error_received(&mut self, rate: f64, now: f64) -> f64 {
        self.w_max = rate;
        self.k = Self::zero_point(rate);
        self.last_fail = now;
        rate * BETA
    }

    /// Any other answer at `now`: the new rate.
    pub fn success_received(&self, now: f64) -> f64 {
        C * (now - self.last_fail - self.k).powi(3) + self.w_max
    }
}

/// The adaptive mode's limiter state.
#[derive(Debug, Clone, PartialEq)]
pub struct AwsAdaptive {
    clocker: RateClocker,
    cubic: Cubic,
    enabled: bool,
    fill_rate: f64,
}

impl AwsAdaptive {
    /// A limiter started at `now` \[s\], not yet enabled.
    pub fn new(now: f64) -> Self {
        AwsAdaptive {
            clocker: RateClocker::new(now),
            cubic: Cubic::new(now),
            enabled: false,
            fill_rate: MIN_FILL_RATE,
        }
    }

    /// The rate every attempt is gated at \[per s\], or `None` before the
    /// first throttle (not gated).
    pub fn rate(&self) -> Option<f64> {
        self.enabled.then_some(self.fill_rate)
    }

    /// The bucket's capacity: `max(rate, 1)` tokens.
    pub fn capacity(&self) -> f64 {
        self.fill_rate.max(1.0)
    }

    /// Handles an answer at `now` \[s\].
    pub fn on_response(&mut self, now: f64, throttled: bool) {
        let measured = self.clocker.record(now);
        let new_rate = if throttled {
            let from = if self.enabled {
                measured.min(self.fill_rate)
            } else {
                measured
            };
            self.enabled = true;
            self.cubic.error_received(from, now)
        } else {
            self.cubic.success_received(now)
        };
        self.fill_rate = new_rate.min(2.0 * measured).max(MIN_FILL_RATE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9, "{a} != {b}");
    }

    #[test]
    fn cubic_by_hand() {
        // w_max 10: k = cbrt(10 * 0.3 / 0.4) = cbrt(7.5).
        let mut c = Cubic::new(0.0);
        close(c.error_received(10.0, 5.0), 7.0);
        let k = 7.5f64.cbrt();
        close(k, 1.957_433_820_096_7);
        // At the failure the curve is back at beta * w_max: 10 - 0.4 * 7.5.
        close(c.success_received(5.0), 7.0);
        // At k it reaches w_max again, then grows as 0.4 t^3.
        close(c.success_received(5.0 + k), 10.0);
        close(c.success_received(5.0 + k + 1.0), 10.4);
        close(c.success_received(5.0 + k + 2.0), 13.2);
        // The starting curve: w_max 0.5, k = cbrt(0.375).
        let s = Cubic::new(0.0);
        close(s.success_received(0.0), 0.35);
        close(s.success_received(0.375f64.cbrt()), 0.5);
    }

    #[test]
    fn measured_rate_by_hand() {
        let mut r = RateClocker::new(0.0);
        // Two answers in bucket [0, 0.5): nothing measured yet.
        assert_eq!(r.record(0.1), 0.0);
        assert_eq!(r.record(0.2), 0.0);
        // The third opens [0.5, 1): 3 answers / 0.5 s = 6, * 0.8 = 4.8.
        close(r.record(0.6), 4.8);
        // Next at 1.7 opens [1.5, 2): 1 / 1.0 s = 1; 0.8 + 0.2 * 4.8 = 1.76.
        close(r.record(1.7), 1.76);
        // Same bucket: unchanged.
        close(r.record(1.9), 1.76);
    }

    #[test]
    fn limiter_by_hand() {
        let mut a = AwsAdaptive::new(0.0);
        // Clean answers do not enable it.
        a.on_response(0.1, false);
        a.on_response(0.2, false);
        assert_eq!(a.rate(), None);
        // The first throttle at 0.6: measured 4.8 (as above); CUBIC from
        // 4.8 gives 0.7 * 4.8 = 3.36; min(3.36, 2 * 4.8) = 3.36.
        a.on_response(0.6, true);
        close(a.rate().unwrap(), 3.36);
        close(a.capacity(), 3.36);
        // A clean answer at 1.7: measured 1.76; CUBIC: w_max 4.8,
        // k = cbrt(4.8 * 0.3 / 0.4) = cbrt(3.6); rate = 0.4 (1.1 - k)^3 + 4.8;
        // capped at 2 * 1.76 = 3.52.
        a.on_response(1.7, false);
        let k = 3.6f64.cbrt();
        let cubic = 0.4 * (1.1 - k).powi(3) + 4.8;
        close(a.rate().unwrap(), cubic.min(3.52));
        // A throttle at 1.9 (same bucket, measured still 1.76): from
        // min(1.76, fill rate) = 1.76, so 0.7 * 1.76 = 1.232.
        a.on_response(1.9, true);
        close(a.rate().unwrap(), 1.232);
        // Never below the minimum fill rate, capacity at least one token.
        let mut low = AwsAdaptive::new(0.0);
        low.on_response(0.1, true);
        assert_eq!(low.rate(), Some(MIN_FILL_RATE));
        assert_eq!(low.capacity(), 1.0);
    }
}
