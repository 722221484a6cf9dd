//! The ziggurat's draws against the exact distributions.
//!
//! Every expected value is a closed form: the normal CDF by Marsaglia's
//! series ("Evaluating the Normal Distribution", J. Stat. Software 11(4),
//! 2004: `Phi(x) = 1/2 + phi(x) (x + x^3/3 + x^5/(3 5) + ...)`, all terms
//! positive, absolute error near 1e-15), the exponential's `1 - e^-x`. The
//! streams are seeded, so each test is deterministic; the tolerances are
//! stated as multiples of the statistic's standard error (or the
//! Kolmogorov distribution's quantile), wide enough that a correct sampler
//! passes for all but about one seed in a thousand, narrow enough that a
//! table off by one layer, a lost sign or a missing tail fails.

use super::Stream;

/// The standard normal CDF by Marsaglia's series.
fn phi(x: f64) -> f64 {
    let (mut sum, mut term, x2) = (x, x, x * x);
    let mut k = 1.0;
    while term.abs() > 1e-18 * sum.abs() {
        k += 2.0;
        term *= x2 / k;
        sum += term;
    }
    0.5 + sum * (-0.5 * x2).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

/// The mass beyond `t` on both sides, `2 (1 - Phi(t))`.
fn two_sided_tail(t: f64) -> f64 {
    2.0 * (1.0 - phi(t))
}

/// The Kolmogorov–Smirnov statistic of `draws` against `cdf`.
fn ks(mut draws: Vec<f64>, cdf: impl Fn(f64) -> f64) -> f64 {
    draws.sort_unstable_by(f64::total_cmp);
    let n = draws.len() as f64;
    draws
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = cdf(x);
            (f - i as f64 / n).max((i + 1) as f64 / n - f)
        })
        .fold(0.0, f64::max)
}

/// Mean and (population) variance.
fn moments(draws: &[f64]) -> (f64, f64) {
    let n = draws.len() as f64;
    let mean = draws.iter().sum::<f64>() / n;
    let var = draws.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    (mean, var)
}

/// The Kolmogorov distribution's 0.999 quantile: `P(sqrt(n) D > 1.9495)
/// = 0.001` for large `n` (Kolmogorov's limit law; Smirnov's table).
const KS_999: f64 = 1.9495;

#[test]
fn the_series_gives_the_tables_normal_tail() {
    // Abramowitz & Stegun 26.2 (Table 26.1): Q(3) and Q(4) to 15 digits.
    assert!((1.0 - phi(3.0) - 1.349_898_031_630_095e-3).abs() < 1e-15);
    assert!((1.0 - phi(4.0) - 3.167_124_183_311_998e-5).abs() < 1e-15);
    assert!((phi(0.0) - 0.5).abs() < 1e-16);
    assert!((phi(-1.0) + phi(1.0) - 1.0).abs() < 1e-15);
}

#[test]
fn normal_draws_have_the_normal_moments_and_cdf() {
    let n = 1_000_000;
    let mut s = Stream::new(2026, "latency/test");
    let draws: Vec<f64> = (0..n).map(|_| s.normal()).collect();
    let (mean, var) = moments(&draws);
    // Standard errors: 1/sqrt(n) = 1e-3 for the mean, sqrt(2/n) = 1.41e-3
    // for the variance; 4 of them each.
    assert!(mean.abs() < 4e-3, "mean {mean}");
    assert!((var - 1.0).abs() < 5.7e-3, "variance {var}");
    let d = ks(draws, phi);
    assert!(d < KS_999 / (n as f64).sqrt(), "KS {d}");
}

/// Beyond 3 and 4 sigma (inside the ziggurat's layers and beyond its base
/// edge R = 3.654, drawn by the tail method) and beyond R itself. With
/// 10^7 draws a count of mean `m` has standard error about `sqrt(m)`: 2 700
/// +- 52 beyond 3, 2 582 +- 51 beyond R, 633 +- 25 beyond 4; 4.5 of them.
#[test]
fn normal_tails_have_the_exact_mass() {
    let n = 10_000_000;
    let mut s = Stream::new(7, "latency/tails");
    let r = super::NORMAL_R;
    let (mut c3, mut cr, mut c4) = (0u64, 0u64, 0u64);
    for _ in 0..n {
        let z = s.normal().abs();
        c3 += u64::from(z > 3.0);
        cr += u64::from(z > r);
        c4 += u64::from(z > 4.0);
    }
    for (count, t) in [(c3, 3.0), (cr, r), (c4, 4.0)] {
        let want = n as f64 * two_sided_tail(t);
        let err = (count as f64 - want).abs();
        assert!(err < 4.5 * want.sqrt(), "beyond {t}: {count} vs {want:.1}");
    }
}

/// Both signs: the share of negative draws is 1/2, standard error
/// 0.5/sqrt(n) = 5e-4; 4 of them.
#[test]
fn normal_draws_are_symmetric() {
    let n = 1_000_000;
    let mut s = Stream::new(11, "x");
    let neg = (0..n).filter(|_| s.normal() < 0.0).count();
    assert!((neg as f64 / n as f64 - 0.5).abs() < 2e-3, "{neg}");
}

#[test]
fn exponential_draws_have_the_exponential_moments_and_cdf() {
    let n = 1_000_000;
    let mut s = Stream::new(2026, "source/0");
    let draws: Vec<f64> = (0..n).map(|_| s.exponential()).collect();
    assert!(draws.iter().all(|&x| x >= 0.0));
    let (mean, var) = moments(&draws);
    // Standard errors: 1/sqrt(n) = 1e-3 for the mean; sqrt((mu4 - 1)/n)
    // = sqrt(8/n) = 2.83e-3 for the variance (fourth moment 9); 4 each.
    assert!((mean - 1.0).abs() < 4e-3, "mean {mean}");
    assert!((var - 1.0).abs() < 1.14e-2, "variance {var}");
    let d = ks(draws, |x| 1.0 - (-x).exp());
    assert!(d < KS_999 / (n as f64).sqrt(), "KS {d}");
}

/// Beyond the base edge R = 7.697 (the tail, drawn as R plus a fresh draw)
/// and beyond 5: e^-t exactly. 10^7 draws: 4 540 +- 67 and 67 379 +- 260;
/// 4.5 standard errors.
#[test]
fn exponential_tail_has_the_exact_mass() {
    let n = 10_000_000;
    let mut s = Stream::new(5, "source/1");
    let r = super::EXP_R;
    let (mut c5, mut cr) = (0u64, 0u64);
    for _ in 0..n {
        let x = s.exponential();
        c5 += u64::from(x > 5.0);
        cr += u64::from(x > r);
    }
    for (count, t) in [(c5, 5.0), (cr, r)] {
        let want = n as f64 * (-t).exp();
        let err = (count as f64 - want).abs();
        assert!(err < 4.5 * want.sqrt(), "beyond {t}: {count} vs {want:.1}");
    }
}

/// A stream's draws are a function of its seed and label: the same twice.
#[test]
fn draws_repeat_for_the_same_seed() {
    let mut a = Stream::new(3, "latency/db");
    let mut b = Stream::new(3, "latency/db");
    for _ in 0..10_000 {
        assert_eq!(a.normal().to_bits(), b.normal().to_bits());
        assert_eq!(a.exponential().to_bits(), b.exponential().to_bits());
    }
    let mut c = Stream::new(4, "latency/db");
    assert_ne!(a.normal(), c.normal());
}
