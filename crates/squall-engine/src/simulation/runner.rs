//! The event loop: a [`Runner`] pops events in `(time, sequence)` order,
//! lets sources send requests, makes retries, and counts what it observes.

use squall_lang::{Arrivals, Schedule};

use crate::breaker::Breaker;
use crate::observations::Observations;
use crate::queue::EventQueue;
use crate::rng::{Generator, Stream};

use super::{
    node_state::NodeState, requests::Requests, timed::Timed, Event, SimError, Simulation, NEVER,
};

/// The state of a run in progress.
pub(super) struct Runner<'s, 'm> {
    pub(super) sim: &'s Simulation<'m>,
    pub(super) queue: EventQueue<Event>,
    pub(super) requests: Requests,
    pub(super) nodes: Vec<NodeState>,
    pub(super) obs: Observations,
    /// Accumulators of uniform sources.
    pub(super) acc: Vec<f64>,
    /// Random streams of Poisson sources.
    pub(super) streams: Vec<Stream>,
    /// Named generators, then the run's default one.
    pub(super) gens: Vec<Generator>,
    /// Waits of the running operation of each sequential source.
    pub(super) op_waits: Vec<Vec<u64>>,
    /// Start tick of the running operation of each sequential source.
    pub(super) op_start: Vec<u64>,
    pub(super) next_id: u64,
    /// Window bounds, for unique counting.
    pub(super) windows: Vec<(u64, u64)>,
    /// The windows that hold tick `open_at`: (window, first tick).
    pub(super) open: Vec<(usize, u64)>,
    pub(super) open_at: u64,
    /// Requests whose next try falls after the last tick.
    pub(super) past_end: u64,
    /// The state of a run that takes time (empty otherwise).
    pub(super) timed: Timed,
}

impl<'s, 'm> Runner<'s, 'm> {
    pub(super) fn new(sim: &'s Simulation<'m>) -> Self {
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
            timed: Timed::new(m, sim.seed),
        }
    }

    pub(super) fn run(mut self) -> Result<Observations, SimError> {
        if self.timed.on {
            return self.run_timed();
        }
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
                Event::Wake { .. } => {}
            }
        }
        self.obs.accounting.in_flight = self.requests.live + self.past_end;
        for (i, n) in self.nodes.iter().enumerate() {
            self.obs.route_calls[i].clone_from(&n.route_calls);
        }
        Ok(self.obs)
    }

    pub(super) fn source_tick(&mut self, t: u64, s: usize) -> Result<(), SimError> {
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
    pub(super) fn enter(&mut self, t: u64, s: usize, kind: u32) -> Result<(), SimError> {
        let slot = self.new_request(t, s, kind);
        self.arrive(t, slot, 0)
    }

    /// A slot for a new request of `kind` from source `s` at tick `t`,
    /// counted as an arrival.
    #[inline]
    pub(super) fn new_request(&mut self, t: u64, s: usize, kind: u32) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        let slot = self.requests.alloc(id, s as u32, kind);
        self.obs.arrivals[t as usize] += 1;
        self.obs.accounting.entered += 1;
        self.obs.peak_in_flight = self.obs.peak_in_flight.max(self.requests.live);
        slot
    }

    pub(super) fn retry(&mut self, t: u64, slot: u32, pos: usize) -> Result<(), SimError> {
        let depth = self.requests.depth;
        self.requests.tries[slot as usize * depth + pos] += 1;
        self.send(t, slot, pos)
    }

    /// Counts a call at `node` from the request in `slot`.
    #[inline]
    pub(super) fn observe(&mut self, t: u64, slot: u32, node: usize) {
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
    pub(super) fn open_windows(&mut self, t: u64) {
        self.open.clear();
        for (w, &(from, to)) in self.windows.iter().enumerate() {
            if from <= t && t <= to {
                self.open.push((w, from));
            }
        }
        self.open_at = t;
    }
}
