//! Service times: a [`Latency`] draws one [`Duration`] per call from a
//! distribution of the model ([`squall_lang::LatencySpec`]), from the
//! node's own stream (`latency/<node>`), so the order of draws is the order
//! in which calls start service, and a distribution never changes what
//! another component draws.
//!
//! | distribution        | one draw                                        |
//! |---------------------|-------------------------------------------------|
//! | constant `c`        | `c` (one uniform number is still taken)         |
//! | uniform `a..b`      | `a + u (b - a)`, `u` one uniform number         |
//! | exponential mean `m`| `m e`, `e` a ziggurat exponential draw          |
//! | normal `m`, `s`     | `max(0, m + s z)`, `z` a ziggurat normal draw   |
//! | lognormal p50, p99  | `p50 exp(sigma z)`, `sigma = ln(p99/p50) / z(0.99)` |
//! | table of quantiles  | linear between the points at one uniform `u`    |
//!
//! The ziggurat ([`Stream::normal`], [`Stream::exponential`]) takes one
//! 64-bit word in about 99 % of draws and more otherwise; the others take
//! exactly one. [`Latency::quantile`] is the distribution's inverse CDF
//! (`z` by Acklam's rational approximation, relative error below 1.2e-9):
//! the draws of the uniform, constant and table go through it, and the
//! tests check the ziggurat's draws against it.
//!
//! A load-dependent term adds `per_call` ticks for each call already in
//! service at the node when the call starts ([`Latency::sample_loaded`]).

use squall_lang::{lognormal_sigma, LatencySpec};

use crate::rng::Stream;
use crate::time::{Duration, Resolution};

/// A service-time distribution in engine units.
#[derive(Debug, Clone, PartialEq)]
pub struct Latency {
    shape: Shape,
    /// Units per call in service.
    per_call: f64,
}

/// Parameters in engine units.
#[derive(Debug, Clone, PartialEq)]
enum Shape {
    Constant(f64),
    Uniform(f64, f64),
    Exponential(f64),
    Normal(f64, f64),
    LogNormal { median: f64, sigma: f64 },
    Table(Vec<(f64, f64)>),
}

impl Latency {
    /// The distribution `spec` (in ticks) at resolution `res`, plus
    /// `per_call` ticks per call in service.
    pub fn new(spec: &LatencySpec, per_call: f64, res: Resolution) -> Self {
        let k = res.per_tick() as f64;
        let shape = match spec {
            LatencySpec::Constant(c) => Shape::Constant(c * k),
            LatencySpec::Uniform { low, high } => Shape::Uniform(low * k, high * k),
            LatencySpec::Exponential { mean } => Shape::Exponential(mean * k),
            LatencySpec::Normal { mean, sd } => Shape::Normal(mean * k, sd * k),
            LatencySpec::LogNormal { p50, p99 } => Shape::LogNormal {
                median: p50 * k,
                sigma: lognormal_sigma(*p50, *p99),
            },
            LatencySpec::Table(points) => {
                Shape::Table(points.iter().map(|&(q, v)| (q, v * k)).collect())
            }
        };
        Latency {
            shape,
            per_call: per_call * k,
        }
    }

    /// The service time for uniform `u` in `[0, 1)`, in (fractional) units.
    pub fn quantile(&self, u: f64) -> f64 {
        // Keep u inside (0, 1): the tails of ln and z are infinite at the ends.
        let u = u.clamp(f64::MIN_POSITIVE, 1.0 - f64::EPSILON / 2.0);
        match &self.shape {
            Shape::Constant(c) => *c,
            Shape::Uniform(a, b) => a + u * (b - a),
            Shape::Exponential(m) => -m * (1.0 - u).ln(),
            Shape::Normal(m, s) => (m + s * normal_quantile(u)).max(0.0),
            Shape::LogNormal { median, sigma } => median * (sigma * normal_quantile(u)).exp(),
            Shape::Table(points) => table_quantile(points, u),
        }
    }

    /// One service time, drawn from `stream`.
    #[cfg(test)]
    pub fn sample(&self, stream: &mut Stream) -> Duration {
        self.sample_loaded(stream, 0)
    }

    /// One service time for a call that starts while `in_service` other
    /// calls are in service at the node.
    pub fn sample_loaded(&self, stream: &mut Stream, in_service: u32) -> Duration {
        Resolution::TICKS
            .duration(self.draw_units(stream, in_service))
            .min(Duration::from_units(u64::MAX / 4))
    }

    /// As [`Latency::sample_loaded`], in units not yet rounded to one:
    /// `Resolution::TICKS.duration` of it is the duration
    /// `sample_loaded(..).units() as f64` would round to (the cap at
    /// `u64::MAX / 4` units taken as a float, which that conversion rounds
    /// to), so a caller that works on with the number rounds once, not
    /// twice.
    pub fn sample_units(&self, stream: &mut Stream, in_service: u32) -> f64 {
        let units = self.draw_units(stream, in_service);
        // Not `f64::min`, which would turn a NaN (no duration) into the cap.
        let cap = (u64::MAX / 4) as f64;
        if units > cap {
            cap
        } else {
            units
        }
    }

