//! [`Requests`]: the slab of per-request state.
//!
//! Flat arrays indexed by slot, a slot reused once its request ends, so
//! memory follows requests in flight. Per request: its id, source and kind,
//! and whether anything retried it; per request and path position: the
//! service's retry loop (tries, first try, previous wait) and the breaker
//! admission of its current try (tick sent, state found, epoch); per
//! request and node: the last tick the request was seen there (for
//! distinct ids per window).
//!
//! An array a model never reads is not kept ([`Keep`]): the breaker
//! admissions without a breaker, the budget grants without a retry budget,
//! the first try's tick without a retry deadline, the previous wait without
//! a backoff that reads it (decorrelated jitter, Polly), the pushback skips
//! without a pushback, the request ids without a call log, the client
//! without a source that has clients; the last ticks are `u16` in a run
//! short enough ([`LastSeen`]), and the free slots are linked through
//! `kind`, not kept in a list of their own. A four-node retry storm with a
//! `fixed` backoff keeps 33 bytes a request instead of 149: 5.9 MB instead
//! of 27 MB at 180 000 requests in flight (storm-large).

use crate::caller::NO_GRANT;
use crate::policy::breaker::State;
use crate::policy::retry::RetryLoop;

use super::keep::Keep;
use super::last_seen::LastSeen;

use super::NEVER;

/// The end of the free list.
const FREE_END: u32 = u32::MAX;

/// Per-request state, in flat arrays indexed by slot (and path position).
pub(super) struct Requests {
    /// Request id per slot (kept with a call log).
    pub(super) id: Vec<u64>,
    /// Which source (and so which path) the request came from.
    pub(super) source: Vec<u32>,
    /// Which request kind (method, path, retry override) it is.
    pub(super) kind: Vec<u32>,
    /// Which of its source's clients sent it (kept when a source has
    /// clients: [`Requests::client`] is 0 otherwise).
    client: Vec<u32>,
    /// Tries used per path position: `slot * depth + pos`.
    pub(super) tries: Vec<u32>,
    /// Tick of the first try per path position (kept with a deadline).
    started: Vec<u64>,
    /// Previous wait per path position, or `NEVER` (kept with a backoff
    /// that reads it).
    prev_wait: Vec<u64>,
    /// Retries the backoff does not count per path position (kept with a
    /// pushback).
    skip: Vec<u32>,
    /// Tick the current try was sent, and the breaker state it found.
    pub(super) sent_at: Vec<u64>,
    pub(super) admitted: Vec<State>,
    /// The breaker's epoch when the current try was sent.
    pub(super) admitted_epoch: Vec<u64>,
    /// The cost of the last retry a budget granted per path position, or
    /// `NO_GRANT` (set only at nodes with a budget).
    pub(super) grant: Vec<u32>,
    /// Last tick seen per node counted: `slot * columns + column` (a
    /// node's column: `Step::column` on the zero-time path, the node on
    /// the timed path, which counts them at every node).
    pub(super) last_seen: LastSeen,
    /// The last freed slot, or `FREE_END`: the free list runs through
    /// `kind`, whose value a free slot does not need (no separate list of
    /// up to the most requests ever in flight).
    free: u32,
    pub(super) depth: usize,
    pub(super) columns: usize,
    pub(super) live: u64,
    /// True once any node on the request's path has retried it.
    pub(super) retried: Vec<bool>,
    keep: Keep,
    /// The retry loops keep more than their tries (a deadline's first
    /// try, a previous wait or pushback skips): one test for the three
    /// where a plain storm keeps none.
    loop_extras: bool,
}

impl Requests {
    /// An empty slab for requests of `depth` path positions, each seen
    /// at `columns` nodes that count distinct ids, in a run whose last
    /// tick is `ticks`.
    pub(super) fn new(depth: usize, columns: usize, ticks: u64, keep: Keep) -> Self {
        Requests {
            id: Vec::new(),
            source: Vec::new(),
            kind: Vec::new(),
            client: Vec::new(),
            tries: Vec::new(),
            started: Vec::new(),
            prev_wait: Vec::new(),
            skip: Vec::new(),
            sent_at: Vec::new(),
            admitted: Vec::new(),
            admitted_epoch: Vec::new(),
            grant: Vec::new(),
            last_seen: LastSeen::for_ticks(ticks),
            free: FREE_END,
            depth,
            columns,
            live: 0,
            retried: Vec::new(),
            keep,
            loop_extras: keep.deadlines || keep.previous || keep.pushback,
        }
    }

    /// A slot for a new request. A path position's retry loop is set when
    /// the request first reaches it ([`Requests::open_loop`]); only
    /// position 0's tries are cleared here, in a run with a sequential
    /// source, whose record reads them even when the entry node answered
    /// by itself. Inlined
    /// where a request enters, with a slot to reuse; a new one is made
    /// out of line ([`Requests::grow`]).
    #[inline(always)]
    pub(super) fn alloc(&mut self, id: u64, source: u32, kind: u32) -> u32 {
        if self.free == FREE_END {
            return self.grow(id, source, kind);
        }
        self.live += 1;
        let (d, n) = (self.depth, self.columns);
        let keep = self.keep;
        let slot = self.free;
        let s = slot as usize;
        self.free = self.kind[s];
        if keep.ids {
            self.id[s] = id;
        }
        self.source[s] = source;
        self.kind[s] = kind;
        if keep.clients {
            self.client[s] = 0;
        }
        self.retried[s] = false;
        if keep.operations {
            self.tries[s * d] = 0;
        }
        self.last_seen.clear(s * n, (s + 1) * n);
        slot
    }

