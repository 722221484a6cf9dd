//! Common random numbers (`draws common`): the keys a run that takes time
//! draws a call's random numbers by, so that the same request meets the
//! same service times, error-share draws, backoff jitter, jittered fault
//! latencies and link latencies in every run of the file, whatever the
//! policy changed before it.
//!
//! A request's key is its source's key (`derive_seed(seed, "draws/<s>")`)
//! mixed with its place among that source's requests (0, 1, 2, ...); a
//! call's key is its caller's call's key mixed with the caller's try
//! number (1 for the first try, 2 for the first retry, ...), and a
//! composite field's call mixes in the field's index too
//! ([`crate::rng::mix_key`]). A call draws each purpose from a stream of
//! its key ([`crate::rng::Stream::keyed`]). So the second try of the first
//! request of source 0 at the second node of its path draws the same
//! service time in every variant that lets that try go: a variant's
//! difference is its policy's, not the luck of the draws.
//!
//! Arrivals are already common: each source draws its gaps from a stream
//! of its own, in order, so two runs of a source send at the same times.
//! What is not keyed and draws in the order it is asked, as without
//! `draws common`: a balancer's random picks, think and serial gaps, a work
//! queue's work times, a library breaker's jitter, and backoffs that draw
//! from a named `rng`.

use squall_lang::Model;

use crate::rng::{derive_seed, mix_key};

/// The keys: off unless the model says `draws common`.
#[derive(Debug, Default)]
pub(super) struct Keys {
    pub(super) on: bool,
    /// Per source: its key.
    source: Vec<u64>,
    /// Per source: requests it has sent.
    sent: Vec<u64>,
    /// Per call slot: the key of the call in it. Kept beside the call
    /// slab, not in it, so that a run without keys carries no word per
    /// call for them.
    call: Vec<u64>,
}

/// A composite field's call: its index is mixed in past this offset, so
/// that it never meets a try number.
const FIELD: u64 = 1 << 32;

impl Keys {
    pub(super) fn new(model: &Model, seed: u64) -> Self {
        if !model.common_draws {
            return Keys::default();
        }
        let n = model.sources.len();
        Keys {
            on: true,
            source: (0..n)
                .map(|s| derive_seed(seed, &format!("draws/{s}")))
                .collect(),
            sent: vec![0; n],
            call: Vec::new(),
        }
    }

    /// The key of the call in slot `c`.
    #[inline]
    pub(super) fn of(&self, c: u32) -> u64 {
        self.call[c as usize]
    }

    /// Call slot `c` now holds a new call, keyed `key`.
    pub(super) fn set(&mut self, c: u32, key: u64) {
        let i = c as usize;
        if self.call.len() <= i {
            self.call.resize(i + 1, 0);
        }
        self.call[i] = key;
    }

    /// The key of the next request of source `s`.
    pub(super) fn request(&mut self, s: usize) -> u64 {
        let k = mix_key(self.source[s], self.sent[s]);
        self.sent[s] += 1;
        k
    }

    /// The key of try `try_no` of the call keyed `parent`.
    pub(super) fn child(parent: u64, try_no: u32) -> u64 {
        mix_key(parent, u64::from(try_no))
    }

    /// The key of the call fetching field `i`, made as try `key`.
    pub(super) fn field(key: u64, i: usize) -> u64 {
        mix_key(key, FIELD + i as u64)
    }
}
