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

use squall_lang::{Arrivals, Degradation, Model, RequestSpec, RetrySpec, Schedule};

use crate::breaker::{Breaker, State};
use crate::observations::{Observations, OpRecord, TraceRow, TRACE_LIMIT};
use crate::outcome::{
    answer_of, classify, counts_against_dependency, describe, Answer, Class, FailKind, Failure,
};
use crate::queue::{EventQueue, SchedulingError};
use crate::rng::{Generator, Stream};

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
}

/// Tick sentinel: never seen.
const NEVER: u64 = u64::MAX;

/// Per-request state, in flat arrays indexed by slot (and path position).
struct Requests {
    /// Request id per slot.
    id: Vec<u64>,
    /// Which source (and so which path) the request came from.
    source: Vec<u32>,
    /// Which request kind (method, path, retry override) it is.
    kind: Vec<u32>,
    /// Tries used per path position: `slot * depth + pos`.
    tries: Vec<u32>,
    /// Tick of the first try per path position.
    started: Vec<u64>,
    /// Previous wait per path position (decorrelated jitter), or `NEVER`.
    prev_wait: Vec<u64>,
    /// Tick the current try was sent, and the breaker state it found.
    sent_at: Vec<u64>,
    admitted: Vec<State>,
    /// The breaker's epoch when the current try was sent.
    admitted_epoch: Vec<u64>,
    /// Last tick seen per node: `slot * nodes + node`.
    last_seen: Vec<u64>,
    free: Vec<u32>,
    depth: usize,
    nodes: usize,
    live: u64,
}

impl Requests {
    fn new(depth: usize, nodes: usize) -> Self {
        Requests {
            id: Vec::new(),
            source: Vec::new(),
            kind: Vec::new(),
            tries: Vec::new(),
            started: Vec::new(),
            prev_wait: Vec::new(),
            sent_at: Vec::new(),
            admitted: Vec::new(),
            admitted_epoch: Vec::new(),
            last_seen: Vec::new(),
            free: Vec::new(),
            depth,
            nodes,
            live: 0,
        }
    }

    fn alloc(&mut self, id: u64, source: u32, kind: u32) -> u32 {
        self.live += 1;
        let (d, n) = (self.depth, self.nodes);
        if let Some(slot) = self.free.pop() {
            let s = slot as usize;
            self.id[s] = id;
            self.source[s] = source;
            self.kind[s] = kind;
            self.tries[s * d..(s + 1) * d].fill(0);
            self.prev_wait[s * d..(s + 1) * d].fill(NEVER);
            self.last_seen[s * n..(s + 1) * n].fill(NEVER);
            slot
        } else {
            let slot = self.id.len() as u32;
            self.id.push(id);
            self.source.push(source);
            self.kind.push(kind);
            self.tries.extend(std::iter::repeat_n(0, d));
            self.started.extend(std::iter::repeat_n(0, d));
            self.prev_wait.extend(std::iter::repeat_n(NEVER, d));
            self.sent_at.extend(std::iter::repeat_n(0, d));
            self.admitted.extend(std::iter::repeat_n(State::Closed, d));
            self.admitted_epoch.extend(std::iter::repeat_n(0, d));
            self.last_seen.extend(std::iter::repeat_n(NEVER, n));
            slot
        }
    }

    fn release(&mut self, slot: u32) {
        self.live -= 1;
        self.free.push(slot);
    }
}

/// Per-node run-time state.
#[derive(Debug, Clone)]
struct NodeState {
    /// The tick `left` refers to.
    tick: u64,
    /// Capacity left in that tick.
    left: u64,
    /// Base capacity.
    capacity: Option<u64>,
    /// Capacity faults on this node: (from, to, capacity, fault index), in
    /// declaration order.
    faults: Vec<(u64, u64, u64, usize)>,
    /// Failing faults on this node: (from, to, fault index).
    failing: Vec<(u64, u64, usize)>,
    /// The breakers on its downstream calls: one, or one per request path
    /// (indexed like [`Kind::scope`]).
    breakers: Vec<Breaker>,
    /// Calls each scripted route has answered.
    route_calls: Vec<u64>,
    /// Each route's current script step and the calls it has answered.
    route_steps: Vec<(usize, u64)>,
    /// Tick of each composite field's last fresh value (the ledger).
    ledger: Vec<u64>,
}

