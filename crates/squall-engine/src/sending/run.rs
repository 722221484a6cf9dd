//! A run of senders: every sender and every provider of a model, on the
//! timed engine's loop (`simulation/timed/flow/`) and its one calendar
//! ([`crate::queue::EventQueue`]), one event at a time. [`run_senders`]
//! is the entry that builds them; the sending path has no loop of its own.
//!
//! # Components
//!
//! | component  | owns                                                | file          |
//! |------------|-----------------------------------------------------|---------------|
//! | `Provider` | its ceiling (`server/token_bucket.rs`), its answers | `provider.rs` |
//! | `Sender`   | records, the pool, the caller side, its series      | `sender.rs`   |
//! | `Feed`     | the source that enters a sender, if one does        | `feed.rs`     |
//! | `Senders`  | a run's senders and providers, who names whom       | `engine.rs`   |
//!
//! # What runs where
//!
//! [`run_senders`] makes a model of no node and no source under the first
//! sender's clock, length and seed, builds its `Simulation` on the timed
//! path, and hands it the `Senders` (`Simulation::run_sending`,
//! `simulation/runner.rs`). The `Runner` holds them beside its nodes (its
//! `senders` field) for that run; they start at time 0 in declaration
//! order (`Sender::start`), before the loop pops anything. A sender's
//! event rides on the calendar as the simulation's `Event::Send`
//! (`calendar.rs`: two `u32`s, so the calendar's entry keeps its size);
//! the loop's one arm for it hands it to `Senders`, which calls
//! `Sender::handle` then `Sender::dispatch` of the sender it belongs to,
//! which hands each attempt to `Provider::answer` of the provider the
//! sender names. Senders schedule through the `Calendar` trait and never
//! name the simulation's types. Senders naming one provider hand their
//! attempts to the same value, so they share its ceiling (issue 18's
//! defect 3: run apart, two senders to one provider each saw the whole
//! ceiling).
//!
//! A model's services and its senders are two runs (the report makes
//! both): a model's services may run on the zero-time path, which has no
//! calendar in engine units and whose reports must not move, and nothing
//! a sender does reaches a service or back. A run of services holds no
//! senders and its calendar never carries their events: it pays one
//! arm of a match it never takes and one empty field.
//!
//! What the sending run keeps of the loop it replaced:
//!
//! * **Its end.** The timed loop pops events before `ticks + 1` ticks
//!   after time 0; the sending loop stopped at `ticks` ticks after time 0
//!   (an event at exactly that moment still ran, and the senders measure
//!   to it). `Senders` ignores every event after that moment: those the
//!   loop still pops are the run's last (nothing else is on its calendar)
//!   and did nothing before either, so every sender ends, and measures,
//!   where it did.
//! * **Its budget.** A sending run has no work budget, only its bound on
//!   records ([`MAX_RECORDS`], checked before the run and at each record a
//!   feed creates): its `Simulation` is built with a work budget of
//!   `u64::MAX`, so the loop's count of events never stops it. A
//!   sender's own count of events (`SendObservations::events`) counts
//!   what it handled, as before, not the wake-ups a sooner one replaced.
//! * **Its order.** The calendar orders by time, then by scheduling
//!   order, as the sending loop's did (only the width of its buckets is
//!   the timed path's), so every event and every draw comes in the order
//!   it always did.

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
    // carries the senders' events alone. No work budget (the module doc, "Its budget").
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
