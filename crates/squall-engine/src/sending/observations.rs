//! What a sending run measured: every attempt, the records' final states,
//! and series in bins.

use serde::Serialize;

use super::classify::ProviderCode;
use super::state::{check_attempts, IllegalAttempt, LoggedAttempt, Machine, SendState};

/// One send attempt, as the attempt log stores it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AttemptRow {
    /// The record (0-based, in creation order).
    pub record: u64,
    /// 1 for the record's first attempt.
    pub attempt: u32,
    /// When it was sent \[engine units\].
    pub at: u64,
    /// What the provider answered.
    pub code: ProviderCode,
    /// Whether the provider throttled it (past its ceiling).
    pub throttled: bool,
    /// The record's state once the answer was handled.
    pub status: SendState,
    /// For `PENDING`: when it may be queued again \[engine units\].
    pub next_attempt_at: Option<u64>,
}

/// Records by where they stand at the end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct FinalStates {
    /// Records created.
    pub created: u64,
    /// Waiting for a sender (never tried, or back from pending).
    pub queued: u64,
    /// Sent, no answer yet.
    pub in_flight: u64,
    /// Accepted.
    pub submitted: u64,
    /// Waiting for `next_attempt_at`.
    pub pending: u64,
    /// Terminal.
    pub failed: u64,
    /// Past a cap.
    pub deferred: u64,
    /// The naive client's terminal bucket.
    pub rejected: u64,
}

impl FinalStates {
    /// Every record is in exactly one state: the sum of the states.
    pub fn accounted(&self) -> u64 {
        self.queued
            + self.in_flight
            + self.submitted
            + self.pending
            + self.failed
            + self.deferred
            + self.rejected
    }
}

/// One bin of the series.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SendBin {
    /// Attempts sent in the bin.
    pub attempts: u64,
    /// Of them, throttled by the provider.
    pub throttled: u64,
    /// Records submitted in the bin (by answer time).
    pub delivered: u64,
    /// The send rate gating attempts at the end of the bin \[per s\]
    /// (the pool's own rate when nothing adapts it).
    pub rate: f64,
    /// Age of the oldest record not yet final at the end of the bin \[s\]
    /// (0 when there is none).
    pub oldest_waiting: f64,
}

/// Everything a sending run measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SendObservations {
    /// Engine units per tick.
    pub units_per_tick: u64,
    /// Width of a bin \[ticks\].
    pub bin: u64,
    /// Every attempt, in the order sent.
    pub attempts: Vec<AttemptRow>,
    /// The records at the end.
    pub states: FinalStates,
    /// Series, one entry per bin.
    pub bins: Vec<SendBin>,
    /// Age of the oldest record not yet final at the end \[s\].
    pub oldest_waiting: f64,
    /// Events the run handled (creations, wake-ups of the pool, answers,
    /// pending records coming due): the run's work, linear in its
    /// attempts and records.
    pub events: u64,
}

impl SendObservations {
    /// Every record's logged attempts checked against `machine`'s
    /// transition table ([`check_attempts`]); a last attempt still in
    /// flight at the run's end is left out. The first record that made an
    /// illegal step, with the step.
    pub fn check_legal(&self, machine: Machine) -> Result<(), (u64, IllegalAttempt)> {
        let mut by_record: Vec<Vec<LoggedAttempt>> = vec![Vec::new(); self.states.created as usize];
        for a in &self.attempts {
            if let Some(log) = by_record.get_mut(a.record as usize) {
                log.push(LoggedAttempt {
                    attempt: a.attempt,
                    at: a.at,
                    status: a.status,
                    next_attempt_at: a.next_attempt_at,
                });
            }
        }
        for (r, log) in by_record.iter().enumerate() {
            let answered = match log.last() {
                Some(last) if last.status == SendState::InFlight => &log[..log.len() - 1],
                _ => &log[..],
            };
            check_attempts(machine, answered).map_err(|e| (r as u64, e))?;
        }
        Ok(())
    }
}
