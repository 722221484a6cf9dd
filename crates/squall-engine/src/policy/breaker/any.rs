//! [`AnyBreaker`]: the breaker a service has, whichever kind it is.
//!
//! The event loop asks one interface ([`AnyBreaker::admit`],
//! [`AnyBreaker::record`]) whether a try is sent and tells it the answer;
//! the kinds are today's consecutive-failure [`Breaker`], resilience4j's
//! and Polly's rate-window breakers. A rate-window breaker with jitter on
//! its open time draws one number per opening from its own stream
//! (`breaker/<node>` under the run's seed), so no other component's draws
//! move. Calls take no time on this path, so no call is slow.

use squall_lang::LibraryBreakerSpec;

use super::polly::{PollyBreaker, PollySpec};
use super::resilience4j::{Resilience4jBreaker, Resilience4jSpec, WindowKind};
use super::{Admission, Breaker, State};
use crate::rng::Stream;

/// A service's breaker, of any kind.
#[derive(Debug, Clone)]
pub enum AnyBreaker {
    /// Consecutive failures (`breaker { after N failures ... }`).
    Consecutive(Breaker),
    /// resilience4j's rate-window breaker, with its jitter stream.
    Resilience4j(Resilience4jBreaker, Stream),
    /// Polly's rate-window breaker, with its jitter stream.
    Polly(PollyBreaker, Stream),
}

impl AnyBreaker {
    /// The breaker a library spec describes, for node `node` of a run
    /// seeded `seed`.
    pub fn library(spec: &LibraryBreakerSpec, seed: u64, node: usize) -> Self {
        Self::library_with(spec, Stream::new(seed, &format!("breaker/{node}")))
    }

    /// The breaker a library spec describes, drawing its open-time jitter
    /// from `stream` (a per-client breaker has a stream of its own, so a
    /// thousand breakers that open together draw a thousand open times).
    pub fn library_with(spec: &LibraryBreakerSpec, stream: Stream) -> Self {
        match *spec {
            LibraryBreakerSpec::Resilience4j {
                window_calls,
                window,
                bucket,
                minimum_calls,
                failure_rate,
                slow_call_rate,
                slow_call_duration,
                wait_open,
                open_jitter,
                half_open_calls,
                automatic,
            } => {
                let window = match window_calls {
                    Some(n) => WindowKind::Count(n as usize),
                    None => WindowKind::Time {
                        n: window.div_ceil(bucket.max(1)).max(1) as usize,
                        width: bucket.max(1),
                    },
                };
                AnyBreaker::Resilience4j(
                    Resilience4jBreaker::new(Resilience4jSpec {
                        window,
                        minimum_calls,
                        failure_rate,
                        slow_call_rate,
                        slow_call_duration,
                        wait_open,
                        open_jitter,
                        permitted_half_open: half_open_calls,
                        automatic,
                    }),
                    stream,
                )
            }
            LibraryBreakerSpec::Polly {
                failure_ratio,
                minimum_throughput,
                sampling,
                short_sampling,
                break_duration,
                open_jitter,
            } => AnyBreaker::Polly(
                PollyBreaker::new(PollySpec {
                    failure_ratio,
                    minimum_throughput,
                    sampling,
                    break_duration,
                    open_jitter,
                    short_sampling,
                }),
                stream,
            ),
        }
    }

    /// The state it is in (without advancing time: a cool-down that is
    /// over shows once a call asks).
    #[inline]
    pub fn state(&self) -> State {
        match self {
            AnyBreaker::Consecutive(b) => b.state(),
            AnyBreaker::Resilience4j(b, _) => b.state(),
            AnyBreaker::Polly(b, _) => b.state(),
        }
    }

    /// While open, the first tick at which a call goes through (as a probe).
    #[inline]
    pub fn probe_from(&self) -> u64 {
        match self {
            AnyBreaker::Consecutive(b) => b.probe_from(),
            AnyBreaker::Resilience4j(b, _) => b.probe_from(),
            AnyBreaker::Polly(b, _) => b.probe_from(),
        }
    }

    /// Decides whether a call at `now` is sent.
    #[inline]
    pub fn admit(&mut self, now: u64) -> Admission {
        match self {
            AnyBreaker::Consecutive(b) => b.admit(now),
            AnyBreaker::Resilience4j(b, _) => b.admit(now),
            AnyBreaker::Polly(b, _) => b.admit(now),
        }
    }

    /// Records the answer to a call sent in `epoch` that took `duration`
    /// ticks (rounded up: "longer than a threshold of whole ticks" reads
    /// the same on the rounded value); returns the state after. Only
    /// resilience4j's slow-call rule reads the duration.
    #[inline]
    pub fn record(&mut self, failed: bool, duration: u64, now: u64, epoch: u64) -> State {
        match self {
            AnyBreaker::Consecutive(b) => b.record(failed, now, epoch),
            AnyBreaker::Resilience4j(b, s) => {
                b.record(failed, duration, now, epoch, || s.next_f64())
            }
            AnyBreaker::Polly(b, s) => b.record(failed, now, epoch, || s.next_f64()),
        }
    }
}
