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
//! `at` send, a sequential operation). Each call then costs one event
//! when its node has a latency (the end of its service), and each try a
//! node sends costs one more when it is timed (a `timeout`, or a deadline
//! the node knows): the timer, popped even when the answer came first. A
//! composite node's call sends one call per field, each costing an event
//! when the field's node has a latency, and sets one timer per distinct
//! field limit.
//!
//! # Memory
//!
//! - the per-tick counters ([`super::super::builder`]'s formula) and the
//!   engine's bins (two levels per node and bin);
//! - latency histograms: one per node and per source (and all sources),
//!   for the run and each window; HdrHistogram at three significant digits
//!   keeps 1024 counters of 8 bytes per power of two up to the longest
//!   value, taken as the run's length;
//! - work in flight by Little's law: the peak arrival rate times the time
//!   a request spends (the sum of the mean latencies along its path; at a
//!   composite node, the slowest field's mean cut at its limit), times the
//!   bytes of its calls, its request slot and its pending events.

use std::mem::size_of;

use squall_lang::{Model, Schedule, SourceSpec};

use super::calls::Call;

/// Bytes of one pending event in the queue (time, sequence, event).
const EVENT_BYTES: u64 = 32;
/// Counters of one HdrHistogram per power of two at three digits.
const HISTOGRAM_HALF_BUCKET: u64 = 1024;

/// The estimated work and memory of a run that takes time.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// Requests the sources send.
    pub requests: f64,
    /// Events the run handles without a failure.
    pub events: f64,
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
        let mut per = 1.0;
        let mut time = 0.0;
        let mut calls = 0.0;
        let mut at = Some(s.entry);
        let mut pos = 0;
        while let Some(i) = at.filter(|&i| i < m.nodes.len() && pos < m.nodes.len()) {
            let n = &m.nodes[i];
            let knows_deadline = deadline.is_some_and(|d| pos == 0 || d.propagate);
            calls += 1.0;
            let own = n.server.as_ref().and_then(|s| s.latency.as_ref());
            if own.is_some() {
                per += 1.0;
            }
            time += own.map_or(0.0, |l| l.mean());
            if let Some(c) = &n.composite {
                let mut limits: Vec<u64> = Vec::new();
                let mut slowest: f64 = 0.0;
                for f in &c.fields {
                    calls += 1.0;
                    let lat = m
                        .nodes
                        .get(f.source)
                        .and_then(|x| x.server.as_ref())
                        .and_then(|x| x.latency.as_ref());
                    if lat.is_some() {
                        per += 1.0;
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
                per += limits.len() as f64;
                if knows_deadline && limits.is_empty() {
                    per += 1.0;
                }
                time += slowest;
            }
            at = n.downstream;
            if at.is_some() && (n.caller.timeout.is_some() || knows_deadline) {
                per += 1.0;
            }
            pos += 1;
        }
        requests += sent;
        events += sent * per;
        if busiest.as_ref().is_none_or(|(_, _, e)| sent * per > *e) {
            busiest = Some((s.name.clone(), sent, sent * per));
        }
        let bytes = calls * size_of::<Call>() as f64 + slot_bytes + 2.0 * EVENT_BYTES as f64;
        in_flight += (peak * time).max(1.0) * bytes;
    }
    // The counters, one slot per bin of the series (cut at window edges,
    // so at most two more slots per window), as the builder counts them;
    // two bins of gauges per node.
    let words: u64 = 4 + m
        .nodes
        .iter()
        .map(|n| if n.composite.is_some() { 14 } else { 6 })
        .sum::<u64>();
    let bin = super::series_bin(m).max(1);
    let bins = ticks.div_ceil(bin);
    let slots = bins
        .saturating_add(2 * m.windows.len() as u64)
        .saturating_add(1); // slot 0, as `Slots::len` counts it
    let counters = slots.saturating_mul(words).saturating_mul(4);
    let series_bytes = counters + bins * 2 * 8 * m.nodes.len() as u64;
    let run_units = res.ticks(ticks).units().max(2);
    let powers = u64::from(64 - run_units.leading_zeros())
        .saturating_sub(10)
        .max(1);
    let one = powers * HISTOGRAM_HALF_BUCKET * 8;
    let count = (m.nodes.len() + m.sources.len() + 1) as u64 * (1 + m.windows.len() as u64);
    Estimate {
        requests,
        events,
        busiest,
        series_bytes,
        histogram_bytes: count * one,
        in_flight_bytes: in_flight as u64,
    }
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
