//! Random streams.
//!
//! A run has one root seed. Every component that draws random numbers gets its
//! own stream, derived from the root seed and a stable label (for example
//! `source/0`), so adding a component or running variants in parallel never
//! changes another component's draws.
//!
//! [`Mulberry32`] is the 32-bit generator the seed documents use, reproduced
//! bit for bit. [`derive_seed`] mixes a root seed and a label with SplitMix64.
//! A [`Stream`] also draws standard normals and exponentials by the ziggurat
//! method (`rng/ziggurat.rs`).

#[cfg(test)]
mod sampling_tests;
mod ziggurat;

use ziggurat::{layer, unit, EXP, EXP_R, NORMAL, NORMAL_R};

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

pub use squall_lang::seed::{derive_seed, splitmix64};

/// A stream of uniform floats for one component.
#[derive(Debug, Clone)]
pub struct Stream {
    state: u64,
}

/// A key mixed with a number into a new key: one SplitMix64 round over
/// the key and the number spread by the golden ratio. Common random
/// numbers (`draws common`) key a request by its source and its place among
/// that source's requests, and a call by its caller's call and its try.
#[inline]
pub fn mix_key(key: u64, n: u64) -> u64 {
    let mut s = key ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    splitmix64(&mut s)
}

/// What a keyed draw is for: each purpose of one call draws from a stream
/// of its own ([`Stream::keyed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// A call's service time at its node.
    Service,
    /// A call's draw against the error share of fault `k` (the fault's
    /// index in the model).
    Fault(usize),
    /// The jittered backoff before a call's next try downstream.
    Jitter,
    /// A call's `latency + D jitter J` of fault `k`: at its node, or on
    /// the link it is sent over.
    Delay(usize),
    /// A call's `answer latency + D jitter J` of fault `k`, on its way back.
    AnswerDelay(usize),
    /// A try's steady latency on the link it is sent over (`link a -> b {
    /// latency ... }`).
    LinkRequest,
    /// An answer's steady latency on the link back (`answer latency ...`).
    LinkAnswer,
    /// The versioned item a call writes (`optimistic items N`).
    Item,
}

impl Stream {
    /// A stream for `label` under `root`.
    pub fn new(root: u64, label: &str) -> Self {
        Stream {
            state: derive_seed(root, label),
        }
    }

    /// The stream of call key `key` for `purpose`: the same key draws the
    /// same numbers in every run, whatever else the run drew before.
    #[inline]
    pub fn keyed(key: u64, purpose: Purpose) -> Self {
        let n = match purpose {
            Purpose::Service => 1,
            Purpose::Jitter => 2,
            // After every fault's: a model's faults number fewer than
            // 2^63, so no fault's purpose takes this one's value.
            Purpose::Item => u64::MAX,
            Purpose::Fault(k) => 3 + k as u64,
            // Above every fault's (fewer than 2^61 of them) and apart from
            // each other; the link's own two just under `Item`.
            Purpose::Delay(k) => (1 << 62) + k as u64,
            Purpose::AnswerDelay(k) => (1 << 62) + (1 << 61) + k as u64,
            Purpose::LinkRequest => u64::MAX - 2,
            Purpose::LinkAnswer => u64::MAX - 1,
        };
        Stream {
            state: mix_key(key, n),
        }
    }

    /// The next float in `[0, 1)` (53 random bits).
    pub fn next_f64(&mut self) -> f64 {
        (splitmix64(&mut self.state) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A standard normal draw (mean 0, variance 1) by the ziggurat: one
    /// 64-bit word in about 99 % of draws, more when the word's point falls
    /// outside its layer's rectangle (a wedge or the tail).
    #[inline]
    pub fn normal(&mut self) -> f64 {
        loop {
            let bits = splitmix64(&mut self.state);
            let i = layer(bits);
            // A point across the whole layer, both sides of 0.
            let x = (2.0 * unit(bits) - 1.0) * NORMAL.x[i];
            if x.abs() < NORMAL.x[i + 1] {
                return x;
            }
            if let Some(x) = self.normal_edge(i, x) {
                return x;
            }
        }
    }

    /// A normal draw's point outside its layer's rectangle: the tail
    /// beyond `R` (base layer), or accepted in the wedge under the density.
    #[cold]
    fn normal_edge(&mut self, i: usize, x: f64) -> Option<f64> {
        if i == 0 {
            // Marsaglia's tail method: `R + a` with `a` exponential of
            // rate R, kept with probability exp(-a^2 / 2).
            loop {
                let a = -(1.0 - self.next_f64()).ln() / NORMAL_R;
                let b = -(1.0 - self.next_f64()).ln();
                if 2.0 * b >= a * a {
                    return Some((NORMAL_R + a).copysign(x));
                }
            }
        }
        let y = NORMAL.f[i] + (NORMAL.f[i + 1] - NORMAL.f[i]) * self.next_f64();
        (y < (-0.5 * x * x).exp()).then_some(x)
    }

    /// An exponential draw of mean 1 by the ziggurat, as [`Stream::normal`].
    #[inline]
    pub fn exponential(&mut self) -> f64 {
        let mut base = 0.0;
        loop {
            let bits = splitmix64(&mut self.state);
            let i = layer(bits);
            let x = unit(bits) * EXP.x[i];
            if x < EXP.x[i + 1] {
                return base + x;
            }
            if i == 0 {
                // Beyond R the exponential is R plus an exponential (it has
                // no memory).
                base += EXP_R;
            } else if self.exp_wedge(i, x) {
                return base + x;
            }
        }
    }

    /// Whether a point `x` in layer `i`'s wedge lies under the density.
    #[cold]
    fn exp_wedge(&mut self, i: usize, x: f64) -> bool {
        EXP.f[i] + (EXP.f[i + 1] - EXP.f[i]) * self.next_f64() < (-x).exp()
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

/// A named generator of a run: mulberry32 or a SplitMix64 stream.
#[derive(Debug, Clone)]
pub enum Generator {
    /// mulberry32, bit for bit as the seed documents' JavaScript.
    Mulberry32(Mulberry32),
    /// A SplitMix64 stream (squall's default).
    SplitMix(Stream),
}

impl Generator {
    /// The generator a model's [`squall_lang::RngSpec`] describes, in a run
    /// whose root seed is `root`. A spec without an explicit seed derives
    /// one from the root and its name (`rng/<name>`).
    pub fn from_spec(spec: &squall_lang::RngSpec, root: u64) -> Self {
        let seed = spec
            .seed
            .unwrap_or_else(|| derive_seed(root, &format!("rng/{}", spec.name)));
        match spec.algorithm {
            // mulberry32 keeps the low 32 bits of the seed.
            squall_lang::RngAlgorithm::Mulberry32 => {
                Generator::Mulberry32(Mulberry32::new(seed as u32))
            }
            squall_lang::RngAlgorithm::SplitMix64 => Generator::SplitMix(Stream { state: seed }),
        }
    }

    /// The default generator of a run (`rng/default`).
    pub fn default_for(root: u64) -> Self {
        Generator::SplitMix(Stream::new(root, "rng/default"))
    }

    /// The next uniform float in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        match self {
            Generator::Mulberry32(g) => g.next_f64(),
            Generator::SplitMix(s) => s.next_f64(),
        }
    }
}
