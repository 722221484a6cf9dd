//! Replications: a number as the mean of N runs with a 95 % confidence
//! interval, so a diff shows change, not noise.
//!
//! A report with `replications N` repeats every run with N seeds
//! (`Scenario::replication_seed`) and evaluates each number once per
//! replication. [`Interval::of`] turns the N values into a mean `m` and a
//! half-width `h`: `m ± h` with `h = t(0.975, N - 1) · s / sqrt(N)`, `s` the
//! sample standard deviation and `t` Student's t quantile ([`t_975`]). A
//! replication where the value is n/a (a recovery that never came) is left
//! out, and the interval says over how many replications it was taken.
//!
//! # Student's t
//!
//! [`t_975`] inverts Student's t distribution function
//! `F(t) = 1 - I_x(ν/2, 1/2) / 2` with `x = ν / (ν + t²)`, `I` the regularized
//! incomplete beta function (a continued fraction, evaluated as in Numerical
//! Recipes' `betacf`), by bisection: the same bits on every machine and at
//! every thread count. For infinitely many degrees of freedom it is the
//! normal quantile [`Z_975`].

use serde::Serialize;

/// The 0.975 quantile of the standard normal distribution, `Φ⁻¹(0.975)`:
/// Student's t with infinitely many degrees of freedom.
pub const Z_975: f64 = 1.959_963_984_540_054;

/// A mean over replications with its 95 % interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Interval {
    /// The mean of the values.
    pub mean: f64,
    /// Half the width of the 95 % interval; `None` with fewer than two
    /// values (no spread to measure).
    pub half_width: Option<f64>,
    /// How many replications had a value.
    pub n: usize,
    /// How many replications ran.
    pub replications: usize,
    /// How many of the replications without a value never reached it (a
    /// recovery that never came, as opposed to one that has no meaning in
    /// the run): printed `never (k of n)` after the interval.
    pub never: usize,
    /// The value of each replication in order (`None`: n/a in that
    /// replication), kept so that `squall diff` can pair replication `r` of
    /// one report with replication `r` of another (JSON `values`); empty
    /// when the values are not known (a sweep's stored cell).
    #[serde(skip)]
    pub values: Vec<Option<f64>>,
}

impl Interval {
    /// The mean and 95 % interval of the values that are there (`None`
    /// entries are replications where the value is n/a); `None` when no
    /// replication has a value.
    pub fn of(values: &[Option<f64>]) -> Option<Interval> {
        let xs: Vec<f64> = values.iter().flatten().copied().collect();
        let n = xs.len();
        if n == 0 {
            return None;
        }
        // Summed in replication order, so the bits do not depend on threads.
        let mean = xs.iter().sum::<f64>() / n as f64;
        let half_width = (n >= 2).then(|| {
            let ss: f64 = xs.iter().map(|x| (x - mean) * (x - mean)).sum();
            let sd = (ss / (n - 1) as f64).sqrt();
            t_975((n - 1) as f64) * sd / (n as f64).sqrt()
        });
        Some(Interval {
            mean,
            half_width,
            n,
            replications: values.len(),
            never: 0,
            values: values.to_vec(),
        })
    }

    /// True when `x` lies in the interval (with no half-width: equals the mean).
    pub fn contains(&self, x: f64) -> bool {
        (x - self.mean).abs() <= self.half_width.unwrap_or(0.0)
    }
}

