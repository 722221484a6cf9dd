//! The discrete-event core.
//!
//! # How a run proceeds
//!
//! Time is an integer count of ticks (`start..=ticks`, by default `1..=ticks`).
//! Four kinds of event exist:
//!
//! * **source tick** — a source adds its rate for the tick to an accumulator
//!   (or draws a Poisson count) and sends one new request for each whole unit
//!   into its entry node; it then schedules its own next tick.
//! * **send** — a source with `at [..]` times sends one request at each.
//! * **operation** — a `sequential` source sends its next operation in the
//!   tick its previous one ends.
//! * **retry** — a service that saw its downstream call fail makes its next
//!   try.
//!
//! Events run in `(time, sequence)` order, FIFO among equal times.
//!
//! # A call
//!
//! Calls take no time: a call made in tick `t` is answered in tick `t`. A call
//! walks down the request's path (entry node, its downstream, and so on):
//! every node counts the call; a node under a fault with `fail` answers with
//! that response; then it checks its per-tick capacity (a fault may change
//! it). A node with no capacity left refuses the call, which fails back to
//! its caller. A node at the bottom of the path answers from its scripted
//! routes (the first route matching the request's method and path; 404 when
//! none does), or with success when it has none. Before a service sends a try
//! downstream, its circuit breaker (if any) decides whether the try is sent or
//! fails fast as "circuit open".
//!
//! # Retries
//!
//! When a failure reaches a service with a retry policy, the failure is
//! classified ([`crate::outcome::classify`]): terminal failures go straight
//! up; retryable ones are retried up to `attempts` tries, unknown ones up to
//! `unknown_attempts`. The wait before retry `n` comes from the backoff
//! policy; a jittered policy draws one number from its generator at that
//! moment (so draws happen in event order, and only when a retry is decided).
//! A server's Retry-After is a lower bound on the wait when the policy
//! honours it. With a `deadline`, a retry that would start more than the
//! deadline after the service's first try is not made.
//!
//! A failure travels up until it reaches a service with tries left; that
//! service schedules its next try after its backoff and the request waits.
//! A service whose tries are used up fails to its own caller. When the entry
//! node fails the request is *dropped*; when it succeeds the request is
//! *completed*. Nested services therefore retry like an odometer: the deepest
//! layer uses up its tries first, then the layer above retries, and its next
//! try starts the layer below afresh, so `n` layers of `k` tries can make up to
//! `k^n` calls at the bottom.
//!
//! # Memory
//!
//! Per-request state lives in a slab and is freed when the request ends, so
//! memory follows requests in flight. Unique ids per window are counted with
//! one "last tick seen" per request and node: a call at tick `t` is new for a
//! window starting at `w` when the request was last seen at that node before
//! `w`. No set of ids is kept.
//!
//! # Where the code lives
//!
//! This file holds the builder, which checks a model and prepares its
//! request kinds and paths, and [`Simulation`]. The run itself is split by
//! concept: `runner` (the event loop and the sources), `call` (a call down
//! the path and its answer back up: arrive, send, admit, deliver, retry
//! waits, finish), `script` (a node's own answer: faults, capacity, scripted
//! routes), `composite` (fan-out and the ledger), `requests` (the per-request
//! slab) and `node_state` (per-node state).

mod call;
mod composite;
mod node_state;
mod requests;
mod runner;
mod script;
mod timed;

pub use timed::{default_bin, takes_time};

use squall_lang::{Model, RequestSpec, RetrySpec, Schedule};

use crate::observations::Observations;
use crate::queue::SchedulingError;

use runner::Runner;

