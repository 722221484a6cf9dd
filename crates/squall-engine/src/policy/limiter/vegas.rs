//! Netflix concurrency-limits' `VegasLimit`
//! (`Netflix/concurrency-limits:concurrency-limits-core/src/main/java/com/netflix/concurrency/limits/limit/VegasLimit.java`,
//! commit 78a74b9), after TCP Vegas: the queue a try met is estimated as
//! `queue = ceil(L x (1 - rtt_noload / rtt))` and held between thresholds
//! that grow as log10 of the limit.
//!
//! With `lg(x) = max(1, floor(log10 x))` (`Log10RootIntFunction`), on
//! each sample `(rtt, inflight, dropped)` and the estimate `E` (the limit
//! `L` is `trunc(E)`):
//!
//! 1. `probe_count += 1`; when `jitter x probe_multiplier x E <=
//!    probe_count` the sample is a probe: `rtt_noload = rtt`, the count
//!    starts again and `jitter` is drawn anew, uniform in [0.5, 1); done.
//! 2. A first sample, or one below `rtt_noload`, becomes `rtt_noload`; done.
//! 3. A drop: `E' = E - lg(L)`. Otherwise, when `inflight x 2 < E`,
//!    nothing changes (app-limited). Otherwise, with `alpha = 3 lg(L)`,
//!    `beta = 6 lg(L)`, `threshold = lg(L)`: `queue <= threshold`:
//!    `E' = E + beta`; `queue < alpha`: `E' = E + lg(L)`; `queue > beta`:
//!    `E' = E - lg(L)`; else nothing changes.
//! 4. `E' = clamp(E', 1, max_concurrency)`, then
//!    `E = (1 - smoothing) E + smoothing E'`.
//!
//! The library refuses an `rtt` of 0; the engine passes at least 1 unit.

use squall_lang::VegasSpec;

use crate::rng::Stream;

/// `Log10RootIntFunction` with baseline 0: `max(1, floor(log10 x))`.
pub fn lg(x: u32) -> u32 {
    if x < 10 {
        1
    } else {
        x.ilog10().max(1)
    }
}

/// The state of one `VegasLimit`.
#[derive(Debug, Clone)]
pub struct Vegas {
    estimate: f64,
    rtt_noload: u64,
    spec: VegasSpec,
    probe_count: u32,
    probe_jitter: f64,
}

impl Vegas {
    /// A limit starting at `spec.initial_limit`; the first probe jitter is
    /// drawn from `stream` (the library draws it in its constructor).
    pub fn new(spec: VegasSpec, stream: &mut Stream) -> Self {
        Vegas {
            estimate: f64::from(spec.initial_limit),
            rtt_noload: 0,
            spec,
            probe_count: 0,
            probe_jitter: jitter(stream),
        }
    }

    /// The current limit.
    pub fn limit(&self) -> u32 {
        self.estimate as u32
    }

    /// The estimated limit before truncation.
    pub fn estimate(&self) -> f64 {
        self.estimate
    }

    /// The no-load round trip the queue is measured against \[units\].
    pub fn rtt_noload(&self) -> u64 {
        self.rtt_noload
    }

    /// A sample (`_update`); `rtt` of at least 1 unit.
    pub fn sample(&mut self, rtt: u64, inflight: u32, dropped: bool, stream: &mut Stream) {
        let rtt = rtt.max(1);
        self.probe_count += 1;
        let probe = self.probe_jitter * f64::from(self.spec.probe_multiplier) * self.estimate
            <= f64::from(self.probe_count);
        if probe {
            self.probe_jitter = jitter(stream);
            self.probe_count = 0;
            self.rtt_noload = rtt;
            return;
        }
        if self.rtt_noload == 0 || rtt < self.rtt_noload {
            self.rtt_noload = rtt;
            return;
        }
        let e = self.estimate;
        let l = e as u32;
        let queue = (e * (1.0 - self.rtt_noload as f64 / rtt as f64)).ceil() as i64;
        let step = f64::from(lg(l));
        let next = if dropped {
            e - step
        } else if f64::from(inflight) * 2.0 < e {
            return;
        } else {
            let (alpha, beta, threshold) = (3 * lg(l), 6 * lg(l), lg(l));
            if queue <= i64::from(threshold) {
                e + f64::from(beta)
            } else if queue < i64::from(alpha) {
                e + step
            } else if queue > i64::from(beta) {
                e - step
            } else {
                return;
            }
        };
        let next = next.min(f64::from(self.spec.max_concurrency)).max(1.0);
        self.estimate = (1.0 - self.spec.smoothing) * e + self.spec.smoothing * next;
    }
}