    /// [`Requests::alloc`] when no slot is free: one more.
    #[inline(never)]
    fn grow(&mut self, id: u64, source: u32, kind: u32) -> u32 {
        self.live += 1;
        let (d, n) = (self.depth, self.columns);
        let keep = self.keep;
        let slot = self.source.len() as u32;
        if keep.ids {
            self.id.push(id);
        }
        self.source.push(source);
        self.kind.push(kind);
        if keep.clients {
            self.client.push(0);
        }
        self.retried.push(false);
        self.tries.extend(std::iter::repeat_n(0, d));
        if keep.deadlines {
            self.started.extend(std::iter::repeat_n(0, d));
        }
        if keep.previous {
            self.prev_wait.extend(std::iter::repeat_n(NEVER, d));
        }
        if keep.pushback {
            self.skip.extend(std::iter::repeat_n(0, d));
        }
        if keep.breakers {
            self.sent_at.extend(std::iter::repeat_n(0, d));
            self.admitted.extend(std::iter::repeat_n(State::Closed, d));
            self.admitted_epoch.extend(std::iter::repeat_n(0, d));
        }
        if keep.budgets {
            self.grant.extend(std::iter::repeat_n(NO_GRANT, d));
        }
        self.last_seen.grow(n);
        slot
    }

    /// The service at index `k` (`slot * depth + pos`) makes its first try
    /// at tick `t`.
    #[inline]
    pub(super) fn open_loop(&mut self, k: usize, t: u64) {
        self.tries[k] = 1;
        if self.loop_extras {
            self.open_extras(k, t);
        }
    }

    /// The services at the `n` indices from `k` on (positions `pos` to
    /// `pos + n - 1` of a path: `slot * depth + pos`) make their first
    /// tries at tick `t`, as [`Requests::open_loop`] at each.
    #[inline(always)]
    pub(super) fn open_loops(&mut self, k: usize, n: usize, t: u64) {
        self.tries[k..k + n].fill(1);
        if self.loop_extras {
            for k in k..k + n {
                self.open_extras(k, t);
            }
        }
    }

    /// What a retry loop opened at index `k` at tick `t` keeps beyond its
    /// tries.
    #[inline]
    fn open_extras(&mut self, k: usize, t: u64) {
        if self.keep.deadlines {
            self.started[k] = t;
        }
        if self.keep.previous {
            self.prev_wait[k] = NEVER;
        }
        if self.keep.pushback {
            self.skip[k] = 0;
        }
    }

    /// Where the retry loop at index `k` stands.
    #[inline(always)]
    pub(super) fn retry_loop(&self, k: usize) -> RetryLoop {
        if !self.loop_extras {
            return RetryLoop {
                tries: self.tries[k],
                started: 0,
                previous: None,
                skip: 0,
            };
        }
        let keep = self.keep;
        RetryLoop {
            tries: self.tries[k],
            started: if keep.deadlines { self.started[k] } else { 0 },
            previous: if keep.previous {
                Some(self.prev_wait[k]).filter(|&p| p != NEVER)
            } else {
                None
            },
            skip: if keep.pushback { self.skip[k] } else { 0 },
        }
    }

    /// Keeps what a wait drawn for the retry loop at index `k` changed.
    #[inline]
    pub(super) fn save_loop(&mut self, k: usize, state: &RetryLoop) {
        if !self.loop_extras {
            return;
        }
        if self.keep.previous {
            self.prev_wait[k] = state.previous.unwrap_or(NEVER);
        }
        if self.keep.pushback {
            self.skip[k] = state.skip;
        }
    }

    /// The retry loops keep more than their tries.
    #[inline(always)]
    pub(super) fn keeps_loop_extras(&self) -> bool {
        self.loop_extras
    }

    /// The client that sent the request in `slot` (0 without clients).
    #[inline]
    pub(super) fn client(&self, slot: u32) -> u32 {
        if self.keep.clients {
            self.client[slot as usize]
        } else {
            0
        }
    }

    /// Whether the slab keeps each request's client (a source has
    /// clients, or the run takes time).
    #[inline(always)]
    pub(super) fn keeps_clients(&self) -> bool {
        self.keep.clients
    }

    /// The request in `slot` was sent by `client`; with no source that
    /// has clients, `client` is 0 and is not kept.
    #[inline]
    pub(super) fn set_client(&mut self, slot: u32, client: u32) {
        if self.keep.clients {
            self.client[slot as usize] = client;
        } else {
            debug_assert_eq!(client, 0, "a client in a run kept without clients");
        }
    }

    /// The request in `slot` ended: its slot heads the free list, linked
    /// through its `kind` (read no more once freed).
    pub(super) fn release(&mut self, slot: u32) {
        self.live -= 1;
        self.kind[slot as usize] = self.free;
        self.free = slot;
    }
}
