//! [`Breakers`]: a node's circuit breakers on its calls downstream.
//!
//! A node has none, one, or one per request path (`per path`, indexed like
//! the request kind's scope); a source with `clients N` entering the node
//! adds N breakers of the same kind after those (one per client, see
//! `simulation/clients.rs`). A library breaker with jitter on its open
//! time draws from its own stream: `breaker/<node>` for the node's,
//! `breaker/<node>/<source>/<client>` for a client's.
//!
//! A breaker left open past its cool-down turns half-open only when the
//! next call asks; the breaker log dates that change at the end of the
//! cool-down, from when a call would have gone as a probe.

use squall_lang::Model;

use crate::observe::BreakerLog;
use crate::policy::breaker::any::AnyBreaker;
use crate::policy::breaker::{Admission, Breaker, State};
use crate::rng::Stream;

/// A node's breakers.
#[derive(Debug, Clone, Default)]
pub(crate) struct Breakers {
    list: Vec<AnyBreaker>,
    /// How many of `list` are the node's own (the rest are per-client).
    shared: usize,
}

impl Breakers {
    /// The breakers of node `i` of `model`, with `scopes` request paths.
    pub(crate) fn new(model: &Model, i: usize, scopes: usize) -> Self {
        let n = &model.nodes[i];
        let list: Vec<AnyBreaker> = match (&n.breaker, &n.library_breaker) {
            (Some(b), _) if b.per_path => {
                vec![AnyBreaker::Consecutive(Breaker::new(b.clone())); scopes]
            }
            (Some(b), _) => vec![AnyBreaker::Consecutive(Breaker::new(b.clone()))],
            (None, Some(l)) => vec![AnyBreaker::library(l, model.seed, i)],
            (None, None) => Vec::new(),
        };
        Breakers {
            shared: list.len(),
            list,
        }
    }

    /// True when the node has no breaker.
    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The node's own breakers, and all of them.
    pub(crate) fn counts(&self) -> (usize, usize) {
        (self.shared, self.list.len())
    }

    /// Adds one breaker per client of source `source` (`count` clients)
    /// entering node `node` of `model` run with `seed`; the index of the
    /// first, or `None` when the node has no breaker.
    pub(crate) fn add_clients(
        &mut self,
        model: &Model,
        seed: u64,
        node: usize,
        source: usize,
        count: u32,
    ) -> Option<usize> {
        if count == 0 || self.list.is_empty() {
            return None;
        }
        let n = &model.nodes[node];
        let base = self.list.len();
        for k in 0..count {
            let breaker = match (&n.breaker, &n.library_breaker) {
                (Some(b), _) => AnyBreaker::Consecutive(Breaker::new(b.clone())),
                (None, Some(l)) => AnyBreaker::library_with(
                    l,
                    Stream::new(seed, &format!("breaker/{node}/{source}/{k}")),
                ),
                (None, None) => break,
            };
            self.list.push(breaker);
        }
        Some(base)
    }

    /// The breaker that guards a try: the client's own (`client`, an index
    /// from [`Self::add_clients`]) when it has one, else the one of request
    /// path `path()` under `per path`, else the node's; `None` without one.
    #[inline]
    pub(crate) fn guarding(
        &self,
        client: Option<usize>,
        path: impl FnOnce() -> usize,
    ) -> Option<usize> {
        if self.list.is_empty() {
            return None;
        }
        if let Some(b) = client {
            return Some(b);
        }
        match self.shared {
            0 => None,
            1 => Some(0),
            _ => Some(path()),
        }
    }

    /// The request path breaker `b` guards, as its trace names it: `path`
    /// for a `per path` breaker, `None` for a breaker over all calls or
    /// for one client.
    #[inline]
    pub(crate) fn path_of(&self, b: usize, path: usize) -> Option<usize> {
        (self.shared > 1 && b < self.shared).then_some(path)
    }

    /// Breaker `b` decides on a try at `tick`; a change of state is noted
    /// in `log` when the run keeps one.
    #[inline]
    pub(crate) fn admit(&mut self, b: usize, tick: u64, log: Option<&mut BreakerLog>) -> Admission {
        let breaker = &mut self.list[b];
        let Some(log) = log else {
            return breaker.admit(tick);
        };
        let from = breaker.state();
        let probe_from = (from == State::Open).then(|| breaker.probe_from());
        let a = breaker.admit(tick);
        // An open breaker turns half-open when a call asks after its
        // cool-down; it has let probes go since the cool-down ended.
        let at = match probe_from {
            Some(p) if a.before == State::HalfOpen => p.min(tick),
            _ => tick,
        };
        log.note(at, b, from, a.before);
        a
    }

    /// Breaker `b` hears the answer (`failed` or not) to a try it let go
    /// in `epoch` that took `duration` ticks (rounded up; 0 on the
    /// zero-time path); the state after.
    #[inline]
    pub(crate) fn answered(
        &mut self,
        b: usize,
        failed: bool,
        duration: u64,
        tick: u64,
        epoch: u64,
        log: Option<&mut BreakerLog>,
    ) -> State {
        let breaker = &mut self.list[b];
        let Some(log) = log else {
            return breaker.record(failed, duration, tick, epoch);
        };
        let from = breaker.state();
        let after = breaker.record(failed, duration, tick, epoch);
        log.note(tick, b, from, after);
        after
    }
}
