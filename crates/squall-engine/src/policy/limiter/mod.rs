//! Adaptive concurrency limits: a caller bounds the tries it has in flight
//! to its callee by a limit that adapts from each try's round trip.
//!
//! [`Limiter`] is the one interface the caller side asks: [`Limiter::acquire`]
//! when a try is about to go (refused when the tries in flight are at the
//! limit: the try is not sent), [`Limiter::release`] when it ends, with
//! its round trip and what became of it ([`Sample`]). The rules, one file
//! each, after the libraries' own source:
//!
//! | kind        | file           | library source |
//! |-------------|----------------|----------------|
//! | `aimd`      | `aimd.rs`      | Netflix concurrency-limits `limit/AIMDLimit.java` |
//! | `vegas`     | `vegas.rs`     | `limit/VegasLimit.java` |
//! | `gradient2` | `gradient2.rs` | `limit/Gradient2Limit.java` |
//! | `envoy`     | `envoy.rs`     | Envoy `adaptive_concurrency/controller/gradient_controller.cc` |
//!
//! **What the Netflix limits hear** (`limiter/AbstractLimiter.java`,
//! `Limiter.Listener`): a success is `onSuccess` (a sample), a try
//! "rejected by an external limit or hitting a timeout" is `onDropped` (a
//! sample marked dropped), anything else `onIgnore` (no sample). squall
//! reads a timeout, a passed deadline, an overflow or refusal for
//! capacity, a queue timeout, a 429 or 503 and a try refused by a limiter
//! downstream as dropped; other failures as ignored (the Listener's
//! rule: Netflix's own gRPC client interceptor reads only `UNAVAILABLE` as
//! a drop and a deadline as ignored). The `inflight` a sample carries is
//! the count when the try was sent, itself included
//! (`createListener`). Envoy samples every try that ends with an answer
//! or a timeout, and only uncounts one given up (cancelled).
//!
//! A round trip of 0 units is taken as 1 (Vegas refuses 0, and the
//! gradients divide by it). Each limiter that draws (Vegas's probe jitter,
//! Envoy's minRTT jitter) has its own stream, `limiter/<node>` under the
//! run's seed (a client's own, `limiter/<node>/<source>/<client>`), so no
//! other component's draws move.

pub mod aimd;
pub mod envoy;
pub mod gradient2;
pub mod vegas;

use squall_lang::{AimdSpec, EnvoySpec, LimiterSpec};

use crate::outcome::{Answer, FailKind};
use crate::rng::Stream;
use crate::time::Resolution;

use aimd::Aimd;
use envoy::Envoy;
use gradient2::Gradient2;
use vegas::Vegas;

/// What became of a try, as a limiter hears it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sample {
    /// Answered with success.
    Ok,
    /// Timed out, or rejected for load (`onDropped`).
    Dropped,
    /// Another failure (`onIgnore` for the Netflix limits; a sample for
    /// Envoy's).
    Failed,
    /// Given up without an answer: cancelled (`onIgnore`;
    /// `cancelLatencySample`).
    Cancelled,
}

impl Sample {
    /// What a try's `answer` is to a limiter: success; dropped for a
    /// timeout, a passed deadline, a refusal for load (capacity, a full
    /// queue, a queue timeout, a limiter downstream) or a 429 or 503;
    /// failed otherwise (the module doc says why).
    pub fn of(answer: Answer) -> Sample {
        match answer {
            Answer::Ok => Sample::Ok,
            Answer::Fail(f) => match f.kind {
                FailKind::Timeout
                | FailKind::Deadline
                | FailKind::Refused
                | FailKind::Overflow
                | FailKind::QueueTimeout
                | FailKind::Limited
                | FailKind::Status(429 | 503) => Sample::Dropped,
                _ => Sample::Failed,
            },
        }
    }
}

/// One algorithm's state.
#[derive(Debug, Clone)]
enum Rule {
    Aimd(Aimd),
    Vegas(Vegas),
    Gradient2(Gradient2),
    Envoy(Envoy),
}

/// A caller's adaptive concurrency limit and its tries in flight.
#[derive(Debug, Clone)]
pub struct Limiter {
    rule: Rule,
    inflight: u32,
    stream: Stream,
}

impl Limiter {
    /// The limiter `spec` describes, durations converted from ticks by
    /// `res`, drawing from `stream`.
    pub fn new(spec: &LimiterSpec, res: Resolution, mut stream: Stream) -> Self {
        let units = |ticks: u64| res.ticks(ticks).units();
        let rule = match *spec {
            LimiterSpec::Aimd(s) => Rule::Aimd(Aimd::new(AimdSpec {
                timeout: units(s.timeout),
                ..s
            })),
            LimiterSpec::Vegas(s) => Rule::Vegas(Vegas::new(s, &mut stream)),
            LimiterSpec::Gradient2(s) => Rule::Gradient2(Gradient2::new(s)),
            LimiterSpec::Envoy(s) => Rule::Envoy(Envoy::new(EnvoySpec {
                update_interval: units(s.update_interval),
                min_rtt_interval: units(s.min_rtt_interval),
                ..s
            })),
        };
        Limiter {
            rule,
            inflight: 0,
            stream,
        }
    }

    /// The limit at `now` \[engine units\].
    pub fn limit(&mut self, now: u64) -> u32 {
        match &mut self.rule {
            Rule::Aimd(a) => a.limit(),
            Rule::Vegas(v) => v.limit(),
            Rule::Gradient2(g) => g.limit(),
            Rule::Envoy(e) => {
                e.advance(now);
                e.limit()
            }
        }
    }

    /// Tries in flight.
    pub fn inflight(&self) -> u32 {
        self.inflight
    }

    /// A try asks to go at `now`: `None` when the tries in flight are at
    /// the limit (refused: not sent); otherwise it is counted, and the
    /// count with it is returned (hand it back to [`Self::release`]).
    pub fn acquire(&mut self, now: u64) -> Option<u32> {
        if self.inflight >= self.limit(now) {
            return None;
        }
        self.inflight += 1;
        Some(self.inflight)
    }

    /// A try sent at `sent` with `inflight` tries out (its
    /// [`Self::acquire`]) ended at `now` as `sample`.
    pub fn release(&mut self, now: u64, sent: u64, inflight: u32, sample: Sample) {
        self.inflight = self.inflight.saturating_sub(1);
        let rtt = now.saturating_sub(sent).max(1);
        let dropped = sample == Sample::Dropped;
        match &mut self.rule {
            Rule::Envoy(e) => {
                e.advance(now);
                if sample != Sample::Cancelled {
                    e.record(now, sent, &mut self.stream);
                }
            }
            _ if matches!(sample, Sample::Failed | Sample::Cancelled) => {}
            Rule::Aimd(a) => a.sample(rtt, inflight, dropped),
            Rule::Vegas(v) => v.sample(rtt, inflight, dropped, &mut self.stream),
            Rule::Gradient2(g) => g.sample(rtt, inflight),
        }
    }
}
