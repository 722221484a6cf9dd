//! [`Estimate`]: the work and memory of a run that takes time, worked out
//! from the model before it starts.
//!
//! The estimate is of a run **without a single failure**: every request
//! crosses its path once (a composite node asks each field once), no try
//! times out and nothing is retried or queued. Failures only add work, so
//! a run whose failure-free estimate is already past its work budget
//! would certainly pass it: the builder refuses it before it starts
//! ([`crate::SimError::EstimateOverBudget`]). The memory is an estimate
//! of the peak, not a bound.
//!
//! # Events
//!
//! A request costs one event at its source (a rate source's arrival, an
//! `at` send, a sequential operation, a client's think). Each call then costs one event
//! when its node has a latency (the end of its service), and each try a
//! node sends costs one more when it is timed (a `timeout`, or a deadline
//! the node knows): the timer, popped even when the answer came first. A
//! composite node's call sends one call per field, each costing an event
//! when the field's node has a latency, and sets one timer per distinct
//! field limit. A try over a [`link`](squall_lang::LinkSpec) with a
//! latency costs one event per leg that has one (its arrival, its answer's
//! return), and the legs' means add to the time a request spends.
//!
//! # Memory
//!
//! - the series: per slot (a bin, cut at window edges) the counters of the
//!   system, of each node and (with several sources) the completed and
//!   dropped requests of each source; per bin and node two gauges, ten counters,
//!   the latency quantiles and, once the run ends, the bin's [`Stretch`];
//!   per bin and source the latency quantiles of its completed and of its
//!   failed requests (and of all sources'). Each family is counted at the
//!   size of the engine's own record of it (`size_of`), so the estimate
//!   follows the engine's types;
//! - latency histograms: one per node and per source (and all sources),
//!   for the run and each window; HdrHistogram at three significant digits
//!   keeps 1024 counters of 8 bytes per power of two up to the longest
//!   value, taken as the run's length;
//! - work in flight by Little's law: the peak arrival rate (for a closed
//!   loop, its clients over the time a request spends) times the time a
//!   request spends (the sum of the mean latencies along its path; at a
//!   composite node, the slowest field's mean cut at its limit), times the
//!   bytes of its calls (each with a pending event), its request slot and
//!   its source's next arrival.
//!
//! # When every try fails
//!
//! [`Estimate::calls_if_all_fail`] bounds the calls from above: every node
//! on the path makes all the tries its retry policy allows (and a hedging
//! node all its hedges) for every call it gets, so the tries compound down
//! the path like an odometer. Budgets, breakers, deadlines and a composite
//! field's own limits only lower the real count.
//!
//! # Hedges and closed loops
//!
//! A hedging node sends, without a failure, all its tries at once when its
//! delay is 0, and otherwise one more try at each multiple of its delay
//! before the mean time the path below it takes (at most `max_attempts`):
//! every node below it is called that many times per call, and each try
//! after the first costs its timer's event. Those tries are all in flight
//! at once, so a cascade of hedges (10 layers of 5: about 12 million calls
//! for one request) is seen in both the work and the memory. A closed loop
//! (`clients N  think ...`) sends N requests per cycle of a think time and
//! a request's time: `N x run / (think + time)` over the run. Serial
//! clients (`serial every ...`) send one a client per max(gap, time), at
//! least one per gap + time: `N x run / (gap + time)`, a lower bound.

use std::mem::size_of;

use squall_lang::{ClientsSpec, Model, Schedule, SourceSpec};

use super::calls::Call;
use crate::observe::histogram::Quantiles;
use crate::observe::timed::Stretch;

/// Bytes of one pending event in the queue (time, sequence, event).
const EVENT_BYTES: u64 = 32;
/// Counters of one HdrHistogram per power of two at three digits.
const HISTOGRAM_HALF_BUCKET: u64 = 1024;

/// The estimated work and memory of a run that takes time.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// Requests the sources send.
    pub requests: f64,
    /// Calls the nodes answer without a failure: every request's calls
    /// along its path (a composite node's one per field). The rows of a
    /// call log (`--events`) the run fills, before its limit.
    pub calls: f64,
    /// Events the run handles without a failure.
    pub events: f64,
    /// Calls the nodes answer at most when every try fails: each retrying
    /// node makes all its `attempts` tries (a failure of unknown class is
    /// capped lower, at `min(attempts, unknown_attempts)`) and each hedging
    /// node all its `max_attempts`,
    /// compounding down the path (`n` layers of `k` tries: `k^n` calls at
    /// the bottom). Budgets, breakers and deadlines only lower it.
    pub calls_if_all_fail: f64,
    /// The source whose requests make the most events: its name, its
    /// requests and their events.
    pub busiest: Option<(String, f64, f64)>,
    /// Per-tick counters and bins \[bytes\].
    pub series_bytes: u64,
    /// Latency histograms \[bytes\].
    pub histogram_bytes: u64,
    /// Requests, calls and events in flight at the peak rate \[bytes\].
    pub in_flight_bytes: u64,
}

