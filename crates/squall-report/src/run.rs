//! One finished run: which run it was, what it ran, what it measured.
//!
//! The run planner (`plan.rs`) makes these; a `Study` keeps them by
//! [`RunKey`], and every report item reads its numbers from them.
//!
//! A run whose report reads nothing per tick is *reduced* as it finishes
//! ([`Run::reduce`]): it keeps the totals of every named window of its
//! model ([`WindowCounts`]) and drops its per-tick series, so an
//! invocation's memory follows its number of runs, not their length.
//! Everything a report reads by window is the same either way; the
//! per-tick readers (the series CSV, charts, `recovery`, `peak`,
//! `peak_tick`, `diagnose`) need the full run (`crate::plan::Keep`).

use squall_engine::Observations;
use squall_lang::{Model, Overrides, RunKey};

use crate::counts::WindowCounts;
use crate::sending::SendRun;

/// One finished run.
#[derive(Debug, Clone)]
pub struct Run {
    /// Which run.
    pub key: RunKey,
    /// Its overrides.
    pub overrides: Overrides,
    /// The model it ran.
    pub model: Model,
    /// What it measured (without per-tick series once reduced).
    pub obs: Observations,
    /// Once reduced: the totals of every named window of the model, in
    /// window order. `None`: the per-tick series are all there.
    pub kept: Option<Vec<WindowCounts>>,
    /// Its senders' runs (`provider`/`sender` blocks), in declaration
    /// order: run with the same overrides and seed, so every replication
    /// and every sweep point has its own. Empty without senders.
    pub sending: Vec<SendRun>,
}

impl Run {
    /// Keeps the totals of every named window and drops the per-tick
    /// series (the system's and every node's).
    pub fn reduce(&mut self) {
        if self.kept.is_some() {
            return;
        }
        let o = &mut self.obs;
        let kept = self
            .model
            .windows
            .iter()
            .map(|w| WindowCounts::of(o, w.from, w.to))
            .collect();
        self.kept = Some(kept);
        o.breakers = Vec::new();
        o.source_ends = Vec::new();
        for v in [
            &mut o.arrivals,
            &mut o.completed,
            &mut o.dropped,
            &mut o.first_try,
        ] {
            *v = Vec::new();
        }
        for n in &mut o.nodes {
            for v in [
                &mut n.calls,
                &mut n.ok,
                &mut n.failed,
                &mut n.refused,
                &mut n.unique,
                &mut n.blocked,
                &mut n.retries_refused,
                &mut n.hedged,
                &mut n.rejected_locally,
                &mut n.retries,
            ] {
                *v = Vec::new();
            }
            n.last_ok = Vec::new();
            if let Some(c) = &mut n.composite {
                for v in [
                    &mut c.full,
                    &mut c.reduced,
                    &mut c.fresh,
                    &mut c.stale,
                    &mut c.missing,
                ] {
                    *v = Vec::new();
                }
                c.bytes = Vec::new();
            }
        }
    }

    /// The totals kept of named window `w`: `None` when the run is not
    /// reduced (read its series instead).
    pub fn counts(&self, w: usize) -> Option<&WindowCounts> {
        self.kept.as_ref()?.get(w)
    }

    /// The bytes the run's measurements hold (per-tick series, window
    /// totals, distinct ids, operations, breaker decisions, timed bins),
    /// counted from their lengths: what a finished run keeps in memory
    /// beyond its model.
    pub fn retained_bytes(&self) -> usize {
        fn v<T>(x: &Vec<T>) -> usize {
            x.capacity() * std::mem::size_of::<T>()
        }
        let o = &self.obs;
        let mut n = std::mem::size_of::<Self>();
        n += v(&o.arrivals) + v(&o.completed) + v(&o.dropped) + v(&o.first_try);
        n += v(&o.source_ends)
            + o.source_ends
                .iter()
                .map(|(c, d)| v(c) + v(d))
                .sum::<usize>();
        for s in &o.nodes {
            n += s.name.capacity();
            n += [
                &s.calls,
                &s.ok,
                &s.failed,
                &s.refused,
                &s.unique,
                &s.blocked,
                &s.retries_refused,
                &s.hedged,
                &s.rejected_locally,
                &s.retries,
            ]
            .into_iter()
            .map(v)
            .sum::<usize>();
            if let Some(c) = &s.composite {
                n += [&c.full, &c.reduced, &c.fresh, &c.stale, &c.missing]
                    .into_iter()
                    .map(v)
                    .sum::<usize>()
                    + v(&c.bytes);
            }
        }
        n += v(&o.nodes);
        n += o.window_unique.iter().map(v).sum::<usize>() + v(&o.window_unique);
        n += o.route_calls.iter().map(v).sum::<usize>() + v(&o.route_calls);
        for ops in &o.ops {
            n += v(ops)
                + ops
                    .iter()
                    .map(|r| r.label.capacity() + v(&r.waits))
                    .sum::<usize>();
        }
        n += o.traces.iter().map(v).sum::<usize>() + v(&o.traces) + v(&o.trace_dropped);
        n += o.breakers.iter().map(|b| v(&b.changes)).sum::<usize>() + v(&o.breakers);
        n += o.paths.iter().map(String::capacity).sum::<usize>() + v(&o.paths);
        if let Some(t) = &o.timed {
            for node in &t.nodes {
                n += v(&node.windows) + v(&node.bins) + v(&node.distribution);
            }
            n += v(&t.nodes)
                + t.sources
                    .iter()
                    .map(|s| v(&s.windows) + v(&s.bins))
                    .sum::<usize>();
            n += v(&t.sources) + v(&t.all.windows);
        }
        if let Some(kept) = &self.kept {
            n += kept.iter().map(WindowCounts::bytes).sum::<usize>();
        }
        n
    }
}
