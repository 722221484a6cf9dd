//! The adaptive send rate: the throttle signal fed back to the pool's
//! token rate, as a named kind.
//!
//! | kind            | reacts to                            | file              |
//! |-----------------|--------------------------------------|-------------------|
//! | `aimd`          | the throttle ratio over a window     | `aimd.rs`         |
//! | `aws_adaptive`  | every answer (CUBIC, as the SDKs do) | `aws_adaptive.rs` |
//!
//! A throttle here means the provider said "not now" (429, a protocol
//! throttle code): the answers a [`super::Classifier`] calls retryable
//! because of timing. Rates are per second, times in seconds since the
//! start of the run.

pub use squall_lang::model::sending::AdaptiveSpec;

use super::aimd::Aimd;
use super::aws_adaptive::AwsAdaptive;

/// A running controller.
#[derive(Debug, Clone, PartialEq)]
pub enum AdaptiveRate {
    /// See [`Aimd`].
    Aimd(Aimd),
    /// See [`AwsAdaptive`].
    AwsAdaptive(AwsAdaptive),
}

impl AdaptiveRate {
    /// Starts `spec` at `now`, sending at `rate` per second.
    pub fn new(spec: AdaptiveSpec, rate: f64, now: f64) -> Self {
        match spec {
            AdaptiveSpec::Aimd(s) => AdaptiveRate::Aimd(Aimd::new(s, rate, now)),
            AdaptiveSpec::AwsAdaptive => AdaptiveRate::AwsAdaptive(AwsAdaptive::new(now)),
        }
    }

    /// Handles an answer at `now`.
    pub fn on_response(&mut self, now: f64, throttled: bool) {
        match self {
            AdaptiveRate::Aimd(a) => a.on_response(now, throttled),
            AdaptiveRate::AwsAdaptive(a) => a.on_response(now, throttled),
        }
    }

    /// `(rate per s, burst)` attempts are gated at, or `None` for the
    /// pool's own rate.
    pub fn gate(&self) -> Option<(f64, f64)> {
        match self {
            AdaptiveRate::Aimd(a) => Some((a.rate(), 1.0)),
            AdaptiveRate::AwsAdaptive(a) => a.rate().map(|r| (r, a.capacity())),
        }
    }
}
