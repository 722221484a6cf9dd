//! Random streams.
//!
//! A run has one root seed. Every component that draws random numbers gets its
//! own stream, derived from the root seed and a stable label (for example
//! `source/0`), so adding a component or running variants in parallel never
//! changes another component's draws.
//!
//! [`Mulberry32`] is the 32-bit generator the seed documents use, reproduced
//! bit for bit. [`derive_seed`] mixes a root seed and a label with SplitMix64.

/// The mulberry32 generator: 32 bits of state, uniform floats in `[0, 1)`.
#[derive(Debug, Clone)]
pub struct Mulberry32 {
    a: u32,
}

impl Mulberry32 {
    /// A generator from a 32-bit seed.
    pub fn new(seed: u32) -> Self {
        Mulberry32 { a: seed }
    }

    /// The next raw 32-bit output.
    pub fn next_u32(&mut self) -> u32 {
        self.a = self.a.wrapping_add(0x6d2b_79f5);
        let a = self.a;
        let mut t = (a ^ (a >> 15)).wrapping_mul(1 | a);
        t = t.wrapping_add((t ^ (t >> 7)).wrapping_mul(61 | t)) ^ t;
        t ^ (t >> 14)
    }

    /// The next float in `[0, 1)`: the raw output divided by 2^32.
    pub fn next_f64(&mut self) -> f64 {
        f64::from(self.next_u32()) / 4_294_967_296.0
    }
}

/// One SplitMix64 step.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A child seed from a root seed and a label.
pub fn derive_seed(root: u64, label: &str) -> u64 {
    // FNV-1a over the label, then two SplitMix64 rounds with the root.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in label.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    let mut s = root ^ h;
    splitmix64(&mut s);
    splitmix64(&mut s)
}

/// A stream of uniform floats for one component.
#[derive(Debug, Clone)]
pub struct Stream {
    state: u64,
}

impl Stream {
    /// A stream for `label` under `root`.
    pub fn new(root: u64, label: &str) -> Self {
        Stream {
            state: derive_seed(root, label),
        }
    }

    /// The next float in `[0, 1)` (53 random bits).
    pub fn next_f64(&mut self) -> f64 {
        (splitmix64(&mut self.state) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A Poisson-distributed count with the given mean, by inversion in
    /// chunks of mean at most 30 (exact, and cheap for small means).
    pub fn poisson(&mut self, mean: f64) -> u64 {
        if !mean.is_finite() || mean <= 0.0 {
            return 0;
        }
        let mut left = mean;
        let mut total = 0u64;
        while left > 0.0 {
            let m = left.min(30.0);
            left -= m;
            let u = self.next_f64();
            let mut k = 0u64;
            let mut p = (-m).exp();
            let mut cdf = p;
            while u > cdf && k < 10_000 {
                k += 1;
                p *= m / k as f64;
                cdf += p;
            }
            total += k;
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mulberry32_matches_the_javascript_reference() {
        // Outputs of the documents' JavaScript `uretec` (before the division
        // by 2^32), computed with node for three seeds.
        let cases: [(u32, [u32; 4]); 3] = [
            (0, [1_144_304_738, 1_416_247, 958_946_056, 627_933_444]),
            (1, [2_693_262_067, 11_749_833, 2_265_367_787, 4_213_581_821]),
            (
                20_260_114,
                [1_505_003_285, 1_971_621_857, 3_176_097_869, 3_764_530_313],
            ),
        ];
        for (seed, want) in cases {
            let mut g = Mulberry32::new(seed);
            let got: Vec<u32> = (0..4).map(|_| g.next_u32()).collect();
            assert_eq!(got, want, "seed {seed}");
        }
        let mut g = Mulberry32::new(20_260_114);
        assert_eq!(g.next_f64(), 1_505_003_285.0 / 4_294_967_296.0);
    }

    #[test]
    fn derived_seeds_differ_by_label_and_root() {
        assert_ne!(derive_seed(1, "source/0"), derive_seed(1, "source/1"));
        assert_ne!(derive_seed(1, "source/0"), derive_seed(2, "source/0"));
        assert_eq!(derive_seed(7, "x"), derive_seed(7, "x"));
    }

    #[test]
    fn poisson_mean_is_close() {
        let mut s = Stream::new(42, "test");
        let n = 20_000;
        let total: u64 = (0..n).map(|_| s.poisson(4.0)).sum();
        let mean = total as f64 / n as f64;
        assert!((mean - 4.0).abs() < 0.1, "mean {mean}");
        let total: u64 = (0..2000).map(|_| s.poisson(75.0)).sum();
        let mean = total as f64 / 2000.0;
        assert!((mean - 75.0).abs() < 1.0, "mean {mean}");
    }
}
