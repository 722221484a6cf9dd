//! Normal and exponential draws by the ziggurat method (Marsaglia & Tsang,
//! "The Ziggurat Method for Generating Random Variables", J. Stat. Software
//! 5(8), 2000), in the form Doornik gives ("An Improved Ziggurat Method to
//! Generate Normal Random Samples", 2005): 256 layers of equal area, the
//! layer chosen by the low 8 bits of one 64-bit word and the point inside it
//! by the word's top 53 bits, so the two never share a bit.
//!
//! About 99 % of draws end on the first word with a multiplication and a
//! comparison; the rest test a wedge against the density (one `exp`) or
//! fall in the base layer's tail (Marsaglia's tail method, two `ln`).
//!
//! The layer tables are `const`: built at compile time by the `const fn`s
//! below from the two constants of each distribution (the base layer's
//! right edge `R` and the layers' common area `V`), with `exp`, `ln` and
//! `sqrt` written out in basic arithmetic, which IEEE 754 rounds the same on
//! every machine. No state but the caller's stream: draws are a function of
//! the stream alone, whatever the thread.

/// The number of layers.
const LAYERS: usize = 256;

/// A distribution's layers: `x[i]` the right edge of layer `i` (`x[0]` the
/// base layer's width were its tail a rectangle, `x[1] = R`, `x[256] = 0`),
/// `f[i]` the (unnormalised) density at `x[i]`.
pub(super) struct Layers {
    pub(super) x: [f64; LAYERS + 1],
    pub(super) f: [f64; LAYERS + 1],
}

/// The normal's base edge and layer area for 256 layers, density
/// `exp(-x^2 / 2)` (Marsaglia & Tsang 2000, table for 256 layers; Doornik
/// 2005).
pub(super) const NORMAL_R: f64 = 3.654_152_885_361_009;
const NORMAL_V: f64 = 0.004_928_673_233_99;

/// The exponential's, density `exp(-x)` (Marsaglia & Tsang 2000).
pub(super) const EXP_R: f64 = 7.697_117_470_131_05;
const EXP_V: f64 = 0.003_949_659_822_581_557;

/// The normal's layers.
pub(super) const NORMAL: Layers = normal_layers();
/// The exponential's layers.
pub(super) const EXP: Layers = exp_layers();

/// Each layer's top edge from the one below: the layer from `x[i]` to
/// `x[i+1]` has area `V`, so `f(x[i+1]) = V / x[i] + f(x[i])`.
const fn normal_layers() -> Layers {
    let mut x = [0.0; LAYERS + 1];
    let mut f = [0.0; LAYERS + 1];
    x[0] = NORMAL_V / exp(-0.5 * NORMAL_R * NORMAL_R);
    x[1] = NORMAL_R;
    let mut i = 2;
    while i < LAYERS {
        let below = x[i - 1];
        x[i] = sqrt(-2.0 * ln(NORMAL_V / below + exp(-0.5 * below * below)));
        i += 1;
    }
    let mut i = 0;
    while i <= LAYERS {
        f[i] = exp(-0.5 * x[i] * x[i]);
        i += 1;
    }
    Layers { x, f }
}

/// As [`normal_layers`] for `exp(-x)`.
const fn exp_layers() -> Layers {
    let mut x = [0.0; LAYERS + 1];
    let mut f = [0.0; LAYERS + 1];
    x[0] = EXP_V / exp(-EXP_R);
    x[1] = EXP_R;
    let mut i = 2;
    while i < LAYERS {
        let below = x[i - 1];
        x[i] = -ln(EXP_V / below + exp(-below));
        i += 1;
    }
    let mut i = 0;
    while i <= LAYERS {
        f[i] = exp(-x[i]);
        i += 1;
    }
    Layers { x, f }
}

/// The layer a word picks: its low 8 bits.
#[inline(always)]
pub(super) fn layer(bits: u64) -> usize {
    (bits & 0xff) as usize
}

