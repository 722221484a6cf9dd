//! Netflix concurrency-limits' `Gradient2Limit`
//! (`Netflix/concurrency-limits:concurrency-limits-core/src/main/java/com/netflix/concurrency/limits/limit/Gradient2Limit.java`,
//! commit 78a74b9), with its long average `limit/measurement/ExpAvgMeasurement.java`.
//!
//! The long round trip `long` is the plain mean of the first 10 samples
//! (the warm-up), then an exponential average with factor
//! `2 / (long_window + 1)`. On each sample `(rtt, inflight)` with the
//! estimate `E` (the limit is `trunc(E)`):
//!
//! 1. `long` takes the sample; when `long / rtt > 2` the average is
//!    multiplied by 0.95 (recovery after a long overload), after `long`
//!    was read for this sample;
//! 2. when `inflight < E / 2` nothing more (app-limited);
//! 3. `gradient = clamp(rtt_tolerance x long / rtt, 0.5, 1)`,
//!    `E' = E x gradient + queue_size`,
//!    `E' = E x (1 - smoothing) + E' x smoothing`,
//!    `E = clamp(E', min_limit, max_concurrency)`.
//!
//! Drops are not read: the gradient sees only the round trips. The
//! engine passes an `rtt` of at least 1 unit (the library divides by it).

use squall_lang::Gradient2Spec;

/// `ExpAvgMeasurement(window, 10)`.
#[derive(Debug, Clone)]
struct ExpAvg {
    value: f64,
    sum: f64,
    count: u32,
    factor: f64,
}

/// Samples averaged plainly before the exponential average starts.
const WARMUP: u32 = 10;

impl ExpAvg {
    fn new(window: u32) -> Self {
        ExpAvg {
            value: 0.0,
            sum: 0.0,
            count: 0,
            factor: 2.0 / (f64::from(window) + 1.0),
        }
    }

    fn add(&mut self, x: f64) -> f64 {
        if self.count < WARMUP {
            self.count += 1;
            self.sum += x;
            self.value = self.sum / f64::from(self.count);
        } else {
            self.value = self.value * (1.0 - self.factor) + x * self.factor;
        }
        self.value
    }
}

/// The state of one `Gradient2Limit`.
#[derive(Debug, Clone)]
pub struct Gradient2 {
    estimate: f64,
    long: ExpAvg,
    spec: Gradient2Spec,
}

impl Gradient2 {
    /// A limit starting at `spec.initial_limit`.
    pub fn new(spec: Gradient2Spec) -> Self {
        Gradient2 {
            estimate: f64::from(spec.initial_limit),
            long: ExpAvg::new(spec.long_window),
            spec,
        }
    }

    /// The current limit.
    pub fn limit(&self) -> u32 {
        self.estimate as u32
    }

    /// The estimate before truncation.
    pub fn estimate(&self) -> f64 {
        self.estimate
    }

    /// The long round trip \[units\].
    pub fn long_rtt(&self) -> f64 {
        self.long.value
    }

