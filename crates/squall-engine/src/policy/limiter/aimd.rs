//! Netflix concurrency-limits' `AIMDLimit`
//! (`Netflix/concurrency-limits:concurrency-limits-core/src/main/java/com/netflix/concurrency/limits/limit/AIMDLimit.java`,
//! commit 78a74b9): loss-based, an additive increase while tries succeed
//! and a multiplicative decrease on a drop.
//!
//! On each sample `(rtt, inflight, dropped)` with the current limit `L`:
//!
//! * a drop, or `rtt > timeout`: `L = trunc(L x backoff_ratio)`;
//! * else, when the try found the limit at least half used
//!   (`inflight x 2 >= L`, `inflight` counting the try itself when it was
//!   sent): `L = L + 1`;
//! * else `L` stays;
//!
//! then `L` is clamped to `[min_limit, max_limit]`. The initial limit is
//! taken as written until the first sample.

use squall_lang::AimdSpec;

/// The state of one `AIMDLimit`.
#[derive(Debug, Clone)]
pub struct Aimd {
    limit: u32,
    /// Its settings, `timeout` (a round trip longer counts as a drop) in
    /// engine units.
    spec: AimdSpec,
}

impl Aimd {
    /// A limit starting at `spec.initial_limit`, within `[min_limit,
    /// max_limit]` after its first sample, `spec.timeout` in engine units.
    pub fn new(spec: AimdSpec) -> Self {
        Aimd {
            limit: spec.initial_limit,
            spec,
        }
    }

    /// The current limit.
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// A sample: a try that took `rtt` units, sent when `inflight` tries
    /// (itself included) were out, `dropped` or not (`_update`).
    pub fn sample(&mut self, rtt: u64, inflight: u32, dropped: bool) {
        let (l, s) = (self.limit, &self.spec);
        let next = if dropped || rtt > s.timeout {
            // Java's `(int) (currentLimit * backoffRatio)`: truncation.
            (f64::from(l) * s.backoff_ratio) as u32
        } else if u64::from(inflight) * 2 >= u64::from(l) {
            l.saturating_add(1)
        } else {
            l
        };
        self.limit = next.max(s.min_limit).min(s.max_limit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `AIMDLimit` from `initial` within `[min, max]`.
    fn aimd(initial: u32, min: u32, max: u32, backoff_ratio: f64, timeout: u64) -> Aimd {
        Aimd::new(AimdSpec {
            initial_limit: initial,
            min_limit: min,
            max_limit: max,
            backoff_ratio,
            timeout,
        })
    }

    #[test]
    fn additive_increase_when_half_used_multiplicative_decrease_on_drop() {
        // From 20 (min 1, max 200, ratio 0.9, timeout 100 units), worked
        // by the rule in the module doc:
        let mut a = aimd(20, 1, 200, 0.9, 100);
        a.sample(10, 10, false); // 10 x 2 >= 20: 21
        assert_eq!(a.limit(), 21);
        a.sample(10, 10, false); // 20 < 21: stays 21
        assert_eq!(a.limit(), 21);
        a.sample(10, 11, true); // drop: trunc(21 x 0.9 = 18.9) = 18
        assert_eq!(a.limit(), 18);
        a.sample(101, 18, false); // rtt 101 > 100 is a drop: trunc(16.2) = 16
        assert_eq!(a.limit(), 16);
        a.sample(100, 8, false); // rtt = timeout is no drop; 16 >= 16: 17
        assert_eq!(a.limit(), 17);
        // Ten drops in a row: 17 -> 15 -> 13 -> 11 -> 9 -> 8 -> 7 -> 6 ->
        // 5 -> 4 -> 3 (each trunc(L x 0.9)).
        for want in [15, 13, 11, 9, 8, 7, 6, 5, 4, 3] {
            a.sample(1, 1, true);
            assert_eq!(a.limit(), want);
        }
        // trunc(1 x 0.9) = 0 is held at min_limit 1.
        for _ in 0..5 {
            a.sample(1, 1, true);
        }
        assert_eq!(a.limit(), 1);
    }

    #[test]
    fn clamped_to_min_and_max() {
        // The library's defaults: min 20 = initial, so a drop at 20 stays 20.
        let mut a = aimd(20, 20, 200, 0.9, 5_000);
        a.sample(1, 20, true);
        assert_eq!(a.limit(), 20);
        let mut a = aimd(200, 20, 200, 0.9, 5_000);
        a.sample(1, 200, false); // 201 held at 200
        assert_eq!(a.limit(), 200);
    }
}