/// Student's t quantile `t(0.975, df)`: the half-width factor of a 95 %
/// interval from `df + 1` values. `df` is at least 1; `f64::INFINITY` gives
/// [`Z_975`].
pub fn t_975(df: f64) -> f64 {
    if !df.is_finite() {
        return Z_975;
    }
    let df = df.max(1.0);
    // F(t) is increasing; t(0.975, 1) = 12.706 is the largest quantile.
    let (mut lo, mut hi) = (0.0_f64, 64.0_f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if t_cdf(mid, df) < 0.975 {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= f64::EPSILON * hi {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// Student's t distribution function at `t >= 0` with `df` degrees of freedom.
fn t_cdf(t: f64, df: f64) -> f64 {
    let x = df / (df + t * t);
    1.0 - 0.5 * inc_beta(0.5 * df, 0.5, x)
}

/// The regularized incomplete beta function `I_x(a, b)`.
fn inc_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    // The continued fraction converges fast below (a + 1) / (a + b + 2);
    // above it, use I_x(a, b) = 1 - I_{1-x}(b, a).
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

/// The continued fraction of the incomplete beta function (modified Lentz).
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / nonzero(1.0 - qab * x / qap);
    let mut h = d;
    for m in 1..10_000 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        // The even and the odd step of the fraction.
        h *= lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), &mut c, &mut d);
        let step = lentz_step(
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
            &mut c,
            &mut d,
        );
        h *= step;
        if (step - 1.0).abs() < 1e-16 {
            break;
        }
    }
    h
}

/// One step of Lentz's method with coefficient `aa`: updates `c` and `d`
/// and returns the factor the fraction's value is multiplied by.
fn lentz_step(aa: f64, c: &mut f64, d: &mut f64) -> f64 {
    *d = 1.0 / nonzero(1.0 + aa * *d);
    *c = nonzero(1.0 + aa / *c);
    *d * *c
}

/// `x`, moved off zero so that it can be divided by.
fn nonzero(x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    if x.abs() < TINY {
        TINY
    } else {
        x
    }
}

/// `ln Γ(x)` for `x > 0` (Lanczos, g = 7, n = 9; relative error near 1e-15).
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1 - x) = π / sin(πx).
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = C[0];
    for (i, c) in C.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_the_tables() {
        // Student's t table, two-sided 95 % (one-sided 0.975), to 3 decimals.
        for (df, t) in [
            (1.0, 12.706),
            (2.0, 4.303),
            (4.0, 2.776),
            (9.0, 2.262),
            (19.0, 2.093),
            (29.0, 2.045),
            (120.0, 1.980),
            (f64::INFINITY, 1.960),
        ] {
            let got = t_975(df);
            assert!((got - t).abs() < 0.0005, "t(0.975, {df}) = {got}, want {t}");
        }
        // More digits, from R's qt(0.975, df).
        assert!((t_975(1.0) - 12.706_204_736_174_7).abs() < 1e-9);
        assert!((t_975(9.0) - 2.262_157_162_798_2).abs() < 1e-9);
        // Large df approaches the normal quantile from above (R: 1.962341).
        let big = t_975(999.0);
        assert!((big - 1.962_341_461).abs() < 1e-8, "{big}");
    }

    #[test]
    fn an_interval_is_mean_plus_minus_t_s_over_root_n() {
        // Values 1..=5: mean 3, s = sqrt(2.5), h = 2.776 · s / sqrt(5).
        let vals: Vec<Option<f64>> = (1..=5).map(|x| Some(f64::from(x))).collect();
        let i = Interval::of(&vals).unwrap_or_else(|| panic!("values"));
        assert_eq!(i.mean, 3.0);
        let h = t_975(4.0) * 2.5_f64.sqrt() / 5.0_f64.sqrt();
        assert_eq!(i.half_width, Some(h));
        assert!((h - 1.963).abs() < 0.001, "{h}");
        assert_eq!((i.n, i.replications), (5, 5));
        assert!(i.contains(4.9) && !i.contains(5.0));
        // n/a replications are left out and counted.
        let some = Interval::of(&[Some(2.0), None, Some(4.0)]).unwrap_or_else(|| panic!("two"));
        assert_eq!((some.mean, some.n, some.replications), (3.0, 2, 3));
        let one = Interval::of(&[Some(2.0), None]).unwrap_or_else(|| panic!("one"));
        assert_eq!(one.half_width, None);
        assert_eq!(Interval::of(&[None, None]), None);
    }
}
