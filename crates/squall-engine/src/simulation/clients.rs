//! [`Clients`]: the clients a source stands for (`clients N`).
//!
//! Each request of such a source belongs to one client. For an open-loop
//! source (`rate ...  clients N`) the client is picked as the request is
//! made: in turn (client 0, 1, ..., N-1, 0, ...) for uniform arrivals, so
//! each client sends every N-th request; uniformly at random from the
//! source's own stream (`clients/<source>`) for Poisson arrivals, which
//! splits the Poisson stream into N independent Poisson streams of rate
//! `rate / N`. A closed-loop source (`clients N  think ...`, the timed
//! path: `timed/clients.rs`) names the client that sends.
//!
//! The entry node keeps its breaker per client: a source with clients
//! whose entry node has a breaker adds N fresh breakers of the same kind to
//! that node, after the node's own ones, and a request of client `k` is
//! guarded by breaker `base + k` at its entry node (every other node, and
//! every other source's requests at that node, use the node's own). A
//! library breaker with jitter on its open time draws from a stream per
//! client (`breaker/<node>/<source>/<client>`), so breakers that open
//! together draw independent open times. A retry budget at the entry
//! node is kept per client the same way (each client's own tokens; the
//! in-flight counts an Envoy budget reads stay the node's), and so are the
//! counts of a retry gate (`caller/gate.rs`), at the same indices. A
//! client-side throttle at the entry node (`caller/throttle.rs`) is kept
//! per client too, each with its own stream
//! (`throttle/<node>/<source>/<client>`).

use squall_lang::{Arrivals, Model};

use crate::rng::Stream;

use super::node_state::NodeState;

/// Per source: where its clients' breakers are and how its next request's
/// client is picked.
#[derive(Debug, Default)]
pub(super) struct Clients {
    /// Per source: its number of clients (0: none) and the index of its
    /// first client's breaker at its entry node (`None`: no breaker there).
    count: Vec<u32>,
    base: Vec<Option<usize>>,
    /// Per source: the index of its first client's retry budget at its
    /// entry node (`None`: no budget there).
    budget_base: Vec<Option<usize>>,
    /// Per source: the index of its first client's throttle at its entry
    /// node (`None`: no throttle there).
    throttle_base: Vec<Option<usize>>,
    /// Per source: the next client in turn (uniform arrivals).
    turn: Vec<u32>,
    /// Per source: the stream that picks a client (Poisson arrivals).
    streams: Vec<Stream>,
    poisson: Vec<bool>,
    /// The client the next request belongs to, set by a closed loop.
    pub(super) sending: Option<u32>,
}

impl Clients {
    /// The clients of `model`'s sources; adds their breakers, budgets and throttles
    /// to the caller sides of `nodes`.
    pub(super) fn new(model: &Model, seed: u64, nodes: &mut [NodeState]) -> Self {
        let mut c = Clients::default();
        for (s, spec) in model.sources.iter().enumerate() {
            let count = spec.clients.as_ref().map_or(0, |k| k.count);
            let entry = spec.entry;
            let caller = &mut nodes[entry].caller;
            let base = caller.breakers.add_clients(model, seed, entry, s, count);
            let budget_base = caller
                .budgets
                .add_clients(model.nodes[entry].budget.as_ref(), count);
            c.count.push(count);
            c.base.push(base);
            c.budget_base.push(budget_base);
            let throttle_base = caller.throttles.add_clients(seed, entry, s, count);
            c.throttle_base.push(throttle_base);
            c.turn.push(0);
            c.streams.push(Stream::new(seed, &format!("clients/{s}")));
            c.poisson.push(spec.arrivals == Arrivals::Poisson);
        }
        c
    }

    /// The client of source `s`'s next request (0 for a source without
    /// clients).
    #[inline]
    pub(super) fn pick(&mut self, s: usize) -> u32 {
        if let Some(k) = self.sending.take() {
            return k;
        }
        let n = self.count[s];
        if n == 0 {
            return 0;
        }
        if self.poisson[s] {
            let k = (self.streams[s].next_f64() * f64::from(n)) as u32;
            k.min(n - 1)
        } else {
            let k = self.turn[s];
            self.turn[s] = if k + 1 == n { 0 } else { k + 1 };
            k
        }
    }

    /// The breaker at source `s`'s entry node that guards client `k`, if
    /// its clients have their own.
    #[inline]
    pub(super) fn breaker(&self, s: usize, k: u32) -> Option<usize> {
        self.base[s].map(|b| b + k as usize)
    }

    /// The retry budget at source `s`'s entry node (an index into its
    /// `client_budgets`) that client `k` spends, if its clients have their
    /// own.
    #[inline]
    pub(super) fn budget(&self, s: usize, k: u32) -> Option<usize> {
        self.budget_base[s].map(|b| b + k as usize)
    }

    /// The throttle at source `s`'s entry node that client `k` counts in,
    /// if its clients have their own.
    #[inline]
    pub(super) fn throttle(&self, s: usize, k: u32) -> Option<usize> {
        self.throttle_base[s].map(|b| b + k as usize)
    }
}
