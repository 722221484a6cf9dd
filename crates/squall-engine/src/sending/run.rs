//! The sending run: every sender and every provider of a model on one
//! calendar ([`crate::queue::EventQueue`], the engine's one queue type),
//! one event at a time.
//!
//! # Components
//!
//! | component             | owns                                                | file          |
//! |-----------------------|-----------------------------------------------------|---------------|
//! | [`Provider`]          | its ceiling (`server/token_bucket.rs`), its answers | `provider.rs` |
//! | [`Sender`]            | records, the pool, the caller side, its series      | `sender.rs`   |
//! | `Feed`                | the source that enters a sender, if one does        | `feed.rs`     |
//!
//! The run drives them through the same few methods: `Sender::start` at
//! time 0; for each event off the calendar, `Sender::handle` then
//! `Sender::dispatch` of the sender it belongs to, which hands each
//! attempt to `Provider::answer` of the provider the sender names.
//! Senders naming one provider hand their attempts to the same value, so
//! they share its ceiling: that is the whole point of one run (issue 18's
//! defect 3: run apart, two senders to one provider each saw the whole
//! ceiling).
//!
//! This is not (yet) the timed call engine's loop (`simulation/timed/`):
//! a record source, its pool and its caller side do not fit that loop's
//! calls without reshaping the caller and server components of the
//! services, which another change owns. What is shared with it is the
//! calendar type, the token bucket, the time and random-stream modules,
//! and the rule of a source's arrivals (`arrivals.rs`'s `OpenLoop`: a
//! sender fed by a source creates a record at each request the source
//! makes, with the gaps the timed path's sources have); what is not
//! written twice is a policy: classification, Retry-After and jitter exist
//! only here.
//!
//! The step left: a model with senders runs on the timed `Runner`, its
//! calendar carrying a `Send(Event)` variant that `flow.rs` hands to
//! `Sender::handle`/`Sender::dispatch`, with the senders and providers
//! held beside the nodes; `run_senders` then becomes the entry that builds
//! them. The calendar's order is the same (time, then scheduling order),
//! so a file of senders alone keeps its events and draws in order; what
//! must be shown before the move is that document 004's report stays
//! byte-identical and that a run of services pays no instructions for it.
//!
//! # Events
//!
//! | event      | what happens                                                     |
//! |------------|------------------------------------------------------------------|
//! | `Create`   | the next record is created and queued (records at a rate, or the feed's next request; a feed's event at a change of rate only draws the next gap) |
//! | `Dispatch` | idle consumers take queued records while the pool's window cap and bucket allow |
//! | `Answer`   | an attempt's answer comes back; the caller side decides the state |
//! | `Due`      | a pending record's `next_attempt_at`: back to the queue          |
//!
//! Each event names its sender. The answer arrives the pool's `latency`
//! after the attempt (inline when the latency is zero). A sender's queue
//! is FIFO: a record back from pending joins its end. Events at the same
//! time run in the order they were scheduled; at time 0 the senders start
//! in declaration order.
//!
//! # Random draws, in event order
//!
//! Four streams under the run's seed. A provider draws from `send
//! throttle` (which throttle code when there are several, one draw per
//! throttle) and `send unknown` (one draw per attempt that passed the
//! ceiling on a good record, when the unknown share is positive); a
//! sender from `send jitter` (one draw per retry without a Retry-After),
//! and a sender fed by a Poisson source from `send source` (one draw per
//! gap, in the feed's event order).
//! The first provider and the first sender of a file use these labels as
//! they are, so a file with one of each draws as it always did; every
//! other one adds ` NAME` (its name), so adding a sender or a provider
//! after the others never changes their draws. Bad records are spread
//! evenly, not drawn: record `i` of a sender is bad when
//! `floor((i+1) * share) > floor(i * share)`, so a share gives an exact
//! count.
//!
//! # The send rate
//!
//! A pool's bucket runs at the pool's rate; with an adaptive rate the
//! bucket's rate is `min(pool rate, adaptive rate)` after every answer.
//! Adaptive rates think in seconds: a tick of `clock ms` is 0.001 s, of
//! `clock s` 1 s, and a round counts as a second.

use squall_lang::Model;

use crate::error::SimError;
use crate::simulation::Simulation;

use super::engine::Senders;
use super::observations::SendObservations;
use super::spec::SendSpec;

pub use squall_lang::model::sending::MAX_RECORDS;

/// Runs one sender against its own provider to its end: [`run_senders`]
/// with one sender.
pub fn run_sending(spec: &SendSpec) -> Result<SendObservations, SimError> {
    let mut out = run_senders(std::slice::from_ref(spec))?;
    Ok(out.remove(0))
}

/// The bytes a run of `specs` ([`run_senders`]) holds at its peak, at
/// most: every sender's records, pending events and logged attempts (the
/// attempt log keeps every attempt, so a finished run keeps them too).
/// Nothing is simulated.
pub fn estimate_bytes<'a>(specs: impl IntoIterator<Item = &'a SendSpec>) -> u64 {
    specs
        .into_iter()
        .map(super::sender::bytes)
        .fold(0, u64::saturating_add)
}

/// Runs every sender of a model in one run of the timed engine, to its
/// end: senders whose providers have the same name share that provider.
/// The clock, the length and the seed are the first sender's (a model's
/// senders all have the file's). One observation per sender, in order.
pub fn run_senders(specs: &[SendSpec]) -> Result<Vec<SendObservations>, SimError> {
    let Some(first) = specs.first() else {
        return Ok(Vec::new());
    };
    let records = specs
        .iter()
        .fold(0u64, |n, s| n.saturating_add(s.records.count));
    if records > MAX_RECORDS {
        return Err(SimError::TooManyRecords {
            records,
            limit: MAX_RECORDS,
        });
    }
    // A model of no node and no source, on the timed path: its loop
    // carries the senders' events alone. No work budget (see above).
    let model = Model {
        clock: first.clock,
        start: 0,
        ticks: first.ticks,
        seed: first.seed,
        ..Model::default()
    };
    let sim = Simulation::builder(&model)
        .force_timed()
        .work_budget(u64::MAX)
        .build()?;
    let mut senders = Senders::new(specs);
    sim.run_sending(&mut senders)?;
    Ok(senders.finish())
}