impl Estimate {
    /// The estimated peak memory \[bytes\].
    pub fn peak_bytes(&self) -> u64 {
        self.series_bytes + self.histogram_bytes + self.in_flight_bytes
    }
}

/// The estimate of `m`'s run (see the module doc); meaningful for a model
/// that takes time ([`super::takes_time`]).
pub fn estimate(m: &Model) -> Estimate {
    let res = crate::time::Resolution::fine(m.clock);
    let ticks = m.ticks.saturating_sub(m.start).saturating_add(1);
    let mut requests = 0.0;
    let mut all_calls = 0.0;
    let mut worst_calls = 0.0;
    let mut events = 0.0;
    let mut busiest: Option<(String, f64, f64)> = None;
    let mut in_flight = 0.0;
    let depth = m.nodes.len().max(1) as f64;
    let slot_bytes = depth * 48.0 + m.nodes.len() as f64 * 8.0;
    for s in &m.sources {
        let (sent, peak) = match &s.schedule {
            Schedule::Rate => {
                let sent = sent_at_rate(s, m.start, m.ticks);
                let peak = s.periods.iter().map(|p| p.rate).fold(s.rate, f64::max);
                (sent, peak)
            }
            Schedule::At(times) => (times.len() as f64, 1.0),
            Schedule::Sequential(ops) => (ops.len() as f64, 0.0),
        };
        let deadline = s.deadline.as_ref();
        // The request's path, and the mean time below each of its nodes
        // (the sum of the latencies after it): a hedging node sends its
        // next try when the first has not answered after its delay.
        let mut path: Vec<usize> = Vec::new();
        let mut at = Some(s.entry);
        while let Some(i) = at.filter(|&i| i < m.nodes.len() && path.len() < m.nodes.len()) {
            path.push(i);
            at = m.nodes[i].downstream;
        }
        let own_mean = |i: usize| {
            m.nodes[i]
                .server
                .as_ref()
                .and_then(|s| s.latency.as_ref())
                .map_or(0.0, |l| l.mean())
        };
        // The link from `a` to `b`: its legs' means, and how many have one.
        let link = |a: usize, b: usize| {
            let mean = |l: &Option<squall_lang::LatencySpec>| l.as_ref().map(|l| l.mean());
            m.links
                .iter()
                .filter(|l| l.caller == a && l.callee == b)
                .fold((0.0, 0.0), |(t, legs), l| {
                    let (r, back) = (mean(&l.latency), mean(&l.answer));
                    let n = r.is_some() as u8 + back.is_some() as u8;
                    (
                        t + r.unwrap_or(0.0) + back.unwrap_or(0.0),
                        legs + f64::from(n),
                    )
                })
        };
        let mut below = vec![0.0; path.len()];
        for k in (0..path.len().saturating_sub(1)).rev() {
            below[k] = below[k + 1] + own_mean(path[k + 1]) + link(path[k], path[k + 1]).0;
        }
        let mut per = 1.0;
        let mut time = 0.0;
        let mut calls = 0.0;
        // Calls of this node per request: the product of the tries the
        // hedging nodes above it send.
        let mut fan = 1.0;
        // The same when every try fails: every retry and hedge is made.
        let mut worst_fan = 1.0;
        let mut worst = 0.0;
        for (pos, &i) in path.iter().enumerate() {
            let n = &m.nodes[i];
            let knows_deadline = deadline.is_some_and(|d| pos == 0 || d.propagate);
            calls += fan;
            worst += worst_fan;
            if pos > 0 {
                let (mean, legs) = link(path[pos - 1], i);
                time += mean;
                per += fan * legs;
            }
            let own = n.server.as_ref().and_then(|s| s.latency.as_ref());
            if own.is_some() {
                per += fan;
            }
            time += own.map_or(0.0, |l| l.mean());
            if let Some(c) = &n.composite {
                let mut limits: Vec<u64> = Vec::new();
                let mut slowest: f64 = 0.0;
                for f in &c.fields {
                    calls += fan;
                    worst += worst_fan;
                    let lat = m
                        .nodes
                        .get(f.source)
                        .and_then(|x| x.server.as_ref())
                        .and_then(|x| x.latency.as_ref());
                    if lat.is_some() {
                        per += fan;
                    }
                    let limit = f.timeout.or(n.caller.timeout);
                    let mean = lat.map_or(0.0, |l| l.mean());
                    slowest = slowest.max(limit.map_or(mean, |t| mean.min(t)));
                    if let Some(t) = limit {
                        limits.push(res.duration(t).units());
                    }
                }
                limits.sort_unstable();
                limits.dedup();
                per += fan * limits.len() as f64;
                if knows_deadline && limits.is_empty() {
                    per += fan;
                }
                time += slowest;
            }
            let calls_down = pos + 1 < path.len();
            if calls_down {
                // A sequential source's operation may replace the entry
                // node's policy: the most tries any of them allows.
                let ops = match &s.schedule {
                    Schedule::Sequential(ops) if pos == 0 => ops.as_slice(),
                    _ => &[],
                };
                let tries = ops
                    .iter()
                    .map(|o| o.retry.as_ref().or(n.retry.as_ref()))
                    .chain(std::iter::once(n.retry.as_ref()))
                    .flatten()
                    .map(|r| r.attempts.max(1))
                    .max()
                    .unwrap_or(1);
                worst_fan *= f64::from(tries);
                if let Some(h) = &n.hedge {
                    worst_fan *= f64::from(h.max_attempts.max(1));
                }
            }
            if calls_down && (n.caller.timeout.is_some() || knows_deadline) {
                per += fan;
            }
            if let Some(h) = n.hedge.as_ref().filter(|_| calls_down) {
                let tries = hedge_tries(h.max_attempts, h.delay, below[pos]);
                // Each try after the first waits out a timer first (none
                // when they all go at once).
                if h.delay > 0 {
                    per += fan * (tries - 1.0);
                }
                fan *= tries;
            }
        }
        let (sent, peak) = match &s.clients {
            // A closed loop: each client sends, waits for the end, thinks;
            // a serial client starts once per max(gap, time), for which
            // gap + time is an upper bound, so the count stays a lower one.
            Some(ClientsSpec {
                count,
                think,
                serial,
            }) if think.is_some() || serial.is_some() => {
                let gap = think.as_ref().or(serial.as_ref()).map_or(0.0, |g| g.mean());
                let cycle = gap + time;
                let sent = if cycle > 0.0 {
                    f64::from(*count) * ticks as f64 / cycle
                } else {
                    0.0
                };
                // At most one request a client in flight.
                (sent, f64::from(*count) / time.max(1.0))
            }
            _ => (sent, peak),
        };
        requests += sent;
        all_calls += sent * calls;
        worst_calls += sent * worst;
        events += sent * per;
        if busiest.as_ref().is_none_or(|(_, _, e)| sent * per > *e) {
            busiest = Some((s.name.clone(), sent, sent * per));
        }
        // Each call in flight holds its record and, most of the time, one
        // pending event (its service's end, a timer, a hedge's next try);
        // the request holds its slot, its source its next arrival. The
        // slabs of calls and requests and the calendar grow by doubling,
        // so at their peak they may hold room for up to twice what is
        // live: a guard counts that room (without it, a cascade of hedges
        // was estimated at two thirds of its peak).
        let bytes = calls * (size_of::<Call>() as u64 + EVENT_BYTES) as f64
            + slot_bytes
            + EVENT_BYTES as f64;
        in_flight += 2.0 * (peak * time).max(1.0) * bytes;
    }
    let bin = super::series_bin(m).max(1);
    let bins = ticks.div_ceil(bin);
    let slots = bins
        .saturating_add(2 * m.windows.len() as u64)
        .saturating_add(1); // slot 0, as `Slots::len` counts it
    let series_bytes = slots
        .saturating_mul(slot_bytes_of(m))
        .saturating_add(bins.saturating_mul(bin_bytes_of(m)));
    let run_units = res.ticks(ticks).units().max(2);
    let powers = u64::from(64 - run_units.leading_zeros())
        .saturating_sub(10)
        .max(1);
    let one = powers * HISTOGRAM_HALF_BUCKET * 8;
    let count = (m.nodes.len() + m.sources.len() + 1) as u64 * (1 + m.windows.len() as u64);
    Estimate {
        requests,
        calls: all_calls,
        calls_if_all_fail: worst_calls,
        events,
        busiest,
        series_bytes,
        histogram_bytes: count * one,
        in_flight_bytes: in_flight as u64,
    }
}