    /// One draw plus the load term, in units. A lognormal (the usual
    /// service time) is tested first, with one comparison of the shape's
    /// tag.
    #[inline]
    fn draw_units(&self, stream: &mut Stream, in_service: u32) -> f64 {
        let drawn = match &self.shape {
            &Shape::LogNormal { median, sigma } => median * (sigma * stream.normal()).exp(),
            _ => self.draw_other(stream),
        };
        drawn + self.per_call * f64::from(in_service)
    }

    /// One draw of a shape other than the lognormal, in units.
    #[inline(never)]
    fn draw_other(&self, stream: &mut Stream) -> f64 {
        match &self.shape {
            Shape::Exponential(m) => m * stream.exponential(),
            Shape::Normal(m, s) => (m + s * stream.normal()).max(0.0),
            Shape::LogNormal { median, sigma } => median * (sigma * stream.normal()).exp(),
            _ => self.quantile(stream.next_f64()),
        }
    }
}

/// Linear interpolation in a table of `(share, value)` points.
fn table_quantile(points: &[(f64, f64)], u: f64) -> f64 {
    let Some(&(q0, v0)) = points.first() else {
        return 0.0;
    };
    if u <= q0 {
        return v0;
    }
    for w in points.windows(2) {
        let ((qa, va), (qb, vb)) = (w[0], w[1]);
        if u <= qb {
            if qb <= qa {
                return vb;
            }
            return va + (u - qa) / (qb - qa) * (vb - va);
        }
    }
    points.last().map_or(0.0, |p| p.1)
}

