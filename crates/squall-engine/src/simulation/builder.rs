//! [`SimulationBuilder`]: checks a model and prepares its run.
//!
//! `build` refuses, as a [`SimError`], what the engine cannot run: links to
//! nodes that do not exist, a cycle of downstream links, faults and windows
//! outside the run, retry policies with no tries or an unknown generator,
//! sources too fast or too long, runs whose counters (per tick, or per bin
//! on a run that takes time) would not fit in memory ([`MAX_SERIES_MIB`]),
//! and runs that take time whose failure-free estimate of work is already
//! past the work budget, or whose estimated peak memory is past the memory
//! budget when one is set ([`super::timed::estimate`]). It then works out what every run of
//! the model shares: each source's path (entry node down its downstream
//! links), the request [`Kind`]s, and the distinct request paths (the
//! scopes of `per path` breakers).

use squall_lang::{Model, Schedule};

use crate::error::SimError;
use crate::observe::Observe;

use super::{kind::Kind, Simulation};

/// The most requests one source may send in a run (at its peak rate).
const MAX_REQUESTS: f64 = 1e9;

/// The most memory the counters of one run may take \[MiB\].
pub const MAX_SERIES_MIB: u64 = 2048;

/// The largest rate a source may have \[requests/tick\]: keeps per-tick
/// counters in range and a run finite.
const MAX_RATE: f64 = 1_000_000.0;

/// Builds a [`Simulation`].
#[derive(Debug, Clone)]
pub struct SimulationBuilder<'m> {
    pub(super) model: &'m Model,
    pub(super) seed: u64,
    pub(super) work: u64,
    pub(super) call_log: Option<usize>,
    pub(super) breaker_log: bool,
    pub(super) replica_windows: bool,
    pub(super) replica_latency: bool,
    pub(super) replica_queue: bool,
    pub(super) memory_mib: Option<u64>,
    pub(super) force_timed: bool,
    pub(super) observe: Observe,
    pub(super) distinct_at: Option<Vec<usize>>,
}

impl<'m> SimulationBuilder<'m> {
    /// Sets the run's work budget: the events it may handle beyond one
    /// source tick per source and tick (default [`super::DEFAULT_WORK`]).
    /// A run that needs more stops with [`SimError::WorkBudget`].
    pub fn work_budget(mut self, events: u64) -> Self {
        self.work = events;
        self
    }

    /// Sets the memory one run may hold \[MiB\]: a run that takes time
    /// whose estimated peak memory ([`super::timed::estimate`]) is past it
    /// is refused with [`SimError::MemoryOverBudget`] before it starts.
    /// Without it, only the counters' limit ([`MAX_SERIES_MIB`]) applies.
    pub fn memory_budget(mut self, mib: u64) -> Self {
        self.memory_mib = Some(mib);
        self
    }

    /// Keeps one row per answered call, at most `limit` rows
    /// ([`Observations::call_log`](crate::Observations::call_log)).
    pub fn call_log(mut self, limit: usize) -> Self {
        self.call_log = Some(limit);
        self
    }

    /// Keeps every change of every breaker's state
    /// ([`Observations::breakers`](crate::Observations::breakers)), for
    /// charts of breaker state over time. Off by default: the log grows
    /// with the changes a run makes, not with the work in flight, so only
    /// a run whose report draws it keeps it.
    pub fn breaker_log(mut self, keep: bool) -> Self {
        self.breaker_log = keep;
        self
    }

    /// Counts each replica of every node with `replicas` per named window
    /// (calls, served, failed, refused for capacity:
    /// [`ReplicaCounts::windows`](crate::ReplicaCounts::windows)), for a
    /// report that reads one replica. Off by default: a run whose report
    /// reads no replica pays nothing for it.
    pub fn replica_windows(mut self, keep: bool) -> Self {
        self.replica_windows = keep;
        self
    }

    /// Records, on a run that takes time, each replica's latency per named
    /// window ([`ReplicaCounts::latency`](crate::ReplicaCounts::latency):
    /// the time at the replica of each call it served, in the same
    /// histograms the node's latency is kept in), and keeps its counts per
    /// window as [`Self::replica_windows`] does. Off by default: a run
    /// whose report reads no replica's latency records none.
    pub fn replica_latency(mut self, keep: bool) -> Self {
        self.replica_latency = keep;
        self
    }

    /// Records, on a run that takes time, each replica's queue length per
    /// named window, time-weighted
    /// ([`ReplicaCounts::queue`](crate::ReplicaCounts::queue): the calls
    /// waiting for one of its workers, changed where the node's queue
    /// changes). Off by default: a run whose report reads no replica's
    /// queue pays one test per change of a queue.
    pub fn replica_queue(mut self, keep: bool) -> Self {
        self.replica_queue = keep;
        self
    }

    /// Records only `observe` of the timed path's own measures (latency
    /// histograms, gauges, end-to-end latency, per-bin stretches): the
    /// others are not recorded, cost no work per call, and are left empty
    /// in [`TimedObservations`](crate::observe::TimedObservations), whose
    /// `observed` says which were. The default is
    /// [`Observe::EVERYTHING`]; a caller that reads less (a report of
    /// window totals) asks for less.
    pub fn observe(mut self, observe: Observe) -> Self {
        self.observe = observe;
        self
    }

