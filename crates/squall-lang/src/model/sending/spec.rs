//! What a sending study is made of, as plain data: records, a pool of
//! senders, a provider with a rate ceiling, and the client's rules.
//!
//! Durations and rates are in ticks of the study's clock (`clock ms`:
//! milliseconds, rates per millisecond), as everywhere in a model.

use serde::Serialize;

use super::{AdaptiveSpec, Classifier, CodeMatch, ProviderCode};
use crate::model::{Clock, SourceSpec};

/// Records one run holds at most, over all its senders: each costs a few
/// dozen bytes and every attempt is kept for the log. The language
/// refuses a run past it where its `records` are written; the engine
/// refuses it too.
pub const MAX_RECORDS: u64 = 10_000_000;

/// A whole sending study.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SendSpec {
    /// The sender's name, as its block declares it.
    pub name: String,
    /// The file's clock.
    pub clock: Clock,
    /// Length of the run \[ticks\].
    pub ticks: u64,
    /// Root seed of the run's streams.
    pub seed: u64,
    /// Width of a series bin \[ticks\] (a minute, for the document's query).
    pub bin: u64,
    /// The records to send. For a sender a source feeds, `count` is the
    /// number the source is expected to make (it sizes the run) and
    /// `rate` is `None`: the records are the feed's.
    pub records: RecordsSpec,
    /// The source that feeds the sender (`source s { ... enters outbox }`):
    /// each request it makes is a record created at that moment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feed: Option<SourceSpec>,
    /// The senders.
    pub pool: PoolSpec,
    /// Who answers.
    pub provider: ProviderSpec,
    /// How answers are read.
    pub client: ClientSpec,
    /// The send rate fed back from the throttles, if any.
    pub adaptive: Option<AdaptiveSpec>,
}

/// Records created over the run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RecordsSpec {
    /// How many.
    pub count: u64,
    /// Created at this rate \[per tick\] from tick 0; `None`: all at tick 0
    /// (or in bursts, with `batch`).
    pub rate: Option<f64>,
    /// Created in bursts (`records 48000 batch 500 per 1min`): `size`
    /// records at once at ticks 0, `every`, 2 x `every`, ... until `count`
    /// are made (the last burst may be smaller). `None` unless written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch: Option<RecordBatch>,
}

/// Records created in bursts: see [`RecordsSpec::batch`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RecordBatch {
    /// Records per burst (at least 1).
    pub size: u64,
    /// Time from one burst to the next \[ticks\] (more than 0).
    pub every: f64,
}

/// A pool of senders at a token rate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PoolSpec {
    /// Senders: attempts in flight at once.
    pub senders: u32,
    /// Attempts started per tick, at most.
    pub rate: f64,
    /// Tokens the pool's bucket holds (at least 1).
    pub burst: f64,
    /// How long an attempt takes to be answered \[ticks\].
    pub latency: f64,
    /// At most so many attempts per window, over the whole pool.
    pub window_cap: Option<WindowCap>,
}

/// A pool-wide attempt cap: at most `attempts` attempts start in each
/// window of `window` ticks (windows from tick 0: `[0, w)`, `[w, 2w)`,
/// ...); a pool at its cap waits for the next window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WindowCap {
    /// Attempts per window.
    pub attempts: u64,
    /// The window's length \[ticks\].
    pub window: f64,
}

/// How a throttle says when to come back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RetryAfterForm {
    /// No Retry-After.
    None,
    /// `Retry-After: <seconds>`: the time until the next token, rounded up
    /// to whole seconds.
    Seconds,
    /// `Retry-After: <HTTP date>`: the next whole second (of the epoch)
    /// at which a token is there.
    Date,
}

/// A provider with a rate ceiling. Senders that name the same provider
/// (the same `name`) share it, its ceiling included.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProviderSpec {
    /// The provider's name, as its block declares it.
    pub name: String,
    /// Accepted attempts per tick, at most (a token bucket).
    pub ceiling: f64,
    /// Tokens its bucket holds (at least 1).
    pub burst: f64,
    /// What an accepted attempt answers.
    pub success: ProviderCode,
    /// What an attempt past the ceiling answers: `(code, weight)`, drawn
    /// by weight when there are several (HTTP 429 and SMPP 0x58 from two
    /// routes of one provider).
    pub throttles: Vec<(ProviderCode, f64)>,
    /// Whether HTTP throttles carry a Retry-After, and in which form.
    pub retry_after: RetryAfterForm,
    /// Share of records that are genuinely bad \[0, 1\], spread evenly.
    pub bad_share: f64,
    /// What a bad record answers, cycled over the bad records.
    pub bad_codes: Vec<ProviderCode>,
    /// Share of attempts answered with an unclassified code \[0, 1\].
    pub unknown_share: f64,
    /// That code.
    pub unknown_code: ProviderCode,
}

/// How the client reads answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ClientSpec {
    /// Anything but success is `REJECTED`, terminal.
    Naive {
        /// What counts as success.
        success: Vec<CodeMatch>,
    },
    /// Three classes and the state machine.
    Classified(ClassifiedSpec),
}

/// The fixed client.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassifiedSpec {
    /// Codes to classes.
    pub classifier: Classifier,
    /// Codes that mean "slow down": fed to the adaptive rate.
    pub throttles: Vec<CodeMatch>,
    /// Attempts per record, at most; past it `DEFERRED`.
    pub max_attempts: u32,
    /// Attempts per record while answers are unknown, at most.
    pub unknown_attempts: u32,
    /// A record whose next attempt would come later than this after its
    /// creation is `DEFERRED` \[ticks\] (a per-record limit in time; the
    /// pool-wide cap per window is [`PoolSpec::window_cap`]).
    pub max_age: Option<f64>,
    /// Full jitter's first window \[ticks\].
    pub jitter_base: f64,
    /// Full jitter's largest window \[ticks\].
    pub jitter_cap: f64,
    /// Whether a Retry-After decides `next_attempt_at`.
    pub honor_retry_after: bool,
}
