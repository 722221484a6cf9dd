//! The libraries' own backoffs, each as its source computes it.
//!
//! Retry `n` is 1-based (the wait before the first retry is `n = 1`). Each
//! function takes the uniform draw `r` in `[0, 1)` it needs (exactly one
//! per retry for every kind here, drawn when the retry is decided) and
//! returns a wait in the caller's units as a float; the caller rounds.
//!
//! | kind             | wait before retry `n`                                              | source |
//! |------------------|--------------------------------------------------------------------|--------|
//! | `grpc`           | `min(initial · mult^(n−1), max) · (0.8 + 0.4r)`                     | gRFC A6 (2024 text), grpc-go `stream.go` |
//! | `envoy`          | `floor(r · b_n)`, `b_1 = base`, `b_{n+1} = 2 b_n`, or `max` once `b_n > max / 2` | `backoff_strategy.cc` (current code) |
//! | `envoy_docs`     | `r · min((2^n − 1) · base, max)`                                    | `router_filter.rst` (and the old code) |
//! | `polly`          | decorrelated jitter V2 (below), at most `max_delay`                 | Polly `RetryHelper.DecorrelatedJitterBackoffV2` |
//! | `aws`            | `r · min(base · 2^(n−1), cap)`                                      | botocore `standard.py` (base 1 s), Java v2/JS v3 (base 100 ms), cap 20 s |
//!
//! Where the sources disagree (POLICIES.md §1.8): squall's `envoy` is the
//! code Envoy runs today (first retry 0–24 ms, second 0–49, third 0–99 …
//! with base 25 ms, max 250 ms); the documented `(2^n − 1)` range is
//! `envoy_docs`. `grpc` is the 2024 A6 text (±20 %), not the 2017 full
//! jitter (that is the plain `full_jitter` backoff). Polly's
//! "decorrelated jitter" is V2, not the AWS blog's `min(cap, U(base,
//! 3·prev))` (that is the plain `decorrelated` backoff).

/// gRPC: `min(initial · multiplier^(n−1), max) · (0.8 + 0.4r)`; `n` counts
/// retries since the last pushback (a pushback resets it to 1).
pub fn grpc(initial: f64, max: f64, multiplier: f64, n: u32, r: f64) -> f64 {
    let exp = n.saturating_sub(1).min(1024) as i32;
    (initial * multiplier.powi(exp)).min(max) * (0.8 + 0.4 * r)
}

/// Which reading of Envoy's full jitter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvoyReading {
    /// `JitteredExponentialBackOffStrategy` as Envoy runs it today.
    Code,
    /// The router filter's documentation: `[0, (2^n − 1) · base)`.
    Docs,
}

/// The bound of Envoy's `n`-th interval under the current code: `base`,
/// doubled after each retry unless doubling would pass `max` (then `max`).
pub fn envoy_bound(base: u64, max: u64, n: u32) -> u64 {
    let mut next = base.max(1);
    for _ in 1..n {
        next = if next > max / 2 { max } else { next * 2 };
    }
    next
}

/// Envoy's wait before retry `n` \[whole units, as Envoy's milliseconds\].
pub fn envoy(base: u64, max: u64, n: u32, r: f64, reading: EnvoyReading) -> u64 {
    let bound = match reading {
        EnvoyReading::Code => envoy_bound(base, max, n),
        EnvoyReading::Docs => {
            let m = (1u64 << n.min(62)) - 1;
            m.saturating_mul(base).min(max)
        }
    };
    // `random() % bound`, then at most `max`.
    ((r * bound as f64) as u64)
        .min(bound.saturating_sub(1))
        .min(max)
}

/// Polly's decorrelated jitter V2: the state between retries of one loop.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PollyJitter {
    prev: f64,
}

/// Polly's scaling: medians fall near `d, 2d, 4d, …`.
const RP_SCALING: f64 = 1.0 / 1.4;
/// Polly's `pFactor`.
const P_FACTOR: f64 = 4.0;

impl PollyJitter {
    /// The state after a retry whose formula value was `prev` (0 before
    /// the first retry).
    pub fn resume(prev: f64) -> Self {
        PollyJitter { prev }
    }

    /// The formula's value at the last retry (0 before the first).
    pub fn last(&self) -> f64 {
        self.prev
    }

    /// The wait before retry `n` with median delay `d`:
    /// `t = (n − 1) + r; next = 2^t · tanh(sqrt(4t)); wait = (next − prev) / 1.4 · d`.
    pub fn wait(&mut self, d: f64, n: u32, r: f64) -> f64 {
        let t = f64::from(n.saturating_sub(1)) + r;
        let next = 2f64.powf(t) * (P_FACTOR * t).sqrt().tanh();
        if next.is_infinite() {
            self.prev = next;
            return f64::MAX;
        }
        let w = (next - self.prev) * RP_SCALING * d;
        self.prev = next;
        w
    }
}