    /// Counts distinct request ids (the series' `unique`, and per named
    /// window [`Observations::window_unique`](crate::Observations::window_unique))
    /// only at `nodes`, on either path; every other node's stay 0, cost
    /// no work per call (a round model's walk paid a tenth of its
    /// instructions for them, a timed chain a twentieth: issue 23) and
    /// are listed as not counted in
    /// [`Observations::distinct_at`](crate::Observations::distinct_at),
    /// so a reader can tell a 0 counted from one that was not. By
    /// default every node's are counted; a caller that reads some (a
    /// report reads them at the nodes its `unique` metrics name) asks for
    /// those.
    pub fn distinct_ids_at(mut self, nodes: &[usize]) -> Self {
        self.distinct_at = Some(nodes.to_vec());
        self
    }

    /// Runs the model on the timed path even when nothing in it takes
    /// time (off by default). Both paths drive the same components, so the
    /// counts the semantics fixes come out the same; the tests that check
    /// this (`tests/both_paths.rs`) use it. Its per-tick series stay per
    /// tick; the timed path's own measures (latency levels, wasted work)
    /// are added.
    pub fn force_timed(mut self) -> Self {
        self.force_timed = true;
        self
    }

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
        // Counters per slot (per tick, or per bin on a run that takes
        // time): 6 per node (8 more words for a composite), 4 for the
        // system, 4 bytes each.
        let words: u64 = 4 + m
            .nodes
            .iter()
            .map(|n| if n.composite.is_some() { 14 } else { 6 })
            .sum::<u64>();
        let slots = if super::timed::takes_time(m) {
            // Bins, and a cut at each window edge.
            let span = m.ticks.saturating_sub(m.start).saturating_add(1);
            span.div_ceil(super::timed::series_bin(m).max(1))
                .saturating_add(2 * m.windows.len() as u64 + 1)
        } else {
            m.ticks.saturating_add(1)
        };
        let mib = slots.saturating_mul(words).saturating_mul(4) >> 20;
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
            let peak = s
                .periods
                .iter()
                .map(|p| p.rate.max(p.to_rate.unwrap_or(0.0)))
                .fold(s.rate, f64::max);
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
        let ticks = m.ticks.saturating_sub(m.start).saturating_add(1);
        let max_events = self
            .work
            .saturating_add(ticks.saturating_mul(m.sources.len() as u64));
        if super::timed::takes_time(m) {
            refuse_past_budget(m, max_events, self.memory_mib)?;
        }
        // Each counted node's column in a request's last-seen ticks, in
        // node order.
        let mut counted = 0;
        let column: Vec<u32> = (0..m.nodes.len())
            .map(|n| {
                if self.distinct_at.as_ref().is_none_or(|at| at.contains(&n)) {
                    counted += 1;
                    counted - 1
                } else {
                    super::NO_COLUMN
                }
            })
            .collect();
        let distinct_at = self.distinct_at.map(|mut at| {
            at.sort_unstable();
            at.dedup();
            at
        });
        Ok(Simulation {
            distinct_at,
            model: m,
            seed: self.seed,
            max_events,
            steps: paths
                .iter()
                .scan(0, |first, p| {
                    let steps = super::plan::steps(m, p, &column, *first);
                    *first += p.len();
                    Some(steps)
                })
                .collect(),
            column,
            paths,
            kinds,
            kind_base,
            scopes,
            scope_names: seen,
            call_log: self.call_log,
            breaker_log: self.breaker_log,
            replica_windows: self.replica_windows,
            replica_latency: self.replica_latency,
            replica_queue: self.replica_queue,
            force_timed: self.force_timed,
            observe: self.observe,
        })
    }
}

/// Refuses a run that takes time whose failure-free estimate of events
/// ([`super::timed::estimate`]) is past `budget`, naming the source whose
/// requests make the most of them, or whose estimated peak memory is past
/// `memory_mib`.
fn refuse_past_budget(m: &Model, budget: u64, memory_mib: Option<u64>) -> Result<(), SimError> {
    let e = super::timed::estimate(m);
    if let Some(mib) = memory_mib {
        if e.peak_bytes() > mib.saturating_mul(1 << 20) {
            let in_mib = |b: u64| b as f64 / (1u64 << 20) as f64;
            return Err(SimError::MemoryOverBudget {
                mib: in_mib(e.peak_bytes()),
                series: in_mib(e.series_bytes),
                histograms: in_mib(e.histogram_bytes),
                in_flight: in_mib(e.in_flight_bytes),
                budget: mib,
            });
        }
    }
    if e.events <= budget as f64 {
        return Ok(());
    }
    let (name, requests, events) = e.busiest.unwrap_or_default();
    Err(SimError::EstimateOverBudget {
        name,
        events: e.events,
        requests,
        per_request: if requests > 0.0 {
            events / requests
        } else {
            0.0
        },
        budget,
    })
}