    /// A sample (`_update`); `rtt` of at least 1 unit.
    pub fn sample(&mut self, rtt: u64, inflight: u32) {
        let e = self.estimate;
        let short = rtt.max(1) as f64;
        let long = self.long.add(short);
        if long / short > 2.0 {
            self.long.value *= 0.95;
        }
        if f64::from(inflight) < e / 2.0 {
            return;
        }
        let s = &self.spec;
        let gradient = (s.rtt_tolerance * long / short).clamp(0.5, 1.0);
        let next = e * gradient + f64::from(s.queue_size);
        let next = e * (1.0 - s.smoothing) + next * s.smoothing;
        self.estimate = next
            .min(f64::from(s.max_concurrency))
            .max(f64::from(s.min_limit));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Gradient2Limit` from `initial` within `[min, max]`.
    fn gradient2(initial: u32, min: u32, max: u32, tolerance: f64) -> Gradient2 {
        Gradient2::new(Gradient2Spec {
            initial_limit: initial,
            min_limit: min,
            max_concurrency: max,
            smoothing: 0.2,
            queue_size: 4,
            long_window: 600,
            rtt_tolerance: tolerance,
        })
    }

    #[test]
    fn steady_round_trips_grow_the_limit_by_smoothing_x_queue_size() {
        // Defaults but min 1: with every rtt equal, long = rtt, gradient =
        // min(1, 1.5) = 1, so E' = E + 4 and E = E + 0.2 x 4 = E + 0.8.
        let mut g = gradient2(20, 1, 200, 1.5);
        for k in 1..=6 {
            g.sample(100, 20);
            assert!((g.estimate() - (20.0 + 0.8 * f64::from(k))).abs() < 1e-9);
        }
        assert_eq!(g.limit(), 24); // 24.8
    }

    #[test]
    fn a_slow_sample_cuts_by_the_smoothed_gradient() {
        // After ten samples of 100 (the warm-up mean: long = 100), E =
        // 20 + 10 x 0.8 = 28. A sample of 300: long = 100 x (1 - 2/601) +
        // 300 x 2/601 = 100.6656; gradient = clamp(1.5 x 100.6656 / 300 =
        // 0.50333, 0.5, 1) = 0.50333; E' = 28 x 0.50333 + 4 = 18.0932;
        // E = 28 x 0.8 + 18.0932 x 0.2 = 26.0186.
        let mut g = gradient2(20, 1, 200, 1.5);
        for _ in 0..10 {
            g.sample(100, 20);
        }
        assert!((g.estimate() - 28.0).abs() < 1e-9);
        g.sample(300, 28);
        let long = 100.0 * (1.0 - 2.0 / 601.0) + 300.0 * 2.0 / 601.0;
        assert!((g.long_rtt() - long).abs() < 1e-9);
        let gradient: f64 = 1.5 * long / 300.0;
        let want = 28.0 * 0.8 + (28.0 * gradient + 4.0) * 0.2;
        assert!((g.estimate() - want).abs() < 1e-9);
        assert!((want - 26.0186).abs() < 1e-4);
        assert_eq!(g.limit(), 26);
        // A very slow sample: the gradient is held at 0.5: E' = 26.0186 x
        // 0.5 + 4, E = 0.8 E + 0.2 E' = 0.9 E + 0.8 = 24.2167.
        g.sample(100_000, 26);
        assert!((g.estimate() - (0.9 * want + 0.8)).abs() < 1e-9);
    }

    #[test]
    fn app_limited_and_the_recovery_of_the_long_average() {
        let mut g = gradient2(20, 1, 200, 1.5);
        // Ten samples of 1000 with inflight 9 < 20 / 2: long = 1000, E
        // unchanged.
        for _ in 0..10 {
            g.sample(1000, 9);
        }
        assert_eq!((g.long_rtt(), g.estimate()), (1000.0, 20.0));
        // A sample of 100: long = 1000 x 599/601 + 100 x 2/601 = 997.005;
        // long / short > 2, so long x 0.95 = 947.155 (after the gradient
        // read 997.005: clamp(1.5 x 9.97) = 1, E = 20 + 0.8 = 20.8).
        g.sample(100, 20);
        let long = 1000.0 * 599.0 / 601.0 + 100.0 * 2.0 / 601.0;
        assert!((g.long_rtt() - long * 0.95).abs() < 1e-9);
        assert!((g.estimate() - 20.8).abs() < 1e-9);
    }

    #[test]
    fn clamped_to_min_limit() {
        // min 20 = initial (the library's defaults), tolerance 1: after
        // 100 (E = 20.8), a sample of 10^6 gives long = the warm-up mean
        // 500 050, gradient 0.50005, E' = 20.8 x 0.50005 + 4 = 14.40,
        // E = 16.64 + 2.88 = 19.52: held at 20.
        let mut g = gradient2(20, 20, 200, 1.0);
        g.sample(100, 20);
        g.sample(1_000_000, 20);
        assert_eq!(g.estimate(), 20.0);
    }
}
