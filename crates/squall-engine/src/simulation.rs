//! The discrete-event core.
//!
//! # How a run proceeds
//!
//! Time is an integer count of ticks (`1..=ticks`). Two kinds of event exist:
//!
//! * **source tick** — a source adds its rate for the tick to an accumulator
//!   (or draws a Poisson count) and sends one new request for each whole unit
//!   into its entry node; it then schedules its own next tick.
//! * **retry** — a service that saw its downstream call fail makes its next
//!   try.
//!
//! Events run in `(time, sequence)` order, FIFO among equal times.
//!
//! # A call
//!
//! Calls take no time: a call made in tick `t` is answered in tick `t`. A call
//! walks down the request's path (entry node, its downstream, and so on):
//! every node counts the call, then checks its per-tick capacity (a fault may
//! change it). A node with no capacity left refuses the call, which fails
//! back to its caller. A node at the bottom of the path that accepts the call
//! answers success, and success travels all the way up.
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

use squall_lang::{Arrivals, Model};

use crate::observations::Observations;
use crate::queue::{EventQueue, SchedulingError};
use crate::rng::Stream;

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
    #[error("{what} {from}..{to} is outside the run 1..{ticks}")]
    OutOfRun {
        /// What.
        what: String,
        /// First tick.
        from: u64,
        /// Last tick.
        to: u64,
        /// Run length.
        ticks: u64,
    },
    /// A retry policy with no tries.
    #[error("node `{node}` has a retry policy with 0 attempts")]
    NoAttempts {
        /// The node.
        node: String,
    },
    /// An event was scheduled in the past.
    #[error(transparent)]
    Scheduling(#[from] SchedulingError),
}

/// An event in the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// A source's tick.
    Source { source: u32 },
    /// The service at `pos` of a request's path makes its next try.
    Retry { slot: u32, pos: u32 },
}

/// Tick sentinel: never seen.
const NEVER: u64 = u64::MAX;

