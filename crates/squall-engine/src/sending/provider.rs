//! A provider: a server whose rate limit answers throttles, bad records
//! and unknown codes. Every sender that names it sends to this one value,
//! so they share its ceiling.
//!
//! An attempt meets the provider when it is sent: its ceiling (the token
//! bucket the services' rate limits use, `server/token_bucket.rs`) first,
//! past which it is throttled; then a bad record answers its permanent
//! code; then an unknown code with the provider's share (one draw); else
//! success.

use crate::rng::Stream;
use crate::server::token_bucket::TokenBucket;
use crate::time::{Duration, Resolution, Time};

use super::classify::ProviderCode;
use super::next_attempt::RetryAfter;
use super::spec::{ProviderSpec, RetryAfterForm};

/// What the provider answered to one attempt.
#[derive(Debug, Clone, Copy)]
pub(super) struct Reply {
    /// The code.
    pub code: ProviderCode,
    /// Past the ceiling.
    pub throttled: bool,
    /// The throttle's Retry-After, in the provider's form.
    pub retry_after: Option<RetryAfter>,
}

/// A provider in a run: its spec, its ceiling and its two streams.
pub(super) struct Provider<'a> {
    spec: &'a ProviderSpec,
    ceiling: TokenBucket,
    /// Engine units in a second (for Retry-After's whole seconds).
    second: u64,
    throttle_rng: Stream,
    unknown_rng: Stream,
}

impl<'a> Provider<'a> {
    /// The provider of `spec`, its streams labelled `send throttle` and
    /// `send unknown` followed by `suffix`.
    pub fn new(spec: &'a ProviderSpec, seed: u64, suffix: &str, res: Resolution, sec: f64) -> Self {
        Provider {
            spec,
            ceiling: TokenBucket::new(spec.ceiling, spec.burst, res),
            second: (1.0 / sec).round().max(1.0) as u64,
            throttle_rng: Stream::new(seed, &format!("send throttle{suffix}")),
            unknown_rng: Stream::new(seed, &format!("send unknown{suffix}")),
        }
    }

    /// The answer to an attempt sent at `now` for a record that is bad
    /// with `bad`'s code (`None`: a good record).
    pub fn answer(&mut self, now: Time, bad: Option<ProviderCode>) -> Reply {
        let p = self.spec;
        match self.ceiling.take(now) {
            Err(wait) => {
                let code = pick(&p.throttles, &mut self.throttle_rng).unwrap_or(p.success);
                let wait = wait.unwrap_or(Duration::from_units(u64::MAX));
                let second = self.second;
                let retry_after = match (code, p.retry_after) {
                    (ProviderCode::Protocol(_), _) | (_, RetryAfterForm::None) => None,
                    (_, RetryAfterForm::Seconds) => Some(RetryAfter::Delay(Duration::from_units(
                        wait.units().div_ceil(second).saturating_mul(second),
                    ))),
                    (_, RetryAfterForm::Date) => {
                        let at = now
                            .after(wait)
                            .units()
                            .div_ceil(second)
                            .saturating_mul(second);
                        Some(RetryAfter::At(Time::from_units(at)))
                    }
                };
                Reply {
                    code,
                    throttled: true,
                    retry_after,
                }
            }
            Ok(()) => {
                let code = match bad {
                    Some(code) => code,
                    None if p.unknown_share > 0.0
                        && self.unknown_rng.next_f64() < p.unknown_share =>
                    {
                        p.unknown_code
                    }
                    None => p.success,
                };
                Reply {
                    code,
                    throttled: false,
                    retry_after: None,
                }
            }
        }
    }
}

/// One of `choices` by weight (`None` when there are none).
fn pick(choices: &[(ProviderCode, f64)], rng: &mut Stream) -> Option<ProviderCode> {
    match choices {
        [] => None,
        [(one, _)] => Some(*one),
        _ => {
            let total: f64 = choices.iter().map(|(_, w)| w.max(0.0)).sum();
            let mut x = rng.next_f64() * total;
            for &(c, w) in choices {
                x -= w.max(0.0);
                if x < 0.0 {
                    return Some(c);
                }
            }
            choices.last().map(|&(c, _)| c)
        }
    }
}