/// AWS standard mode: `r · min(base · 2^(n−1), cap)`.
pub fn aws(base: f64, cap: f64, n: u32, r: f64) -> f64 {
    let exp = n.saturating_sub(1).min(1024) as i32;
    r * (base * 2f64.powi(exp)).min(cap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grpc_is_the_capped_exponential_within_twenty_percent() {
        // initial 100, x2, max 1000: bounds 100, 200, 400, 800, 1000, 1000.
        let want = [100.0, 200.0, 400.0, 800.0, 1000.0, 1000.0];
        for (i, e) in want.into_iter().enumerate() {
            let n = i as u32 + 1;
            assert_eq!(grpc(100.0, 1000.0, 2.0, n, 0.0), e * 0.8);
            assert_eq!(grpc(100.0, 1000.0, 2.0, n, 0.5), e);
            // r -> 1: just under 1.2 x; above max is allowed.
            assert!(grpc(100.0, 1000.0, 2.0, n, 0.999_999) < e * 1.2);
        }
    }

    #[test]
    fn envoy_code_doubles_the_range_and_the_docs_range_is_two_to_the_n_minus_one() {
        // base 25 ms, max 250 ms. Code: 25, 50, 100, 200, then 250
        // (200 > 125, so the next is max), 250.
        let code: Vec<u64> = (1..=6).map(|n| envoy_bound(25, 250, n)).collect();
        assert_eq!(code, [25, 50, 100, 200, 250, 250]);
        // The largest wait is bound - 1 (random % bound): 24, 49, 99 ms.
        let top: Vec<u64> = (1..=3)
            .map(|n| envoy(25, 250, n, 0.999_999, EnvoyReading::Code))
            .collect();
        assert_eq!(top, [24, 49, 99]);
        // Docs: (2^n - 1) x 25 = 25, 75, 175, then capped at 250: 0-24,
        // 0-74, 0-174 ms as router_filter.rst says.
        let docs: Vec<u64> = (1..=4)
            .map(|n| envoy(25, 250, n, 0.999_999, EnvoyReading::Docs))
            .collect();
        assert_eq!(docs, [24, 74, 174, 249]);
        assert_eq!(envoy(25, 250, 3, 0.5, EnvoyReading::Code), 50);
    }

    #[test]
    fn polly_v2_from_its_formula() {
        // First retry with r = 0.5: t = 0.5, next = 2^0.5 tanh(sqrt 2),
        // wait = next / 1.4 x d.
        let d = 1000.0;
        let mut j = PollyJitter::default();
        let next1 = 2f64.sqrt() * 2f64.sqrt().tanh();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9 * b.abs().max(1.0);
        assert!(close(j.wait(d, 1, 0.5), next1 / 1.4 * d));
        // Second with r = 0.5: t = 1.5, wait = (next2 - next1) / 1.4 x d.
        let next2 = 2f64.powf(1.5) * 6f64.sqrt().tanh();
        assert!(close(j.wait(d, 2, 0.5), (next2 - next1) / 1.4 * d));
    }

    #[test]
    fn polly_v2_waits_add_up_to_the_last_formula_value() {
        // The waits telescope: after n retries the total is next_n / 1.4 x d,
        // with next_n = 2^t tanh(sqrt(4t)), t = (n - 1) + r_n; so the total
        // roughly doubles per retry whatever the earlier draws were.
        let mut j = PollyJitter::default();
        let draws = [0.9, 0.1, 0.7, 0.3, 0.5];
        let mut total = 0.0;
        for (i, r) in draws.into_iter().enumerate() {
            total += j.wait(1.0, i as u32 + 1, r);
            let t = i as f64 + r;
            let want = 2f64.powf(t) * (4.0 * t).sqrt().tanh() / 1.4;
            assert!((total - want).abs() < 1e-9, "after retry {}", i + 1);
        }
    }

    #[test]
    fn aws_full_jitter_caps_at_twenty_seconds() {
        // botocore: base 1 s, cap 20 s (in ms): bounds 1, 2, 4, 8, 16, 20 s.
        let bounds: Vec<f64> = (1..=6).map(|n| aws(1000.0, 20_000.0, n, 1.0)).collect();
        assert_eq!(bounds, [1000.0, 2000.0, 4000.0, 8000.0, 16_000.0, 20_000.0]);
        assert_eq!(aws(100.0, 20_000.0, 3, 0.25), 100.0);
    }
}