/// The standard normal quantile `z(p)` for `p` in `(0, 1)`: Acklam's
/// rational approximation (relative error below 1.2e-9).
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    const LOW: f64 = 0.024_25;
    if p < LOW {
        let q = (-2.0 * p.ln()).sqrt();
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    } else if p <= 1.0 - LOW {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        let q = (-2.0 * (1.0 - p).ln()).sqrt();
        -(((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use squall_lang::Clock;

    fn ms() -> Resolution {
        Resolution::fine(Clock::Ms)
    }

    /// The empirical `q`-quantile of `n` draws.
    fn empirical(l: &Latency, n: usize, q: f64) -> f64 {
        let mut s = Stream::new(7, "latency/test");
        let mut v: Vec<u64> = (0..n).map(|_| l.sample(&mut s).units()).collect();
        v.sort_unstable();
        v[((n as f64 * q) as usize).min(n - 1)] as f64
    }

    #[test]
    fn normal_quantiles_are_the_tables() {
        assert!(normal_quantile(0.5).abs() < 1e-9);
        assert!((normal_quantile(0.99) - squall_lang::Z99).abs() < 1e-7);
        assert!((normal_quantile(0.975) - 1.959_963_984_540_054).abs() < 1e-7);
        assert!((normal_quantile(0.001) + 3.090_232_306_167_813).abs() < 1e-6);
    }

    #[test]
    fn quantiles_by_hand() {
        let r = ms();
        let c = Latency::new(&LatencySpec::Constant(0.4), 0.0, r);
        assert_eq!(c.quantile(0.3), 400_000.0);
        let u = Latency::new(
            &LatencySpec::Uniform {
                low: 1.0,
                high: 3.0,
            },
            0.0,
            r,
        );
        assert_eq!(u.quantile(0.25), 1_500_000.0);
        let e = Latency::new(&LatencySpec::Exponential { mean: 2.0 }, 0.0, r);
        // Median of an exponential: m ln 2.
        assert!((e.quantile(0.5) - 2e6 * std::f64::consts::LN_2).abs() < 1e-3);
        let t = Latency::new(
            &LatencySpec::Table(vec![(0.0, 1.0), (0.5, 5.0), (1.0, 25.0)]),
            0.0,
            r,
        );
        assert_eq!(t.quantile(0.25), 3e6);
        assert_eq!(t.quantile(0.75), 15e6);
        let ln = Latency::new(
            &LatencySpec::LogNormal {
                p50: 5.0,
                p99: 80.0,
            },
            0.0,
            r,
        );
        assert!((ln.quantile(0.5) - 5e6).abs() < 1.0);
        assert!((ln.quantile(0.99) - 80e6).abs() / 80e6 < 1e-6);
    }

    /// Sampled quantiles against the exact ones. With n = 200 000 draws the
    /// empirical q-quantile has standard error sqrt(q(1-q)/n)/f(x_q) in value;
    /// for the cases below that is under 0.5 % at the median and under 2 %
    /// at p99, so 3 % and 6 % are more than three standard errors.
    #[test]
    fn sampled_quantiles_match() {
        let r = ms();
        let n = 200_000;
        let ln = Latency::new(
            &LatencySpec::LogNormal {
                p50: 5.0,
                p99: 80.0,
            },
            0.0,
            r,
        );
        let p50 = empirical(&ln, n, 0.5);
        let p99 = empirical(&ln, n, 0.99);
        assert!((p50 / 5e6 - 1.0).abs() < 0.03, "p50 {p50}");
        assert!((p99 / 80e6 - 1.0).abs() < 0.06, "p99 {p99}");
        let e = Latency::new(&LatencySpec::Exponential { mean: 1.0 }, 0.0, r);
        let p90 = empirical(&e, n, 0.9);
        assert!((p90 / (1e6 * 10f64.ln()) - 1.0).abs() < 0.03, "p90 {p90}");
        let nrm = Latency::new(
            &LatencySpec::Normal {
                mean: 10.0,
                sd: 2.0,
            },
            0.0,
            r,
        );
        let p84 = empirical(&nrm, n, 0.841_344_746);
        assert!((p84 / 12e6 - 1.0).abs() < 0.01, "p84 {p84}");
    }

    #[test]
    fn normal_is_clipped_at_zero() {
        let l = Latency::new(&LatencySpec::Normal { mean: 1.0, sd: 5.0 }, 0.0, ms());
        let mut s = Stream::new(1, "x");
        let zeros = (0..10_000)
            .filter(|_| l.sample(&mut s) == Duration::ZERO)
            .count();
        // P(X < 0) = Phi(-0.2) = 0.42; 10 000 draws: sd 0.5 %.
        assert!((zeros as f64 / 10_000.0 - 0.42).abs() < 0.02, "{zeros}");
    }

    #[test]
    fn load_term_adds_per_call_in_service() {
        let l = Latency::new(&LatencySpec::Constant(1000.0), 10.0, ms());
        let mut s = Stream::new(1, "x");
        assert_eq!(
            l.sample_loaded(&mut s, 0),
            Duration::from_units(1_000_000_000)
        );
        assert_eq!(
            l.sample_loaded(&mut s, 3),
            Duration::from_units(1_030_000_000)
        );
    }

    /// A lognormal's draw is `p50 exp(sigma z)` with `z` the stream's
    /// ziggurat normal, and an exponential's `mean e`: the same numbers from
    /// a copy of the stream, to the unit the duration rounds to.
    #[test]
    fn draws_are_the_ziggurat_draws_transformed() {
        let ln = Latency::new(
            &LatencySpec::LogNormal {
                p50: 5.0,
                p99: 80.0,
            },
            0.0,
            ms(),
        );
        let e = Latency::new(&LatencySpec::Exponential { mean: 2.0 }, 0.0, ms());
        let sigma = lognormal_sigma(5.0, 80.0);
        let mut a = Stream::new(9, "latency/x");
        let mut b = a.clone();
        for _ in 0..1000 {
            let want = 5e6 * (sigma * b.normal()).exp();
            assert!((ln.sample(&mut a).units() as f64 - want).abs() <= 0.5);
            let want = 2e6 * b.exponential();
            assert!((e.sample(&mut a).units() as f64 - want).abs() <= 0.5);
        }
    }

    /// A service time rounds the unrounded draw once where it rounded the
    /// rounded draw again: the same duration, by the rule in
    /// `sample_units`'s comment, also beyond the cap (a load term of
    /// 10^18 units a call in service, 6 calls: 6e18 > u64::MAX / 4).
    #[test]
    fn one_rounding_gives_the_two_roundings_duration() {
        let cases = [
            (
                LatencySpec::LogNormal {
                    p50: 5.0,
                    p99: 80.0,
                },
                0.3,
                2,
            ),
            (
                LatencySpec::Uniform {
                    low: 0.0,
                    high: 1e-6,
                },
                0.0,
                0,
            ),
            (LatencySpec::Constant(1.0), 1e12, 6),
        ];
        for (spec, per_call, busy) in cases {
            let l = Latency::new(&spec, per_call, ms());
            let mut a = Stream::new(5, "latency/x");
            let mut b = a.clone();
            for _ in 0..2000 {
                let twice =
                    Resolution::TICKS.duration(l.sample_loaded(&mut a, busy).units() as f64);
                let once = Resolution::TICKS.duration(l.sample_units(&mut b, busy));
                assert_eq!(once, twice, "{spec:?}");
            }
        }
    }

    #[test]
    fn one_draw_per_sample() {
        let l = Latency::new(&LatencySpec::Constant(1.0), 0.0, ms());
        let mut a = Stream::new(3, "x");
        let mut b = Stream::new(3, "x");
        l.sample(&mut a);
        b.next_f64();
        assert_eq!(a.next_f64(), b.next_f64());
    }
}
