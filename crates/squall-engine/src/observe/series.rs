//! Series per slot: [`NodeSeries`] for every node, [`CompositeSeries`] for
//! a node with a composite response.
//!
//! Index `i` of every vector holds slot `i` of the run's
//! [`Slots`](super::slots::Slots): tick `i` on a run that takes no time
//! (index 0 is unused, so a run of `ticks` ticks has `ticks + 1` entries),
//! a bin of the series (or the part of one inside a window) on a run that
//! takes time. Counters are calls per slot, except `bytes` (bytes per
//! slot). A call is counted at every node it
//! reaches, once per try; `unique` counts request ids instead, so the ratio
//! of `calls` to `unique` is the amplification retries cause.

use serde::Serialize;

use crate::outcome::Answer;

/// Counters of one node per slot; index 0 is unused.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeSeries {
    /// The node's name.
    pub name: String,
    /// Calls the node saw (served or not).
    pub calls: Vec<u32>,
    /// Calls it answered with success.
    pub ok: Vec<u32>,
    /// Calls it answered with failure (refused, or its own tries used up).
    pub failed: Vec<u32>,
    /// Calls refused by its own capacity.
    pub refused: Vec<u32>,
    /// Request ids seen at the node in this slot that it had not seen
    /// earlier in the same slot.
    pub unique: Vec<u32>,
    /// Calls its circuit breaker failed fast instead of sending.
    pub blocked: Vec<u32>,
    /// Retries its retry budget refused.
    pub retries_refused: Vec<u32>,
    /// Hedged tries it sent (beyond the first of each call).
    #[serde(skip_serializing_if = "<[u32]>::is_empty")]
    pub hedged: Vec<u32>,
    /// Tries its client-side throttle rejected locally (first tries and
    /// retries), counted in the slot of the rejection. Empty until the
    /// node's first rejection, and on a node without a throttle.
    #[serde(skip_serializing_if = "<[u32]>::is_empty")]
    pub rejected_locally: Vec<u32>,
    /// Retries its retry policy made (tries after a call's first), counted
    /// in the slot of the failure that decided each. Empty until the node's
    /// first retry (a run with no retry keeps no series, and reads 0).
    #[serde(skip_serializing_if = "<[u32]>::is_empty")]
    pub retries: Vec<u32>,
    /// For a node with a composite response, what its responses held.
    pub composite: Option<CompositeSeries>,
    /// On a run counted in bins: per slot, the last tick in which the node
    /// answered a call with success (0 for none), so that `last_answered`
    /// is a tick, not a bin's end. Empty when every slot is one tick (the
    /// slot is its tick).
    #[serde(skip)]
    pub last_ok: Vec<u64>,
}

impl NodeSeries {
    /// The node's answer at `t`, in series slot `i` (the timed path,
    /// which finds the slot with its
    /// [`SlotCursor`](crate::observe::slots::SlotCursor); the round walk
    /// counts answers in its tick's counts, `simulation/tick.rs`).
    #[inline(always)]
    pub(crate) fn count_answer(&mut self, i: usize, t: u64, answer: Answer) {
        match answer {
            Answer::Ok => {
                self.ok[i] += 1;
                if let Some(last) = self.last_ok.get_mut(i) {
                    *last = (*last).max(t);
                }
            }
            Answer::Fail(_) => self.failed[i] += 1,
        }
    }

    /// A hedged try in slot `i`: the series is made at the node's first.
    pub(crate) fn count_hedged(&mut self, i: usize) {
        if self.hedged.is_empty() {
            self.hedged = vec![0; self.calls.len()];
        }
        self.hedged[i] += 1;
    }

    /// A try its throttle rejected in slot `i`: the series is made at the
    /// node's first.
    pub(crate) fn count_rejected_locally(&mut self, i: usize) {
        if self.rejected_locally.is_empty() {
            self.rejected_locally = vec![0; self.calls.len()];
        }
        self.rejected_locally[i] += 1;
    }

    /// `n` retries decided in slot `i`: the series is made at the node's
    /// first.
    #[inline]
    pub(crate) fn count_retries(&mut self, i: usize, n: u32) {
        if self.retries.is_empty() {
            self.retries = vec![0; self.calls.len()];
        }
        self.retries[i] += n;
    }

    pub(crate) fn new(name: &str, n: usize, binned: bool) -> Self {
        NodeSeries {
            name: name.to_string(),
            calls: vec![0; n],
            ok: vec![0; n],
            failed: vec![0; n],
            refused: vec![0; n],
            unique: vec![0; n],
            blocked: vec![0; n],
            retries_refused: vec![0; n],
            hedged: Vec::new(),
            rejected_locally: Vec::new(),
            retries: Vec::new(),
            composite: None,
            last_ok: if binned { vec![0; n] } else { Vec::new() },
        }
    }
}

/// Counters of a composite response per slot.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompositeSeries {
    /// Responses with every field fresh.
    pub full: Vec<u32>,
    /// Responses answered with a field stale or missing.
    pub reduced: Vec<u32>,
    /// Fresh fields in answered responses.
    pub fresh: Vec<u32>,
    /// Fields served from the ledger in answered responses.
    pub stale: Vec<u32>,
    /// Fields left out of answered responses.
    pub missing: Vec<u32>,
    /// Bytes of answered responses.
    pub bytes: Vec<u64>,
}

impl CompositeSeries {
    pub(crate) fn new(n: usize) -> Self {
        CompositeSeries {
            full: vec![0; n],
            reduced: vec![0; n],
            fresh: vec![0; n],
            stale: vec![0; n],
            missing: vec![0; n],
            bytes: vec![0; n],
        }
    }
}
