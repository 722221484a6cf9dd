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
//! (`throttle/<node>/<source>/<client>`), and so is a concurrency limiter
//! (`limiter/<node>/<source>/<client>`): each client bounds its own tries
//! in flight by its own limit.

use squall_lang::{Arrivals, Model};

use crate::rng::Stream;

use super::node_state::NodeState;

/// A caller-side part a source's clients may each have their own of, at
/// the source's entry node.
#[derive(Debug, Clone, Copy)]
pub(super) enum Part {
    Breaker,
    Budget,
    Throttle,
    Limiter,
}

/// Per source: where its clients' own parts are and how its next
/// request's client is picked.
#[derive(Debug, Default)]
pub(super) struct Clients {
    /// Per source: its number of clients (0: none).
    count: Vec<u32>,
    /// Per source and [`Part`]: the index of its first client's own part
    /// at its entry node (`None`: the node has none, or the source no
    /// clients).
    base: Vec<[Option<usize>; 4]>,
    /// Per source: the next client in turn (uniform arrivals).
    turn: Vec<u32>,
    /// Per source: the stream that picks a client (Poisson arrivals).
    streams: Vec<Stream>,
    poisson: Vec<bool>,
    /// The client the next request belongs to, set by a closed loop.
    pub(super) sending: Option<u32>,
}

impl Clients {
    /// The clients of `model`'s sources; adds their breakers, budgets,
    /// throttles and limiters to the caller sides of `nodes`.
    pub(super) fn new(model: &Model, seed: u64, nodes: &mut [NodeState]) -> Self {
        let mut c = Clients::default();
        for (s, spec) in model.sources.iter().enumerate() {
            let count = spec.clients.as_ref().map_or(0, |k| k.count);
            let entry = spec.entry;
            let caller = &mut nodes[entry].caller;
            let mut base = [None; 4];
            base[Part::Breaker as usize] =
                caller.breakers.add_clients(model, seed, entry, s, count);
            base[Part::Budget as usize] = caller
                .budgets
                .add_clients(model.nodes[entry].budget.as_ref(), count);
            base[Part::Throttle as usize] =
                caller.throttles.add_clients(model, seed, entry, s, count);
            base[Part::Limiter as usize] = caller.add_limiter_clients(model, entry, s, count);
            c.count.push(count);
            c.base.push(base);
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

    /// Client `k` of source `s`'s own `part` at the source's entry node
    /// (an index among the node's per-client parts), if its clients have
    /// their own.
    #[inline]
    pub(super) fn part(&self, part: Part, s: usize, k: u32) -> Option<usize> {
        self.base[s][part as usize].map(|b| b + k as usize)
    }
}