/// `ThreadLocalRandom.nextDouble(0.5, 1)`.
fn jitter(stream: &mut Stream) -> f64 {
    0.5 + 0.5 * stream.next_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `VegasLimit` from `initial` up to `max`.
    fn vegas(initial: u32, max: u32, smoothing: f64, probe: u32, s: &mut Stream) -> Vegas {
        let spec = VegasSpec {
            initial_limit: initial,
            max_concurrency: max,
            smoothing,
            probe_multiplier: probe,
        };
        Vegas::new(spec, s)
    }

    #[test]
    fn log10_root() {
        // max(1, floor(log10 x)): 1 up to 99, 2 from 100, 3 from 1000.
        assert_eq!([lg(0), lg(1), lg(9), lg(10), lg(99)], [1, 1, 1, 1, 1]);
        assert_eq!([lg(100), lg(999), lg(1000), lg(12_345)], [2, 2, 3, 4]);
    }

    /// A Vegas at 20 whose probe never comes in these few samples (its
    /// jitter is at least 0.5: a probe needs 0.5 x 30 x 20 = 300 samples).
    fn at_20() -> (Vegas, Stream) {
        let mut s = Stream::new(1, "vegas test");
        let v = vegas(20, 1000, 1.0, 30, &mut s);
        (v, s)
    }

    #[test]
    fn thresholds_at_a_limit_of_20() {
        // At L = 20, lg = 1: threshold 1, alpha 3, beta 6. rtt_noload = 100.
        let (mut v, mut s) = at_20();
        v.sample(100, 20, false, &mut s); // first sample: rtt_noload = 100
        assert_eq!((v.rtt_noload(), v.limit()), (100, 20));
        // rtt 105: queue = ceil(20 x (1 - 100/105)) = ceil(0.952) = 1 <= 1:
        // E + beta = 26.
        v.sample(105, 20, false, &mut s);
        assert_eq!(v.limit(), 26);
        // At 26 (lg 1): rtt 110: queue = ceil(26 x 10/110 = 2.36) = 3, not
        // < alpha 3, not > beta 6: unchanged.
        v.sample(110, 26, false, &mut s);
        assert_eq!(v.limit(), 26);
        // rtt 108: ceil(26 x 8/108 = 1.93) = 2 < 3: E + 1 = 27.
        v.sample(108, 26, false, &mut s);
        assert_eq!(v.limit(), 27);
        // rtt 200: ceil(27 x 0.5 = 13.5) = 14 > 6: E - 1 = 26.
        v.sample(200, 27, false, &mut s);
        assert_eq!(v.limit(), 26);
        // App-limited: inflight 12, 24 < 26: unchanged whatever the rtt.
        v.sample(1000, 12, false, &mut s);
        assert_eq!(v.limit(), 26);
        // A drop: E - lg = 25, whatever the rtt and inflight.
        v.sample(100, 1, true, &mut s);
        assert_eq!(v.limit(), 25);
        // A faster sample is the new rtt_noload, and changes nothing else.
        v.sample(50, 25, false, &mut s);
        assert_eq!((v.rtt_noload(), v.limit()), (50, 25));
    }

    #[test]
    fn smoothing_moves_part_of_the_way() {
        // smoothing 0.5: from 20, queue 1 (threshold) aims at 26; E = 23.
        let mut s = Stream::new(1, "vegas test");
        let mut v = vegas(20, 1000, 0.5, 30, &mut s);
        v.sample(100, 20, false, &mut s);
        v.sample(105, 20, false, &mut s);
        assert_eq!(v.estimate(), 23.0);
    }

    #[test]
    fn a_probe_resets_rtt_noload() {
        // probe_multiplier 1 at E = 20: a probe comes once jitter x 20 <=
        // count, so by the 20th sample at the latest (jitter < 1), at the
        // 10th at the earliest (jitter >= 0.5). A probe takes its rtt as
        // rtt_noload even when it is slower.
        let mut s = Stream::new(7, "vegas test");
        let mut v = vegas(20, 1000, 1.0, 1, &mut s);
        v.sample(100, 20, false, &mut s);
        let mut probed_at = None;
        for k in 2..=20 {
            v.sample(100 + 10 * k, 1, false, &mut s);
            if v.rtt_noload() != 100 {
                probed_at = Some(k);
                break;
            }
        }
        let k = probed_at.expect("a probe by the 20th sample");
        assert!((10..=20).contains(&k), "probe at sample {k}");
        assert_eq!(v.rtt_noload(), 100 + 10 * k);
    }
}
