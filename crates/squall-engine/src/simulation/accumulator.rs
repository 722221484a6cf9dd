//! [`Accumulator`]: the exact carry of a uniform source.
//!
//! A uniform source adds its rate \[requests/tick\] every tick and sends a
//! request for every whole unit. Added as doubles, `0.1` ten times is
//! `0.9999999999999999`, so `0.1/round` for 10 rounds sent nothing, and
//! `0.3/round` for 10 rounds sent 2. The accumulator instead adds the rate
//! as a fraction `p/q`: the closest one to the double with `q` at most
//! [`MAX_DENOMINATOR`], which for a rate written in decimal (`0.1`, `12/s`
//! under `clock ms` = `3/250`) is the number written, exactly.

/// The largest denominator a rate is read with.
pub const MAX_DENOMINATOR: u128 = 1_000_000_000_000;

/// The largest common denominator the carry is kept over when the rate
/// changes to one with another denominator; past it the carry is rounded
/// down to the new rate's denominator (a loss below one request in
/// 10^12).
const MAX_CARRY_DENOMINATOR: u128 = 1_000_000_000_000_000_000;

/// The fractional requests a uniform source carries from tick to tick.
#[derive(Debug, Clone)]
pub(super) struct Accumulator {
    /// The carry is `num / den` requests.
    num: u128,
    den: u128,
    /// The last rate added and its fraction, so a steady rate is read once.
    last: Option<(f64, (u128, u128))>,
}

impl Default for Accumulator {
    fn default() -> Self {
        Accumulator {
            num: 0,
            den: 1,
            last: None,
        }
    }
}

impl Accumulator {
    /// Adds one tick at `rate` \[requests/tick\] and returns the whole
    /// requests that are due.
    pub(super) fn add(&mut self, rate: f64) -> u64 {
        let (p, q) = match self.last {
            Some((r, f)) if r.to_bits() == rate.to_bits() => f,
            _ => {
                let f = fraction(rate);
                self.last = Some((rate, f));
                f
            }
        };
        if q != self.den {
            let l = lcm(self.den, q);
            if l <= MAX_CARRY_DENOMINATOR {
                self.num *= l / self.den;
                self.den = l;
            } else {
                self.num = self.num * q / self.den;
                self.den = q;
            }
        }
        self.num += p * (self.den / q);
        let whole = self.num / self.den;
        self.num %= self.den;
        u64::try_from(whole).unwrap_or(u64::MAX)
    }
}

/// The fraction `p/q` closest to `x` with `q <= MAX_DENOMINATOR`, by
/// continued fractions; `0/1` for a negative or non-finite `x`.
pub fn fraction(x: f64) -> (u128, u128) {
    if !x.is_finite() || x <= 0.0 || x > 1e15 {
        return (0, 1);
    }
    // Convergents h/k of x's continued fraction.
    let (mut h0, mut h1) = (0u128, 1u128);
    let (mut k0, mut k1) = (1u128, 0u128);
    let mut rest = x;
    let mut best = (x.floor() as u128, 1u128);
    for _ in 0..64 {
        let a = rest.floor();
        let ai = a as u128;
        let (h2, k2) = (ai * h1 + h0, ai * k1 + k0);
        if k2 > MAX_DENOMINATOR {
            break;
        }
        best = (h2, k2);
        (h0, h1, k0, k1) = (h1, h2, k1, k2);
        let err = (h2 as f64 / k2 as f64 - x).abs();
        if err <= x * 4.0 * f64::EPSILON {
            break;
        }
        let f = rest - a;
        if f <= 0.0 {
            break;
        }
        rest = 1.0 / f;
    }
    best
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn lcm(a: u128, b: u128) -> u128 {
    a / gcd(a, b) * b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(rate: f64, ticks: u64) -> u64 {
        let mut acc = Accumulator::default();
        (0..ticks).map(|_| acc.add(rate)).sum()
    }

    #[test]
    fn decimal_rates_send_exactly_what_they_say() {
        assert_eq!(sent(0.1, 10), 1);
        assert_eq!(sent(0.1, 100), 10);
        assert_eq!(sent(0.3, 10), 3);
        assert_eq!(sent(0.7, 1000), 700);
        assert_eq!(sent(12.0 / 1000.0, 250), 3);
        assert_eq!(sent(100.0 / 60.0, 3), 5);
        assert_eq!(sent(4.0, 10), 40);
    }

    #[test]
    fn fractions_of_written_rates() {
        assert_eq!(fraction(0.1), (1, 10));
        assert_eq!(fraction(0.012), (3, 250));
        assert_eq!(fraction(2.5), (5, 2));
        assert_eq!(fraction(0.0), (0, 1));
        assert_eq!(fraction(f64::NAN), (0, 1));
    }

    #[test]
    fn a_rate_change_keeps_the_carry() {
        let mut acc = Accumulator::default();
        let first: u64 = (0..5).map(|_| acc.add(0.1)).sum(); // carry 0.5
        let then: u64 = (0..5).map(|_| acc.add(0.1 + 0.0000001)).sum();
        assert_eq!(first, 0);
        assert_eq!(then, 1);
        assert_eq!(acc.add(1.0 / 3.0) + acc.add(1.0 / 3.0), 0);
    }
}