/// Per-request state, in flat arrays indexed by slot.
struct Requests {
    /// Request id per slot.
    id: Vec<u64>,
    /// Which path (by source) the request follows.
    path: Vec<u32>,
    /// Tries used per path position: `slot * depth + pos`.
    tries: Vec<u32>,
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
            path: Vec::new(),
            tries: Vec::new(),
            last_seen: Vec::new(),
            free: Vec::new(),
            depth,
            nodes,
            live: 0,
        }
    }

    fn alloc(&mut self, id: u64, path: u32) -> u32 {
        self.live += 1;
        if let Some(slot) = self.free.pop() {
            let s = slot as usize;
            self.id[s] = id;
            self.path[s] = path;
            self.tries[s * self.depth..(s + 1) * self.depth].fill(0);
            self.last_seen[s * self.nodes..(s + 1) * self.nodes].fill(NEVER);
            slot
        } else {
            let slot = self.id.len() as u32;
            self.id.push(id);
            self.path.push(path);
            self.tries.extend(std::iter::repeat_n(0, self.depth));
            self.last_seen
                .extend(std::iter::repeat_n(NEVER, self.nodes));
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
    /// Faults on this node: (from, to, capacity), in declaration order.
    faults: Vec<(u64, u64, Option<u64>)>,
}

impl NodeState {
    /// Takes one unit of capacity at tick `t`; false when none is left.
    #[inline]
    fn take(&mut self, t: u64) -> bool {
        if self.tick != t {
            self.tick = t;
            let mut cap = self.capacity;
            for &(from, to, c) in &self.faults {
                if from <= t && t <= to && c.is_some() {
                    cap = c;
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
        for node in &m.nodes {
            if let Some(d) = node.downstream {
                check(format!("node `{}`", node.name), d)?;
            }
            if node.retry.as_ref().is_some_and(|r| r.attempts == 0) {
                return Err(SimError::NoAttempts {
                    node: node.name.clone(),
                });
            }
        }
        for s in &m.sources {
            check(format!("source `{}`", s.name), s.entry)?;
        }
        for f in &m.faults {
            check(format!("fault `{}`", f.name), f.node)?;
            if f.from < 1 || f.to > m.ticks || f.from > f.to {
                return Err(SimError::OutOfRun {
                    what: format!("fault `{}`", f.name),
                    from: f.from,
                    to: f.to,
                    ticks: m.ticks,
                });
            }
        }
        for w in &m.windows {
            if w.from < 1 || w.to > m.ticks || w.from > w.to {
                return Err(SimError::OutOfRun {
                    what: format!("window `{}`", w.name),
                    from: w.from,
                    to: w.to,
                    ticks: m.ticks,
                });
            }
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
        Ok(Simulation {
            model: m,
            seed: self.seed,
            paths,
        })
    }
}

/// A prepared run of one model.
#[derive(Debug, Clone)]
pub struct Simulation<'m> {
    model: &'m Model,
    seed: u64,
    paths: Vec<Vec<usize>>,
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
    next_id: u64,
    /// Window bounds, for unique counting.
    windows: Vec<(u64, u64)>,
    /// Requests whose next try falls after the last tick.
    past_end: u64,
}

/// How a call ended, seen from its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Ok,
    Fail,
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
                    .filter(|f| f.node == i)
                    .map(|f| (f.from, f.to, f.capacity))
                    .collect(),
            })
            .collect();
        Runner {
            sim,
            queue: EventQueue::new(),
            requests: Requests::new(depth, m.nodes.len()),
            nodes,
            obs: Observations::new(m.ticks, &names, m.windows.len()),
            acc: vec![0.0; m.sources.len()],
            streams: (0..m.sources.len())
                .map(|i| Stream::new(sim.seed, &format!("source/{i}")))
                .collect(),
            next_id: 1,
            windows: m.windows.iter().map(|w| (w.from, w.to)).collect(),
            past_end: 0,
        }
    }

    fn run(mut self) -> Result<Observations, SimError> {
        let ticks = self.sim.model.ticks;
        if ticks >= 1 {
            for s in 0..self.sim.model.sources.len() {
                self.queue.schedule(1, Event::Source { source: s as u32 })?;
            }
        }
        while let Some(t) = self.queue.peek_time() {
            if t > ticks {
                break;
            }
            let Some((t, ev)) = self.queue.pop() else {
                break;
            };
            self.obs.events += 1;
            match ev {
                Event::Source { source } => self.source_tick(t, source as usize)?,
                Event::Retry { slot, pos } => self.retry(t, slot, pos as usize)?,
            }
        }
        self.obs.accounting.in_flight = self.requests.live + self.past_end;
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
        for _ in 0..n {
            let id = self.next_id;
            self.next_id += 1;
            let slot = self.requests.alloc(id, s as u32);
            self.obs.arrivals[t as usize] += 1;
            self.obs.accounting.entered += 1;
            self.obs.peak_in_flight = self.obs.peak_in_flight.max(self.requests.live);
            let (outcome, pos) = self.descend(t, slot, 0);
            self.ascend(t, slot, pos, outcome)?;
        }
        if t < self.sim.model.ticks {
            self.queue
                .schedule(t + 1, Event::Source { source: s as u32 })?;
        }
        Ok(())
    }

    fn retry(&mut self, t: u64, slot: u32, pos: usize) -> Result<(), SimError> {
        let depth = self.requests.depth;
        self.requests.tries[slot as usize * depth + pos] += 1;
        let (outcome, end) = self.descend(t, slot, pos + 1);
        self.ascend(t, slot, end, outcome)
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
            for (w, &(from, to)) in self.windows.iter().enumerate() {
                if from <= t && t <= to && (last == NEVER || last < from) {
                    self.obs.window_unique[w][node] += 1;
                }
            }
            self.requests.last_seen[k] = t;
        }
    }

    /// Sends a call down the path from position `pos`; returns the outcome
    /// and the position of the node that answered it.
    fn descend(&mut self, t: u64, slot: u32, mut pos: usize) -> (Outcome, usize) {
        let path_id = self.requests.path[slot as usize] as usize;
        let depth = self.requests.depth;
        loop {
            let node = self.sim.paths[path_id][pos];
            self.observe(t, slot, node);
            if !self.nodes[node].take(t) {
                let s = &mut self.obs.nodes[node];
                s.refused[t as usize] += 1;
                s.failed[t as usize] += 1;
                return (Outcome::Fail, pos);
            }
            if pos + 1 < self.sim.paths[path_id].len() {
                // The node's first try at its downstream.
                self.requests.tries[slot as usize * depth + pos] = 1;
                pos += 1;
            } else {
                self.obs.nodes[node].ok[t as usize] += 1;
                return (Outcome::Ok, pos);
            }
        }
    }

    /// Carries the answer of the node at `pos` up to its callers.
    fn ascend(
        &mut self,
        t: u64,
        slot: u32,
        mut pos: usize,
        outcome: Outcome,
    ) -> Result<(), SimError> {
        let path_id = self.requests.path[slot as usize] as usize;
        let depth = self.requests.depth;
        let ti = t as usize;
        while pos > 0 {
            let caller = pos - 1;
            let node = self.sim.paths[path_id][caller];
            match outcome {
                Outcome::Ok => self.obs.nodes[node].ok[ti] += 1,
                Outcome::Fail => {
                    if let Some(retry) = &self.sim.model.nodes[node].retry {
                        let used = self.requests.tries[slot as usize * depth + caller];
                        if used < retry.attempts {
                            let at = t.saturating_add(retry.backoff.wait(used));
                            if at <= self.sim.model.ticks {
                                self.queue.schedule(
                                    at,
                                    Event::Retry {
                                        slot,
                                        pos: caller as u32,
                                    },
                                )?;
                            } else {
                                // The next try falls after the run: the request
                                // is still in flight at the end.
                                self.requests.release(slot);
                                self.past_end += 1;
                            }
                            return Ok(());
                        }
                    }
                    self.obs.nodes[node].failed[ti] += 1;
                }
            }
            pos = caller;
        }
        match outcome {
            Outcome::Ok => {
                self.obs.completed[ti] += 1;
                self.obs.accounting.completed += 1;
            }
            Outcome::Fail => {
                self.obs.dropped[ti] += 1;
                self.obs.accounting.dropped += 1;
            }
        }
        self.requests.release(slot);
        Ok(())
    }
}