/// The word's top 53 bits as a float in `[0, 1)`.
#[inline(always)]
pub(super) fn unit(bits: u64) -> f64 {
    (bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

const LN_2: f64 = std::f64::consts::LN_2;

/// `2^k` for `k` in the normal exponent range.
const fn pow2(k: i64) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `e^x` for `x` in about `[-700, 700]`: `x = k ln 2 + r` with `|r| < ln 2`,
/// then Taylor's series of `e^r` to 30 terms (the last below 1e-30).
const fn exp(x: f64) -> f64 {
    let k = (x / LN_2) as i64;
    let r = x - k as f64 * LN_2;
    let mut sum = 1.0;
    let mut term = 1.0;
    let mut n = 1;
    while n < 30 {
        term = term * r / n as f64;
        sum += term;
        n += 1;
    }
    sum * pow2(k)
}

/// `ln x` for a normal positive `x`: `x = m 2^e` with `m` in
/// `[sqrt(1/2), sqrt 2)`, then `ln m = 2 atanh(s)`, `s = (m-1)/(m+1)`,
/// `|s| < 0.172`, by its series to 30 terms (the last below 1e-40).
const fn ln(x: f64) -> f64 {
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut power = s;
    let mut sum = 0.0;
    let mut n = 0;
    while n < 30 {
        sum += power / (2 * n + 1) as f64;
        power *= s2;
        n += 1;
    }
    e as f64 * LN_2 + 2.0 * sum
}

/// `sqrt x` for `x > 0`: Newton's iteration from halving the exponent,
/// which doubles the correct bits each step (10 steps from at least 1).
const fn sqrt(x: f64) -> f64 {
    let mut y = f64::from_bits((x.to_bits() >> 1) + (1023u64 << 51));
    let mut n = 0;
    while n < 10 {
        y = 0.5 * (y + x / y);
        n += 1;
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The const arithmetic against the platform's `exp`, `ln` and `sqrt`
    /// (correctly rounded or within an ulp or two): 1e-14 relative is a
    /// few dozen ulps, far below what a wrong series would miss by.
    #[test]
    fn const_arithmetic_matches_the_library() {
        for &x in &[-700.0, -30.0, -6.68, -1.0, -1e-3, 0.0, 0.3, 1.0, 2.5, 40.0] {
            let (a, b) = (exp(x), f64::exp(x));
            assert!((a - b).abs() <= 1e-14 * b, "exp {x}: {a} {b}");
        }
        for &x in &[1e-300, 1e-5, 0.004_9, 0.5, 0.99, 1.0, 1.5, 2.0, 7.7, 1e10] {
            let (a, b) = (ln(x), f64::ln(x));
            assert!((a - b).abs() <= 1e-14 * b.abs().max(1.0), "ln {x}: {a} {b}");
            let (a, b) = (sqrt(x), f64::sqrt(x));
            assert!((a - b).abs() <= 1e-14 * b, "sqrt {x}: {a} {b}");
        }
    }

    /// The tables' defining properties: edges falling from `x[1] = R` to
    /// `x[256] = 0`; every layer of area `V` (the base layer: rectangle
    /// `R f(R)` plus the tail beyond `R`, which is `V` by the choice of
    /// `R`); the top layer closing at the density's peak `f(0) = 1`.
    /// Tolerance 1e-9 of `V`: the published `R` and `V` have 12 to 17
    /// digits, and 255 layers carry their rounding up the stack.
    #[test]
    fn layers_have_equal_area() {
        for (t, v, r, tail) in [
            // Normal tail beyond R: sqrt(pi/2) erfc(R / sqrt 2), which
            // the base layer's width x[0] = V / f(R) accounts for.
            (&NORMAL, NORMAL_V, NORMAL_R, None),
            // Exponential tail beyond R: e^-R exactly.
            (&EXP, EXP_V, EXP_R, Some(f64::exp(-EXP_R))),
        ] {
            assert_eq!(t.x[1], r);
            assert_eq!(t.x[LAYERS], 0.0);
            assert!((t.f[LAYERS] - 1.0).abs() < 1e-15);
            for i in 1..LAYERS {
                assert!(t.x[i + 1] < t.x[i], "layer {i} not falling");
                let area = t.x[i] * (t.f[i + 1] - t.f[i]);
                assert!((area - v).abs() < 1e-9 * v, "layer {i}: {area} vs {v}");
            }
            assert!((t.x[0] * t.f[1] - v).abs() < 1e-12 * v);
            if let Some(tail) = tail {
                assert!((r * t.f[1] + tail - v).abs() < 1e-9 * v);
            }
        }
    }
}