/// Tries a hedging node sends per call without a failure: all
/// `max_attempts` at once with no delay; otherwise one, and one more at
/// each multiple of `delay` \[ticks\] before the answer, which comes after
/// `below` \[ticks\] on average.
fn hedge_tries(max_attempts: u32, delay: u64, below: f64) -> f64 {
    let most = f64::from(max_attempts.max(1));
    if delay == 0 {
        return most;
    }
    (below / delay as f64).ceil().clamp(1.0, most)
}

/// Bytes of one u32 counter per slot.
const U32: u64 = size_of::<u32>() as u64;
/// Bytes of one u64 per slot or bin.
const U64: u64 = size_of::<u64>() as u64;

/// The bytes of the counters of one slot of the series (see the module
/// doc): 4 counters of the system, 2 per source on a model with more than
/// one, and per node 7 counters and the time of its last success, 5
/// counters and a byte count more for a composite node, 1 more for a node
/// that hedges.
fn slot_bytes_of(m: &Model) -> u64 {
    let sources = if m.sources.len() > 1 {
        m.sources.len() as u64
    } else {
        0
    };
    4 * U32
        + 2 * U32 * sources
        + m.nodes
            .iter()
            .map(|n| {
                let composite = if n.composite.is_some() {
                    5 * U32 + U64
                } else {
                    0
                };
                let hedged = if n.hedge.is_some() { U32 } else { 0 };
                7 * U32 + U64 + composite + hedged
            })
            .sum::<u64>()
}

