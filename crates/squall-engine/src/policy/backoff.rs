//! Backoff: how long a service waits before retry `n`.
//!
//! The language describes a policy ([`Backoff`]); this module gives it its
//! meaning. Retry `n` is the `n`-th retry (1 = after the first failed try);
//! waits are whole ticks.
//!
//! | policy                | wait before retry `n`                                   |
//! |-----------------------|---------------------------------------------------------|
//! | fixed `w`             | `w`                                                     |
//! | exponential           | `e(n) = base * multiplier^(n-1)`, at most `cap`         |
//! | full jitter           | `round(r * e(n))`                                       |
//! | equal jitter          | `round(e(n)/2 + r * e(n)/2)`                            |
//! | decorrelated jitter   | `min(cap, round(base + r * (3 * previous - base)))`     |
//!
//! `r` is one uniform draw in `[0, 1)` from the policy's generator, made
//! only by jittered policies and only when a retry is decided, so draws
//! happen in event order. Decorrelated jitter's `previous` is the wait
//! before the previous retry of the same loop (`base` before the first).
//! Rounding is half away from zero, as JavaScript's `Math.round` for the
//! non-negative values here.
//!
//! A library's own backoff (`backoff grpc { ... }`, [`library`]) is one
//! more policy here, rounded like the others; Polly's decorrelated jitter
//! V2 keeps its formula's last value between retries where decorrelated
//! jitter keeps its previous wait (as the bits of the `f64`).
//!
//! [`sample_wait`] is the one way to draw a wait: the engine's retries and
//! the report's tables of waits both call it, so they cannot drift apart.

pub mod library;
pub mod pushback;

use squall_lang::{Backoff, LibraryBackoff};

use crate::rng::Generator;

/// Retry semantics of a [`Backoff`] policy.
pub trait BackoffWaits {
    /// The exponential bound before retry `n` (1 = after the first failed
    /// try): `base * multiplier^(n-1)`, at most `cap` \[ticks\]. For a fixed
    /// backoff, the fixed wait; for decorrelated jitter, the base.
    fn bound(&self, n: u32) -> f64;

    /// The wait before retry `n` \[ticks\], given a uniform draw `r` in
    /// `[0, 1)` (not used by deterministic policies) and the previous wait
    /// of the same retry loop (decorrelated jitter; `None` before the first
    /// retry).
    fn wait_with(&self, n: u32, r: f64, previous: Option<u64>) -> u64;

    /// The wait before retry `n` for a deterministic policy; for jittered
    /// policies, the largest wait the draw can give \[ticks\].
    fn wait(&self, n: u32) -> u64;
}

/// The longest wait \[ticks\]: where a growing wait saturates when it has
/// no cap (or when `multiplier^(n-1)` overflows a double).
pub const MAX_WAIT: f64 = 9.0e15;

impl BackoffWaits for Backoff {
    fn bound(&self, n: u32) -> f64 {
        let grow = |base: u64, multiplier: f64, cap: Option<u64>| {
            let w = (base as f64) * multiplier.powi(n.saturating_sub(1).min(1024) as i32);
            // `multiplier^(n-1)` overflows a double (to infinity) from some
            // retry on; the bound then stays at its cap, or at the longest
            // wait, so that jitter's arithmetic on it stays finite.
            let w = if w.is_nan() { 0.0 } else { w.min(MAX_WAIT) };
            cap.map_or(w, |c| w.min(c as f64))
        };
        match *self {
            Backoff::Fixed { wait } => wait as f64,
            Backoff::Exponential {
                base,
                multiplier,
                cap,
            }
            | Backoff::FullJitter {
                base,
                multiplier,
                cap,
                ..
            }
            | Backoff::EqualJitter {
                base,
                multiplier,
                cap,
                ..
            } => grow(base, multiplier, cap),
            Backoff::Decorrelated { base, .. } => base as f64,
            Backoff::Library(l) => library_bound(l, n),
        }
    }

