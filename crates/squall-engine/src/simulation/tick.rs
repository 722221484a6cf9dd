//! [`TickCounts`]: the zero-time path's per-node counters of the tick
//! being run.
//!
//! The walk down a path and back up counts every call, distinct id,
//! refusal and answer at the node it reaches. Counted straight into the
//! node's series (`obs.nodes[node].calls[t]`, `.unique[t]`, ...), each
//! count paid a bounds check of the node, and a load of the series'
//! pointer and length and a bounds check of the tick, per counter. A
//! round model's calls come in tick order (its events do, and a call is
//! answered in the tick it is made), so the counts of the current tick are
//! kept here instead, one small record per node found with one bounds
//! check, and added to the series once, when the run's loop moves to a
//! later tick or ends (issue 23: the round benchmark's walk). So are the
//! distinct ids per named window: the windows that hold the tick are
//! found once per tick, and a request new to them at a node is counted in
//! one flat array (open window by node), not in the run's window by node
//! vectors. What a walk counts at several nodes of its path at once is
//! kept once per path position ([`PositionTick`]) and added to those
//! nodes here too: the calls of a stretch of bare positions
//! (`plan.rs`, `Step::bare`), and a success counted at every node above
//! where it was answered (`Step::quiet_above`).

use crate::observe::windows::Windows;
use crate::observe::Observations;

use super::plan::Step;
use super::NEVER;

/// One node's counts in the current tick.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct NodeTick {
    /// Calls the node saw.
    pub(super) calls: u32,
    /// Request ids it had not seen earlier in the tick.
    pub(super) unique: u32,
    /// Calls refused by its capacity.
    pub(super) refused: u32,
    /// Calls it answered with success.
    pub(super) ok: u32,
    /// Calls it answered with failure.
    pub(super) failed: u32,
    /// Retries it decided on (its series is made at the node's first).
    pub(super) retries: u32,
}

/// The run's own counts in the current tick.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct RunTick {
    /// Requests that entered.
    pub(super) arrivals: u32,
    /// Requests that completed.
    pub(super) completed: u32,
    /// Requests that completed on their first try.
    pub(super) first_try: u32,
    /// Requests dropped.
    pub(super) dropped: u32,
}

/// What walks counted once for one path position (`Step::at`) in the
/// current tick, for several nodes of its path.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct PositionTick {
    /// Walks that passed the stretch of bare positions starting here
    /// (`Step::bare`): a call at each of its nodes.
    pub(super) passed: u32,
    /// Successes answered here that only count at the nodes above
    /// (`Step::quiet_above`): a success at each of them.
    pub(super) quiet_ok: u32,
}

/// The counts of every node in tick `tick`, not yet in the series.
#[derive(Debug, Clone, Default)]
pub(super) struct TickCounts {
    /// The tick counted.
    pub(super) tick: u64,
    /// How a request's last-seen ticks keep `tick` when they are short
    /// ([`last_seen::short`](super::last_seen::short)): found once a tick.
    pub(super) short: u16,
    /// The run's own (arrivals and ends of requests).
    pub(super) run: RunTick,
    /// Per node.
    pub(super) nodes: Vec<NodeTick>,
    /// The windows that hold `tick`: (window, first tick), latest first
    /// tick first ([`Windows::open_at`]).
    pub(super) open: Vec<(usize, u64)>,
    /// Request ids new to open window `j` at node `n`, at `j * nodes + n`.
    pub(super) window_new: Vec<u64>,
    /// Per path position (`Step::at`).
    pub(super) positions: Vec<PositionTick>,
    /// The node at each path position, path after path.
    path_nodes: Vec<u32>,
    /// Per path position: the position of its path's entry, and the
    /// length of the stretch of bare positions starting there.
    spans: Vec<(u32, u32)>,
}

impl TickCounts {
    /// Counters for `nodes` nodes and the positions of the paths whose
    /// `steps` the walk reads, at no tick yet ([`NEVER`]: the run's first
    /// event moves to its tick and finds its windows, even at tick 0;
    /// nothing is counted before it).
    pub(super) fn new(nodes: usize, steps: &[Vec<Step<'_>>]) -> Self {
        let spans: Vec<(u32, u32)> = steps
            .iter()
            .flat_map(|path| {
                let first = path.first().map_or(0, |s| s.at);
                path.iter().map(move |s| (first, s.bare))
            })
            .collect();
        TickCounts {
            tick: NEVER,
            short: super::last_seen::short(NEVER),
            run: RunTick::default(),
            nodes: vec![NodeTick::default(); nodes],
            open: Vec::new(),
            window_new: Vec::new(),
            positions: vec![PositionTick::default(); spans.len()],
            path_nodes: steps.iter().flatten().map(|s| s.node).collect(),
            spans,
        }
    }

    /// Adds the counts to `obs` (per node, slot `tick`: the zero-time
    /// path's series are per tick; per window), clears them and moves to
    /// tick `next`, whose open windows `windows` says.
    #[cold]
    pub(super) fn flush(&mut self, obs: &mut Observations, windows: &mut Windows, next: u64) {
        let n = self.nodes.len();
        for (j, &(w, _)) in self.open.iter().enumerate() {
            let new = &self.window_new[j * n..(j + 1) * n];
            for (sum, &c) in obs.window_unique[w].iter_mut().zip(new) {
                *sum += c;
            }
        }
        for (at, c) in self.positions.iter_mut().enumerate() {
            if c.passed | c.quiet_ok == 0 {
                continue;
            }
            let (first, bare) = (self.spans[at].0 as usize, self.spans[at].1 as usize);
            for &node in &self.path_nodes[at..at + bare] {
                self.nodes[node as usize].calls += c.passed;
            }
            for &node in &self.path_nodes[first..at] {
                self.nodes[node as usize].ok += c.quiet_ok;
            }
            *c = PositionTick::default();
        }
        let i = self.tick as usize;
        let r = std::mem::take(&mut self.run);
        if r.arrivals | r.completed | r.dropped != 0 {
            obs.arrivals[i] += r.arrivals;
            obs.completed[i] += r.completed;
            obs.first_try[i] += r.first_try;
            obs.dropped[i] += r.dropped;
        }
        for (c, s) in self.nodes.iter_mut().zip(&mut obs.nodes) {
            if c.calls | c.ok | c.failed | c.refused | c.retries != 0 {
                s.calls[i] += c.calls;
                s.unique[i] += c.unique;
                s.refused[i] += c.refused;
                s.ok[i] += c.ok;
                s.failed[i] += c.failed;
                if c.retries != 0 {
                    s.count_retries(i, c.retries);
                }
                *c = NodeTick::default();
            }
        }
        self.tick = next;
        self.short = super::last_seen::short(next);
        self.open.clear();
        self.open.extend_from_slice(windows.open_at(next));
        self.window_new.clear();
        self.window_new.resize(self.open.len() * n, 0);
    }
}