impl NodeState {
    /// Takes one unit of capacity at tick `t`; false when none is left.
    #[inline]
    fn take(&mut self, t: u64, faults: &[squall_lang::FaultSpec]) -> bool {
        if self.tick != t {
            self.tick = t;
            let mut cap = self.capacity;
            for &(from, to, c, k) in &self.faults {
                if from <= t && t <= to && faults[k].periodic.is_none_or(|p| p.strikes(t, 0)) {
                    cap = Some(c);
                }
            }
            self.left = cap.unwrap_or(u64::MAX);
        }
        if self.left == 0 {
            return false;
        }
        self.left -= 1;
        true
    }
}

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
        // Per-tick counters: 6 per node (8 more words for a composite), 3 for
        // the system, 4 bytes each.
        let words: u64 = 3 + m
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

/// The state of a run in progress.
struct Runner<'s, 'm> {
    sim: &'s Simulation<'m>,
    queue: EventQueue<Event>,
    requests: Requests,
    nodes: Vec<NodeState>,
    obs: Observations,
    /// Accumulators of uniform sources.
    acc: Vec<f64>,
    /// Random streams of Poisson sources.
    streams: Vec<Stream>,
    /// Named generators, then the run's default one.
    gens: Vec<Generator>,
    /// Waits of the running operation of each sequential source.
    op_waits: Vec<Vec<u64>>,
    /// Start tick of the running operation of each sequential source.
    op_start: Vec<u64>,
    next_id: u64,
    /// Window bounds, for unique counting.
    windows: Vec<(u64, u64)>,
    /// The windows that hold tick `open_at`: (window, first tick).
    open: Vec<(usize, u64)>,
    open_at: u64,
    /// Requests whose next try falls after the last tick.
    past_end: u64,
}