/// A problem with a model or a run; never a panic.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// The model refers to a node that does not exist.
    #[error("{what} refers to node {index}, but the model has {count} nodes")]
    BadNode {
        /// What refers to it.
        what: String,
        /// The index.
        index: usize,
        /// How many nodes there are.
        count: usize,
    },
    /// The downstream links form a cycle.
    #[error("the call graph has a cycle through node `{node}`")]
    Cycle {
        /// A node on the cycle.
        node: String,
    },
    /// A window or fault lies outside the run.
    #[error("{what} {from}..{to} is outside the run {start}..{ticks}")]
    OutOfRun {
        /// What.
        what: String,
        /// First tick.
        from: u64,
        /// Last tick.
        to: u64,
        /// First tick of the run.
        start: u64,
        /// Last tick of the run.
        ticks: u64,
    },
    /// A retry policy with no tries.
    #[error("node `{node}` has a retry policy with 0 attempts")]
    NoAttempts {
        /// The node.
        node: String,
    },
    /// A backoff names a generator the model does not have.
    #[error("a backoff of node `{node}` draws from generator {index}, but the model has {count}")]
    BadRng {
        /// The node.
        node: String,
        /// The index.
        index: usize,
        /// How many generators there are.
        count: usize,
    },
    /// A source would send more requests than a run simulates.
    #[error("source `{name}` would send up to {requests:.0} requests; squall simulates at most 1000000000 per source and run (scale rates and capacities down together, or shorten the run)")]
    TooManyRequests {
        /// The source.
        name: String,
        /// Requests at its peak rate over the run.
        requests: f64,
    },
    /// The per-tick observations of the run would not fit in memory.
    #[error("a run of {ticks} ticks over {nodes} nodes needs about {mib} MiB of per-tick counters, more than the {limit} MiB squall allows a run (use a coarser clock, or a shorter run)")]
    TooLong {
        /// Ticks in the run.
        ticks: u64,
        /// Nodes in the model.
        nodes: usize,
        /// The memory it would take \[MiB\].
        mib: u64,
        /// The limit \[MiB\].
        limit: u64,
    },
    /// A source's rate is beyond what one run simulates.
    #[error("source `{name}` sends {rate} requests per tick; squall simulates at most 1000000 per tick per source (scale the scenario down: rates, capacities and counts by the same factor)")]
    RateTooLarge {
        /// The source.
        name: String,
        /// Its largest rate.
        rate: f64,
    },
    /// A construct that does not run in a model that takes time yet.
    #[error("{what} cannot run yet in a model where calls take time (latency, workers, timeouts or deadlines)")]
    Untimed {
        /// What.
        what: String,
    },
    /// An event was scheduled in the past.
    #[error(transparent)]
    Scheduling(#[from] SchedulingError),
}

/// The most requests one source may send in a run (at its peak rate).
const MAX_REQUESTS: f64 = 1e9;

/// The most memory the per-tick counters of one run may take \[MiB\].
pub const MAX_SERIES_MIB: u64 = 2048;

/// The largest rate a source may have \[requests/tick\]: keeps per-tick
/// counters in range and a run finite.
const MAX_RATE: f64 = 1_000_000.0;

/// An event in the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// A rate source's tick.
    Source { source: u32 },
    /// An `at` source's `index`-th send.
    At { source: u32, index: u32 },
    /// A sequential source's `index`-th operation.
    Op { source: u32, index: u32 },
    /// The service at `pos` of a request's path makes its next try.
    Retry { slot: u32, pos: u32 },
    /// A call that takes time moves on (see `timed`), if it is still at
    /// generation `gen`.
    Wake { call: u32, gen: u32 },
}

/// Tick sentinel: never seen.
const NEVER: u64 = u64::MAX;

/// What a request is: its method and path, and the retry policy its entry
/// node uses for it (an operation's own, or the node's).
#[derive(Debug, Clone)]
struct Kind {
    request: RequestSpec,
    /// Index of the request's path among the distinct paths of the model
    /// (the scope of a `per path` breaker).
    scope: usize,
    entry_retry: Option<RetrySpec>,
    /// The operation, for sequential sources.
    op: Option<usize>,
}

/// Builds a [`Simulation`].
#[derive(Debug, Clone)]
pub struct SimulationBuilder<'m> {
    model: &'m Model,
    seed: u64,
}