/// The bytes one bin of the series costs beyond its counters (see the
/// module doc). While the run goes, per node: two gauges (queue and
/// service: an area of 16 bytes, a highest and a last level per bin), its
/// counters (one of 8 bytes per `Count`: eleven) and its latency quantiles per bin; per source and
/// for all sources, completed and failed requests apart, their latency
/// quantiles per bin. Quantiles per bin grow by doubling, so their room is
/// counted twice. When it ends the run adds per node a [`Stretch`] and the
/// queue's level at each bin's end, the quantiles of one node copied while
/// it is turned into stretches, and the copies of "all sources" when there
/// is one source.
fn bin_bytes_of(m: &Model) -> u64 {
    let quantiles = size_of::<Quantiles>() as u64;
    let gauges = 2 * (16 + U64 + U64);
    let counters = super::recorder::COUNTS as u64 * U64;
    let node = gauges + counters + 2 * quantiles + size_of::<Stretch>() as u64 + U64;
    let sources = 2 * (m.sources.len() as u64 + 1) * 2 * quantiles + 2 * quantiles;
    (m.nodes.len() as u64)
        .saturating_mul(node)
        .saturating_add(sources)
        .saturating_add(2 * quantiles)
}

/// Requests rate source `s` sends over ticks `start..=end`: its rate
/// times the ticks it holds, stretch by stretch between changes of rate.
fn sent_at_rate(s: &SourceSpec, start: u64, end: u64) -> f64 {
    let mut bounds: Vec<u64> = s
        .periods
        .iter()
        .flat_map(|p| [p.from, p.to.saturating_add(1)])
        .filter(|&b| b > start && b <= end)
        .collect();
    bounds.push(start);
    bounds.push(end.saturating_add(1));
    bounds.sort_unstable();
    bounds.dedup();
    bounds
        .windows(2)
        // Within a stretch the rate is constant or linear (a ramp), so the
        // mean of its first and last tick's rates times its ticks is exact.
        .map(|w| (s.rate_at(w[0]) + s.rate_at(w[1] - 1)) / 2.0 * (w[1] - w[0]) as f64)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use squall_lang::RatePeriod;

    /// 1 per tick over ticks 1..=100, 3 per tick during 10..=19: 90 + 30.
    #[test]
    fn requests_follow_the_rate_stretch_by_stretch() {
        let s = SourceSpec {
            rate: 1.0,
            periods: vec![RatePeriod {
                from: 10,
                to: 19,
                rate: 3.0,
                to_rate: None,
            }],
            ..Default::default()
        };
        assert_eq!(sent_at_rate(&s, 1, 100), 120.0);
        // A period past the end counts only up to it.
        assert_eq!(sent_at_rate(&s, 1, 14), 9.0 + 15.0);
    }

    /// A ramp from 1 to 10 per tick over ticks 1..=10 sends 1 + 2 + ... + 10.
    #[test]
    fn a_ramp_sends_its_mean_rate() {
        let s = SourceSpec {
            rate: 1.0,
            periods: vec![RatePeriod {
                from: 1,
                to: 10,
                rate: 1.0,
                to_rate: Some(10.0),
            }],
            ..Default::default()
        };
        assert_eq!(sent_at_rate(&s, 1, 10), 55.0);
    }
}