    fn wait_with(&self, n: u32, r: f64, previous: Option<u64>) -> u64 {
        // A bound that overflowed a double is infinite: it saturates at the
        // longest wait a tick count holds, never wraps to no wait at all.
        let whole = |w: f64| {
            if w > 0.0 {
                w.min(MAX_WAIT).round() as u64
            } else {
                0
            }
        };
        match *self {
            Backoff::Fixed { wait } => wait,
            Backoff::Exponential { .. } => whole(self.bound(n)),
            Backoff::FullJitter { .. } => whole(r * self.bound(n)),
            Backoff::EqualJitter { .. } => {
                let e = self.bound(n);
                whole(e / 2.0 + r * e / 2.0)
            }
            Backoff::Decorrelated { base, cap, .. } => {
                let prev = previous.unwrap_or(base) as f64;
                let w = whole(base as f64 + r * (prev * 3.0 - base as f64));
                cap.map_or(w, |c| w.min(c))
            }
            Backoff::Library(l) => library_wait(&l, n, r, previous).0,
        }
    }

    fn wait(&self, n: u32) -> u64 {
        match *self {
            Backoff::Decorrelated { cap, .. } => cap.unwrap_or(u64::MAX),
            Backoff::Library(LibraryBackoff::Polly { max, .. }) => max.unwrap_or(u64::MAX),
            _ => self.wait_with(n, 1.0, None),
        }
    }
}

/// The bound of a library's backoff before retry `n` \[ticks\]: the
/// exponential a jitter multiplies (gRPC: the wait at `r = 0.5`; Polly: the
/// median of the first wait).
fn library_bound(l: LibraryBackoff, n: u32) -> f64 {
    match l {
        LibraryBackoff::Grpc {
            initial,
            max,
            multiplier,
        } => library::grpc(initial as f64, max as f64, multiplier, n, 0.5),
        LibraryBackoff::Envoy { base, max, docs } => {
            if docs {
                let m = (1u64 << n.min(62)) - 1;
                m.saturating_mul(base).min(max) as f64
            } else {
                library::envoy_bound(base, max, n) as f64
            }
        }
        LibraryBackoff::Polly { median, .. } => median as f64,
        LibraryBackoff::Aws { base, cap } => library::aws(base as f64, cap as f64, n, 1.0),
    }
}

/// A library's wait before retry `n` given the draw `r`, and the state
/// the loop keeps for the next retry (Polly's formula value, as `f64`
/// bits; the wait itself for the others).
fn library_wait(l: &LibraryBackoff, n: u32, r: f64, previous: Option<u64>) -> (u64, u64) {
    let whole = |w: f64| {
        if w > 0.0 {
            w.min(MAX_WAIT).round() as u64
        } else {
            0
        }
    };
    let wait = match *l {
        LibraryBackoff::Grpc {
            initial,
            max,
            multiplier,
        } => whole(library::grpc(initial as f64, max as f64, multiplier, n, r)),
        LibraryBackoff::Envoy { base, max, docs } => {
            let reading = if docs {
                library::EnvoyReading::Docs
            } else {
                library::EnvoyReading::Code
            };
            library::envoy(base, max, n, r, reading)
        }
        LibraryBackoff::Polly { median, max } => {
            let mut j = library::PollyJitter::resume(previous.map_or(0.0, f64::from_bits));
            let w = whole(j.wait(median as f64, n, r));
            let w = max.map_or(w, |m| w.min(m));
            return (w, j.last().to_bits());
        }
        LibraryBackoff::Aws { base, cap } => whole(library::aws(base as f64, cap as f64, n, r)),
    };
    (wait, wait)
}