impl<'m> SimulationBuilder<'m> {
    /// Overrides the model's seed.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Checks the model and prepares a run.
    pub fn build(self) -> Result<Simulation<'m>, SimError> {
        let m = self.model;
        let n = m.nodes.len();
        let check = |what: String, index: usize| {
            if index < n {
                Ok(())
            } else {
                Err(SimError::BadNode {
                    what,
                    index,
                    count: n,
                })
            }
        };
        let out_of_run = |what: String, from: u64, to: u64| {
            if from < m.start || to > m.ticks || from > to {
                Err(SimError::OutOfRun {
                    what,
                    from,
                    to,
                    start: m.start,
                    ticks: m.ticks,
                })
            } else {
                Ok(())
            }
        };
        // Per-tick counters: 6 per node (8 more words for a composite), 4 for
        // the system, 4 bytes each.
        let words: u64 = 4 + m
            .nodes
            .iter()
            .map(|n| if n.composite.is_some() { 14 } else { 6 })
            .sum::<u64>();
        let mib = (m.ticks.saturating_add(1))
            .saturating_mul(words)
            .saturating_mul(4)
            >> 20;
        if mib > MAX_SERIES_MIB {
            return Err(SimError::TooLong {
                ticks: m.ticks,
                nodes: m.nodes.len(),
                mib,
                limit: MAX_SERIES_MIB,
            });
        }
        for node in &m.nodes {
            if let Some(d) = node.downstream {
                check(format!("node `{}`", node.name), d)?;
            }
            if let Some(r) = &node.retry {
                if r.attempts == 0 {
                    return Err(SimError::NoAttempts {
                        node: node.name.clone(),
                    });
                }
                if let Some(index) = r.backoff.rng() {
                    if index >= m.rngs.len() {
                        return Err(SimError::BadRng {
                            node: node.name.clone(),
                            index,
                            count: m.rngs.len(),
                        });
                    }
                }
            }
        }
        for s in &m.sources {
            check(format!("source `{}`", s.name), s.entry)?;
            let peak = s.periods.iter().map(|p| p.rate).fold(s.rate, f64::max);
            if !(0.0..=MAX_RATE).contains(&peak) {
                return Err(SimError::RateTooLarge {
                    name: s.name.clone(),
                    rate: peak,
                });
            }
            let requests = peak * (m.ticks.saturating_sub(m.start) + 1) as f64;
            if requests > MAX_REQUESTS {
                return Err(SimError::TooManyRequests {
                    name: s.name.clone(),
                    requests,
                });
            }
        }
        if timed::takes_time(m) {
            if let Some(s) = m
                .sources
                .iter()
                .find(|s| matches!(s.schedule, Schedule::Sequential(_)))
            {
                return Err(SimError::Untimed {
                    what: format!("sequential source `{}`", s.name),
                });
            }
        }
        for f in &m.faults {
            check(format!("fault `{}`", f.name), f.node)?;
            out_of_run(format!("fault `{}`", f.name), f.from, f.to)?;
        }
        for w in &m.windows {
            out_of_run(format!("window `{}`", w.name), w.from, w.to)?;
        }
        // Paths: from each source's entry down the downstream links.
        let mut paths = Vec::with_capacity(m.sources.len());
        for s in &m.sources {
            let mut path = vec![s.entry];
            let mut cur = s.entry;
            while let Some(d) = m.nodes[cur].downstream {
                if path.contains(&d) {
                    return Err(SimError::Cycle {
                        node: m.nodes[d].name.clone(),
                    });
                }
                path.push(d);
                cur = d;
            }
            paths.push(path);
        }
        let mut kinds = Vec::new();
        let mut kind_base = Vec::new();
        for s in &m.sources {
            kind_base.push(kinds.len() as u32);
            let entry_retry = m.nodes[s.entry].retry.clone();
            match &s.schedule {
                Schedule::Sequential(ops) => {
                    for (i, op) in ops.iter().enumerate() {
                        kinds.push(Kind {
                            scope: 0,
                            request: op.request.clone(),
                            entry_retry: op.retry.clone().or_else(|| entry_retry.clone()),
                            op: Some(i),
                        });
                    }
                }
                Schedule::Rate | Schedule::At(_) => kinds.push(Kind {
                    scope: 0,
                    request: s.request.clone(),
                    entry_retry,
                    op: None,
                }),
            }
        }
        // Distinct request paths, in order of first appearance.
        let mut seen: Vec<String> = Vec::new();
        for k in &mut kinds {
            k.scope = match seen.iter().position(|p| *p == k.request.path) {
                Some(i) => i,
                None => {
                    seen.push(k.request.path.clone());
                    seen.len() - 1
                }
            };
        }
        let scopes = seen.len().max(1);
        Ok(Simulation {
            model: m,
            seed: self.seed,
            paths,
            kinds,
            kind_base,
            scopes,
            scope_names: seen,
        })
    }
}

/// A prepared run of one model.
#[derive(Debug, Clone)]
pub struct Simulation<'m> {
    model: &'m Model,
    seed: u64,
    paths: Vec<Vec<usize>>,
    /// Request kinds, and where each source's kinds start.
    kinds: Vec<Kind>,
    kind_base: Vec<u32>,
    /// How many distinct request paths there are, and which.
    scopes: usize,
    scope_names: Vec<String>,
}

impl<'m> Simulation<'m> {
    /// Starts building a run of `model`.
    pub fn builder(model: &'m Model) -> SimulationBuilder<'m> {
        SimulationBuilder {
            model,
            seed: model.seed,
        }
    }

    /// Runs the model to its last tick.
    pub fn run(&self) -> Result<Observations, SimError> {
        Runner::new(self).run()
    }
}