impl<'s, 'm> Runner<'s, 'm> {
    fn new(sim: &'s Simulation<'m>) -> Self {
        let m = sim.model;
        let depth = sim.paths.iter().map(Vec::len).max().unwrap_or(1).max(1);
        let names: Vec<&str> = m.nodes.iter().map(|n| n.name.as_str()).collect();
        let nodes = m
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| NodeState {
                tick: NEVER,
                left: 0,
                capacity: n.capacity,
                faults: m
                    .faults
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.node == i)
                    .filter_map(|(k, f)| f.capacity.map(|c| (f.from, f.to, c, k)))
                    .collect(),
                failing: m
                    .faults
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.node == i && f.fail.is_some())
                    .map(|(k, f)| (f.from, f.to, k))
                    .collect(),
                breakers: match &n.breaker {
                    None => Vec::new(),
                    Some(b) if b.per_path => vec![Breaker::new(b.clone()); sim.scopes],
                    Some(b) => vec![Breaker::new(b.clone())],
                },
                route_calls: vec![0; n.routes.len()],
                route_steps: vec![(0, 0); n.routes.len()],
                ledger: vec![NEVER; n.composite.as_ref().map_or(0, |c| c.fields.len())],
            })
            .collect();
        let mut gens: Vec<Generator> = m
            .rngs
            .iter()
            .map(|r| Generator::from_spec(r, sim.seed))
            .collect();
        gens.push(Generator::default_for(sim.seed));
        let composite: Vec<bool> = m.nodes.iter().map(|n| n.composite.is_some()).collect();
        let mut obs =
            Observations::new(m.ticks, &names, m.windows.len()).with_composites(&composite);
        obs.route_calls = m.nodes.iter().map(|n| vec![0; n.routes.len()]).collect();
        obs.ops = vec![Vec::new(); m.sources.len()];
        obs.traces = vec![Vec::new(); m.nodes.len()];
        Runner {
            sim,
            queue: EventQueue::new(),
            requests: Requests::new(depth, m.nodes.len()),
            nodes,
            obs,
            acc: vec![0.0; m.sources.len()],
            streams: (0..m.sources.len())
                .map(|i| Stream::new(sim.seed, &format!("source/{i}")))
                .collect(),
            gens,
            op_waits: vec![Vec::new(); m.sources.len()],
            op_start: vec![0; m.sources.len()],
            next_id: 1,
            windows: m.windows.iter().map(|w| (w.from, w.to)).collect(),
            open: Vec::with_capacity(m.windows.len()),
            open_at: NEVER,
            past_end: 0,
        }
    }

    fn run(mut self) -> Result<Observations, SimError> {
        let m = self.sim.model;
        if m.start <= m.ticks {
            for (s, spec) in m.sources.iter().enumerate() {
                let source = s as u32;
                match &spec.schedule {
                    Schedule::Rate => self.queue.schedule(m.start, Event::Source { source })?,
                    Schedule::At(times) => {
                        if let Some(&t) = times.first() {
                            self.queue.schedule(t, Event::At { source, index: 0 })?;
                        }
                    }
                    Schedule::Sequential(ops) => {
                        if !ops.is_empty() {
                            self.queue
                                .schedule(m.start, Event::Op { source, index: 0 })?;
                        }
                    }
                }
            }
        }
        while let Some(t) = self.queue.peek_time() {
            if t > m.ticks {
                break;
            }
            let Some((t, ev)) = self.queue.pop() else {
                break;
            };
            self.obs.events += 1;
            match ev {
                Event::Source { source } => self.source_tick(t, source as usize)?,
                Event::At { source, index } => {
                    let s = source as usize;
                    self.enter(t, s, self.sim.kind_base[s])?;
                    if let Schedule::At(times) = &m.sources[s].schedule {
                        if let Some(&next) = times.get(index as usize + 1) {
                            self.queue.schedule(
                                next,
                                Event::At {
                                    source,
                                    index: index + 1,
                                },
                            )?;
                        }
                    }
                }
                Event::Op { source, index } => {
                    let s = source as usize;
                    self.op_waits[s].clear();
                    self.op_start[s] = t;
                    self.enter(t, s, self.sim.kind_base[s] + index)?;
                }
                Event::Retry { slot, pos } => self.retry(t, slot, pos as usize)?,
            }
        }
        self.obs.accounting.in_flight = self.requests.live + self.past_end;
        for (i, n) in self.nodes.iter().enumerate() {
            self.obs.route_calls[i].clone_from(&n.route_calls);
        }
        Ok(self.obs)
    }

    fn source_tick(&mut self, t: u64, s: usize) -> Result<(), SimError> {
        let spec = &self.sim.model.sources[s];
        let rate = spec.rate_at(t);
        let n = match spec.arrivals {
            Arrivals::Uniform => {
                self.acc[s] += rate;
                let whole = self.acc[s].floor().max(0.0);
                self.acc[s] -= whole;
                whole as u64
            }
            Arrivals::Poisson => self.streams[s].poisson(rate),
        };
        let kind = self.sim.kind_base[s];
        for _ in 0..n {
            self.enter(t, s, kind)?;
        }
        if t < self.sim.model.ticks {
            self.queue
                .schedule(t + 1, Event::Source { source: s as u32 })?;
        }
        Ok(())
    }

    /// A new request of `kind` from source `s` enters its entry node.
    fn enter(&mut self, t: u64, s: usize, kind: u32) -> Result<(), SimError> {
        let id = self.next_id;
        self.next_id += 1;
        let slot = self.requests.alloc(id, s as u32, kind);
        self.obs.arrivals[t as usize] += 1;
        self.obs.accounting.entered += 1;
        self.obs.peak_in_flight = self.obs.peak_in_flight.max(self.requests.live);
        self.arrive(t, slot, 0)
    }

    fn retry(&mut self, t: u64, slot: u32, pos: usize) -> Result<(), SimError> {
        let depth = self.requests.depth;
        self.requests.tries[slot as usize * depth + pos] += 1;
        self.send(t, slot, pos)
    }

    /// Counts a call at `node` from the request in `slot`.
    #[inline]
    fn observe(&mut self, t: u64, slot: u32, node: usize) {
        let ti = t as usize;
        let series = &mut self.obs.nodes[node];
        series.calls[ti] += 1;
        let k = slot as usize * self.requests.nodes + node;
        let last = self.requests.last_seen[k];
        if last != t {
            series.unique[ti] += 1;
            if self.open_at != t {
                self.open_windows(t);
            }
            for &(w, from) in &self.open {
                if last == NEVER || last < from {
                    self.obs.window_unique[w][node] += 1;
                }
            }
            self.requests.last_seen[k] = t;
        }
    }

    /// Finds the windows that hold tick `t`, once per tick rather than on
    /// every call.
    #[cold]
    fn open_windows(&mut self, t: u64) {
        self.open.clear();
        for (w, &(from, to)) in self.windows.iter().enumerate() {
            if from <= t && t <= to {
                self.open.push((w, from));
            }
        }
        self.open_at = t;
    }

    /// The answer a node gives by itself, without calling downstream: a
    /// failing fault, no capacity, or (at the bottom of a path) its script.
    fn own_answer(
        &mut self,
        t: u64,
        slot: u32,
        node: usize,
        leaf: bool,
        field: usize,
    ) -> Option<Answer> {
        let m = self.sim.model;
        let failing = &self.nodes[node].failing;
        let active = |&&(from, to, k): &&(u64, u64, usize)| {
            from <= t && t <= to && m.faults[k].periodic.is_none_or(|p| p.strikes(t, field))
        };
        if let Some(&(_, _, k)) = failing.iter().rev().find(active) {
            if let Some(resp) = &m.faults[k].fail {
                return Some(answer_of(resp, t));
            }
        }
        if !self.nodes[node].take(t, &m.faults) {
            self.obs.nodes[node].refused[t as usize] += 1;
            return Some(Answer::Fail(Failure {
                kind: FailKind::Refused,
                not_before: None,
            }));
        }
        if !leaf {
            return None;
        }
        if m.nodes[node].composite.is_some() {
            return Some(self.assemble(t, slot, node));
        }
        let routes = &m.nodes[node].routes;
        if routes.is_empty() {
            return Some(Answer::Ok);
        }
        let req = &self.sim.kinds[self.requests.kind[slot as usize] as usize].request;
        let Some(r) = routes.iter().position(|r| {
            r.method.is_none_or(|mm| mm == req.method)
                && r.path.as_ref().is_none_or(|p| *p == req.path)
        }) else {
            return Some(Answer::Fail(Failure {
                kind: FailKind::Status(404),
                not_before: None,
            }));
        };
        self.nodes[node].route_calls[r] += 1;
        // The route's script is a little state machine: the current step,
        // and the calls it has answered. A step `x N` ends after N calls, a
        // step `until T` at tick T; the last step holds for ever.
        let script = &routes[r].script;
        let (mut step, mut used) = self.nodes[node].route_steps[r];
        while step + 1 < script.len() {
            let s = &script[step];
            let over = match (s.times, s.until) {
                (Some(n), _) => used >= n,
                (None, Some(u)) => t >= u,
                (None, None) => false,
            };
            if !over {
                break;
            }
            step += 1;
            used = 0;
        }
        self.nodes[node].route_steps[r] = (step, used + 1);
        Some(
            script
                .get(step)
                .map_or(Answer::Ok, |s| answer_of(&s.response, t)),
        )
    }

    /// A composite response: fetch every field from its node, fall back on
    /// the ledger where the policy allows, and answer or drop by the policy.
    fn assemble(&mut self, t: u64, slot: u32, node: usize) -> Answer {
        let sim = self.sim;
        let Some(spec) = &sim.model.nodes[node].composite else {
            return Answer::Ok;
        };
        let stale_for = spec.ledger.as_ref().map(|l| l.stale_for);
        let (mut fresh, mut stale, mut missing, mut bytes) = (0u32, 0u32, 0u32, 0u64);
        let mut core_missing = false;
        for (i, f) in spec.fields.iter().enumerate() {
            self.observe(t, slot, f.source);
            let answer = self
                .own_answer(t, slot, f.source, true, i)
                .unwrap_or(Answer::Ok);
            self.count_answer(t, f.source, answer);
            if answer == Answer::Ok {
                self.nodes[node].ledger[i] = t;
                fresh += 1;
                bytes += f.bytes + spec.marker;
                continue;
            }
            let last = self.nodes[node].ledger[i];
            let servable = spec.policy == Degradation::StaleFallback
                && last != NEVER
                && stale_for.is_some_and(|s| t - last <= s);
            if servable {
                stale += 1;
                bytes += f.bytes + spec.marker;
            } else {
                missing += 1;
                core_missing |= f.core;
            }
        }
        let not_fresh = stale + missing > 0;
        let drop = match spec.policy {
            Degradation::AllOrNothing => not_fresh,
            Degradation::SkipOptional | Degradation::StaleFallback => core_missing,
        };
        if drop {
            return Answer::Fail(Failure {
                kind: FailKind::Incomplete,
                not_before: None,
            });
        }
        if let Some(c) = self.obs.nodes[node].composite.as_mut() {
            let ti = t as usize;
            if not_fresh {
                c.reduced[ti] += 1;
            } else {
                c.full[ti] += 1;
            }
            c.fresh[ti] += fresh;
            c.stale[ti] += stale;
            c.missing[ti] += missing;
            c.bytes[ti] += bytes;
        }
        Answer::Ok
    }

    /// A call arrives at path position `pos`: walk down until some node
    /// answers by itself, then carry the answer up.
    fn arrive(&mut self, t: u64, slot: u32, mut pos: usize) -> Result<(), SimError> {
        let source = self.requests.source[slot as usize] as usize;
        let depth = self.requests.depth;
        loop {
            let path_len = self.sim.paths[source].len();
            let node = self.sim.paths[source][pos];
            self.observe(t, slot, node);
            let leaf = pos + 1 == path_len;
            if let Some(answer) = self.own_answer(t, slot, node, leaf, 0) {
                self.count_answer(t, node, answer);
                return self.deliver(t, slot, pos as isize - 1, answer, true);
            }
            // The node's first try at its downstream.
            let k = slot as usize * depth + pos;
            self.requests.tries[k] = 1;
            self.requests.started[k] = t;
            self.requests.prev_wait[k] = NEVER;
            if let Some(blocked) = self.admit(t, slot, pos, node) {
                return self.deliver(t, slot, pos as isize, blocked, false);
            }
            pos += 1;
        }
    }

    /// The service at `pos` sends a try downstream (after its breaker agrees).
    fn send(&mut self, t: u64, slot: u32, pos: usize) -> Result<(), SimError> {
        let source = self.requests.source[slot as usize] as usize;
        let node = self.sim.paths[source][pos];
        if let Some(blocked) = self.admit(t, slot, pos, node) {
            return self.deliver(t, slot, pos as isize, blocked, false);
        }
        self.arrive(t, slot, pos + 1)
    }

    /// Which of `node`'s breakers guards the request in `slot`, if any.
    fn breaker_scope(&self, slot: u32, node: usize) -> Option<usize> {
        match self.nodes[node].breakers.len() {
            0 => None,
            1 => Some(0),
            _ => Some(self.sim.kinds[self.requests.kind[slot as usize] as usize].scope),
        }
    }

    /// The path a `per path` breaker of `node` guards for this request.
    fn scope_label(&self, slot: u32, node: usize) -> String {
        if self.nodes[node].breakers.len() > 1 {
            let scope = self.sim.kinds[self.requests.kind[slot as usize] as usize].scope;
            self.sim.scope_names.get(scope).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    }

    /// Asks the breaker of the service `node` at `pos`; `Some(answer)` when
    /// the try fails fast.
    #[inline]
    fn admit(&mut self, t: u64, slot: u32, pos: usize, node: usize) -> Option<Answer> {
        if self.nodes[node].breakers.is_empty() {
            return None;
        }
        self.admit_through_breaker(t, slot, pos, node)
    }

    #[inline(never)]
    fn admit_through_breaker(
        &mut self,
        t: u64,
        slot: u32,
        pos: usize,
        node: usize,
    ) -> Option<Answer> {
        let scope = self.breaker_scope(slot, node)?;
        let a = self.nodes[node].breakers[scope].admit(t);
        let k = slot as usize * self.requests.depth + pos;
        self.requests.sent_at[k] = t;
        self.requests.admitted[k] = a.before;
        self.requests.admitted_epoch[k] = a.epoch;
        if a.sent {
            return None;
        }
        self.obs.nodes[node].blocked[t as usize] += 1;
        let answer = Answer::Fail(Failure {
            kind: FailKind::CircuitOpen {
                remaining: a.remaining,
            },
            not_before: None,
        });
        self.trace(
            node,
            TraceRow {
                scope: self.scope_label(slot, node),
                time: t,
                sent: false,
                before: a.before.name(),
                outcome: if a.remaining > 0 {
                    format!(
                        "not sent ({} {} left)",
                        a.remaining,
                        self.sim.model.clock.unit_name()
                    )
                } else {
                    "not sent (probe in flight)".into()
                },
                after: a.before.name(),
            },
        );
        Some(answer)
    }

    fn trace(&mut self, node: usize, row: TraceRow) {
        if self.obs.traces[node].len() < TRACE_LIMIT {
            self.obs.traces[node].push(row);
        } else {
            self.obs.trace_dropped[node] += 1;
        }
    }

    fn count_answer(&mut self, t: u64, node: usize, answer: Answer) {
        let s = &mut self.obs.nodes[node];
        match answer {
            Answer::Ok => s.ok[t as usize] += 1,
            Answer::Fail(_) => s.failed[t as usize] += 1,
        }
    }

    /// Carries `answer` up: it arrives at the service at position `q` from
    /// its downstream (`sent`: the try really went out). A service with
    /// tries left schedules a retry; otherwise it answers its own caller.
    fn deliver(
        &mut self,
        t: u64,
        slot: u32,
        mut q: isize,
        answer: Answer,
        mut sent: bool,
    ) -> Result<(), SimError> {
        let source = self.requests.source[slot as usize] as usize;
        let depth = self.requests.depth;
        let kind = self.requests.kind[slot as usize] as usize;
        while q >= 0 {
            let pos = q as usize;
            let node = self.sim.paths[source][pos];
            let k = slot as usize * depth + pos;
            if sent {
                if let Some(scope) = self.breaker_scope(slot, node) {
                    let after = self.nodes[node].breakers[scope].record(
                        counts_against_dependency(answer),
                        t,
                        self.requests.admitted_epoch[k],
                    );
                    let row = TraceRow {
                        scope: self.scope_label(slot, node),
                        time: self.requests.sent_at[k],
                        sent: true,
                        before: self.requests.admitted[k].name(),
                        outcome: describe(answer, self.sim.model.clock.unit_name()),
                        after: after.name(),
                    };
                    self.trace(node, row);
                }
            }
            if let Answer::Fail(f) = answer {
                let sim = self.sim;
                let policy = if pos == 0 {
                    sim.kinds[kind].entry_retry.as_ref()
                } else {
                    sim.model.nodes[node].retry.as_ref()
                };
                if let Some(policy) = policy {
                    if let Some(wait) = self.retry_wait(t, slot, pos, f, policy, kind) {
                        let at = t.saturating_add(wait);
                        // Only an operation's record reads its waits; for
                        // other requests they would pile up for the whole run.
                        if pos == 0 && sim.kinds[kind].op.is_some() {
                            self.op_waits[source].push(wait);
                        }
                        if at <= self.sim.model.ticks {
                            self.queue.schedule(
                                at,
                                Event::Retry {
                                    slot,
                                    pos: pos as u32,
                                },
                            )?;
                        } else {
                            // The next try falls after the run: the request is
                            // still in flight at the end.
                            self.requests.release(slot);
                            self.past_end += 1;
                        }
                        return Ok(());
                    }
                }
            }
            self.count_answer(t, node, answer);
            q -= 1;
            sent = true;
        }
        self.finish(t, slot, answer)
    }

    /// The wait before the next try of the service at `pos`, or `None` when
    /// it makes no more tries.
    fn retry_wait(
        &mut self,
        t: u64,
        slot: u32,
        pos: usize,
        f: Failure,
        policy: &RetrySpec,
        kind: usize,
    ) -> Option<u64> {
        let k = slot as usize * self.requests.depth + pos;
        let used = self.requests.tries[k];
        let limit = match classify(f.kind, &self.sim.kinds[kind].request) {
            Class::Retryable => policy.attempts,
            Class::Unknown => policy.attempts.min(policy.unknown_attempts),
            Class::Terminal => return None,
        };
        if used >= limit {
            return None;
        }
        let r = if policy.backoff.draws() {
            let g = policy.backoff.rng().unwrap_or(self.gens.len() - 1);
            self.gens[g].next_f64()
        } else {
            0.0
        };
        let prev = self.requests.prev_wait[k];
        let mut wait = policy
            .backoff
            .wait_with(used, r, (prev != NEVER).then_some(prev));
        self.requests.prev_wait[k] = wait;
        if policy.honor_retry_after {
            if let Some(nb) = f.not_before {
                wait = wait.max(nb.saturating_sub(t));
            }
        }
        if let Some(d) = policy.deadline {
            if t.saturating_add(wait)
                .saturating_sub(self.requests.started[k])
                > d
            {
                return None;
            }
        }
        Some(wait)
    }

    /// The request ends with `answer` at its source.
    fn finish(&mut self, t: u64, slot: u32, answer: Answer) -> Result<(), SimError> {
        let ti = t as usize;
        match answer {
            Answer::Ok => {
                self.obs.completed[ti] += 1;
                self.obs.accounting.completed += 1;
            }
            Answer::Fail(_) => {
                self.obs.dropped[ti] += 1;
                self.obs.accounting.dropped += 1;
            }
        }
        let source = self.requests.source[slot as usize] as usize;
        let kind = self.requests.kind[slot as usize] as usize;
        if let Some(op) = self.sim.kinds[kind].op {
            let entry = self.sim.paths[source][0];
            let tries = if self.sim.model.nodes[entry].downstream.is_some() {
                self.requests.tries[slot as usize * self.requests.depth]
            } else {
                1
            };
            let label = match &self.sim.model.sources[source].schedule {
                Schedule::Sequential(ops) => ops.get(op).map_or(String::new(), |o| o.label.clone()),
                _ => String::new(),
            };
            self.obs.ops[source].push(OpRecord {
                label,
                start: self.op_start[source],
                end: t,
                tries,
                outcome: describe(answer, self.sim.model.clock.unit_name()),
                success: answer == Answer::Ok,
                waits: std::mem::take(&mut self.op_waits[source]),
            });
            if let Schedule::Sequential(ops) = &self.sim.model.sources[source].schedule {
                if op + 1 < ops.len() {
                    self.queue.schedule(
                        t,
                        Event::Op {
                            source: source as u32,
                            index: op as u32 + 1,
                        },
                    )?;
                }
            }
        }
        self.requests.release(slot);
        Ok(())
    }
}