/// Draws the wait before retry `n` \[ticks\]: one number from `generator`
/// when the policy is jittered (none otherwise), then [`BackoffWaits::wait_with`].
/// `previous` is the loop's previous wait (`None` before its first retry)
/// and becomes the wait drawn.
pub fn sample_wait(
    backoff: &Backoff,
    n: u32,
    generator: &mut Generator,
    previous: &mut Option<u64>,
) -> u64 {
    let r = if backoff.draws() {
        generator.next_f64()
    } else {
        0.0
    };
    if let Backoff::Library(l) = backoff {
        let (wait, state) = library_wait(l, n, r, *previous);
        *previous = Some(state);
        return wait;
    }
    let wait = backoff.wait_with(n, r, *previous);
    *previous = Some(wait);
    wait
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponential_grows_to_its_cap() {
        let b = Backoff::Exponential {
            base: 100,
            multiplier: 2.0,
            cap: Some(300),
        };
        assert_eq!([b.wait(1), b.wait(2), b.wait(3)], [100, 200, 300]);
    }

    #[test]
    fn an_overflowing_exponential_saturates_instead_of_waiting_nothing() {
        let uncapped = Backoff::Exponential {
            base: 1,
            multiplier: 10.0,
            cap: None,
        };
        // 10^309 overflows a double from retry 310 on.
        assert_eq!(uncapped.wait(310), MAX_WAIT as u64);
        assert_eq!(uncapped.wait(2000), MAX_WAIT as u64);
        let capped = Backoff::Exponential {
            base: 1,
            multiplier: 10.0,
            cap: Some(5000),
        };
        assert_eq!(capped.wait(310), 5000);
        let jitter = Backoff::FullJitter {
            base: 1,
            multiplier: 10.0,
            cap: None,
            rng: None,
        };
        assert_eq!(jitter.wait_with(400, 0.5, None), (MAX_WAIT / 2.0) as u64);
        let equal = Backoff::EqualJitter {
            base: 1,
            multiplier: 10.0,
            cap: None,
            rng: None,
        };
        assert_eq!(equal.wait_with(400, 0.0, None), (MAX_WAIT / 2.0) as u64);
    }

    #[test]
    fn decorrelated_carries_its_previous_wait() {
        let b = Backoff::Decorrelated {
            base: 10,
            cap: Some(1000),
            rng: None,
        };
        // r = 1: base + (3 * previous - base) = 3 * previous.
        assert_eq!(b.wait_with(1, 1.0, None), 30);
        assert_eq!(b.wait_with(2, 1.0, Some(30)), 90);
        assert_eq!(b.wait(1), 1000);
    }

    #[test]
    fn a_fixed_policy_draws_nothing() {
        let mut g = Generator::default_for(7);
        let mut untouched = Generator::default_for(7);
        let mut prev = None;
        let b = Backoff::Fixed { wait: 5 };
        assert_eq!(sample_wait(&b, 1, &mut g, &mut prev), 5);
        assert_eq!(prev, Some(5));
        assert_eq!(g.next_f64(), untouched.next_f64());
    }

    #[test]
    fn jitter_lowers_the_peak_to_mean_ratio_of_a_herd() {
        // 1000 clients fail together and make their 4th retry under
        // base 100 x 2: the bound is 800. Arrivals are counted in 10 ms
        // buckets; the ratio is the busiest bucket over the mean over the
        // 80 buckets of [0, 800): 1000 / 80 = 12.5 a bucket.
        //
        // Without jitter all 1000 land in one bucket: 1000 / 12.5 = 80.
        // Full jitter is uniform over [0, 800): a bucket holds
        // Bin(1000, 1/80), mean 12.5, sd 3.5; more than 31 (over 5 sd) in
        // any of 80 buckets has probability under 80 x 1e-7, so the ratio
        // stays under 31 / 12.5 = 2.48. Equal jitter is uniform over
        // [400, 800): 40 buckets of Bin(1000, 1/40), mean 25 (so the
        // busiest holds at least 25: a ratio of at least 2) and sd 4.9;
        // over 45 (4 sd) somewhere has probability under 40 x 3.2e-5.
        let ratio = |b: Backoff, seed: u64| {
            let mut g = Generator::default_for(seed);
            let mut buckets = vec![0u32; 81];
            for _ in 0..1000 {
                let w = sample_wait(&b, 4, &mut g, &mut None);
                buckets[(w / 10).min(80) as usize] += 1;
            }
            f64::from(*buckets.iter().max().unwrap_or(&0)) / (1000.0 / 80.0)
        };
        let (base, multiplier, cap) = (100, 2.0, Some(10_000));
        for seed in [1, 2, 3] {
            let none = ratio(
                Backoff::Exponential {
                    base,
                    multiplier,
                    cap,
                },
                seed,
            );
            let full = ratio(
                Backoff::FullJitter {
                    base,
                    multiplier,
                    cap,
                    rng: None,
                },
                seed,
            );
            let equal = ratio(
                Backoff::EqualJitter {
                    base,
                    multiplier,
                    cap,
                    rng: None,
                },
                seed,
            );
            assert_eq!(none, 80.0, "seed {seed}");
            assert!(full < 2.48, "seed {seed}: full {full}");
            assert!((2.0..=3.6).contains(&equal), "seed {seed}: equal {equal}");
        }
    }

    #[test]
    fn library_backoffs_in_the_model_follow_their_rules() {
        // gRPC, the brief's example: initial 100, x1.6, max 10 000. Retry 3:
        // 100 x 1.6^2 = 256, times 0.8 + 0.4r.
        let grpc = Backoff::Library(LibraryBackoff::Grpc {
            initial: 100,
            max: 10_000,
            multiplier: 1.6,
        });
        assert_eq!(grpc.wait_with(3, 0.5, None), 256);
        // r = 0: 256 x 0.8 = 204.8, rounded to 205.
        assert_eq!(grpc.wait_with(3, 0.0, None), 205);
        // Retry 20: 100 x 1.6^19 is far past the max; 10 000 x 1.2 (r -> 1)
        // may pass the max, as A6 allows.
        assert_eq!(grpc.wait_with(20, 0.999_999, None), 12_000);
        // Envoy's code, base 25, max 250: retry 4 ranges over [0, 200);
        // r = 0.5 gives floor(100) = 100. The docs' range for retry 4 is
        // (2^4 - 1) x 25 = 375, capped at 250: r = 0.5 gives 125.
        let code = Backoff::Library(LibraryBackoff::Envoy {
            base: 25,
            max: 250,
            docs: false,
        });
        let docs = Backoff::Library(LibraryBackoff::Envoy {
            base: 25,
            max: 250,
            docs: true,
        });
        assert_eq!(code.wait_with(4, 0.5, None), 100);
        assert_eq!(docs.wait_with(4, 0.5, None), 125);
        assert_eq!(code.bound(4), 200.0);
        assert_eq!(docs.bound(4), 250.0);
        // AWS, base 100, cap 20 000: retry 3 ranges over [0, 400).
        let aws = Backoff::Library(LibraryBackoff::Aws {
            base: 100,
            cap: 20_000,
        });
        assert_eq!(aws.wait_with(3, 0.25, None), 100);
        assert_eq!(aws.wait(9), 20_000);
        assert!(grpc.draws() && code.draws() && aws.draws());
    }

    #[test]
    fn polly_in_the_model_carries_its_formula_between_retries() {
        // Median 1000. The generator's first two draws r1, r2 (read from a
        // copy): wait 1 = f(r1) / 1.4 x 1000, wait 2 = (f(1 + r2) - f(r1))
        // / 1.4 x 1000, with f(t) = 2^t tanh(sqrt(4t)), each rounded.
        let f = |t: f64| 2f64.powf(t) * (4.0 * t).sqrt().tanh();
        let b = Backoff::Library(LibraryBackoff::Polly {
            median: 1000,
            max: None,
        });
        let mut g = Generator::default_for(11);
        let mut copy = Generator::default_for(11);
        let (r1, r2) = (copy.next_f64(), copy.next_f64());
        let mut prev = None;
        let w1 = sample_wait(&b, 1, &mut g, &mut prev);
        let w2 = sample_wait(&b, 2, &mut g, &mut prev);
        assert_eq!(w1, (f(r1) / 1.4 * 1000.0).round() as u64);
        assert_eq!(w2, ((f(1.0 + r2) - f(r1)) / 1.4 * 1000.0).round() as u64);
        // With a max of 500, the second wait is cut to it (Polly's MaxDelay).
        let capped = Backoff::Library(LibraryBackoff::Polly {
            median: 1000,
            max: Some(500),
        });
        let mut g = Generator::default_for(11);
        let mut prev = None;
        let _ = sample_wait(&capped, 1, &mut g, &mut prev);
        assert_eq!(sample_wait(&capped, 2, &mut g, &mut prev), w2.min(500));
    }
}
