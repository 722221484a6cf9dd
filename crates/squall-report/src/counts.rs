//! What a window metric counts, read from a run's per-tick series or from
//! the per-window totals a reduced run keeps instead.
//!
//! Every window metric ([`window_metric`](crate::eval::window_metric)) is
//! arithmetic on a few [`Counter`]s over the window's ticks: sums of a
//! series (calls, answers, bytes), and three scans (the peak calls of a
//! tick, the last tick with an answer, the ticks that refused something).
//! A run whose report reads nothing per tick keeps only these, one
//! [`WindowCounts`] per named window of its model, and drops its per-tick
//! series as it finishes (`Run::reduce`): its memory then follows the
//! number of windows and nodes, not the length of the run, and every
//! number of its report is the same.

use squall_engine::{NodeSeries, Observations};

/// One count over a stretch of ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counter {
    /// New requests.
    Arrivals,
    /// Requests answered with success.
    Completed,
    /// Requests dropped.
    Dropped,
    /// Requests completed without a retry.
    FirstTry,
    /// Calls a node saw.
    Calls,
    /// Calls it answered with success.
    Ok,
    /// Calls it answered with failure.
    Failed,
    /// Calls its capacity refused.
    Refused,
    /// Calls its breaker failed fast.
    Blocked,
    /// Retries its budget refused.
    RetriesRefused,
    /// Tries a hedging caller sent beyond its first.
    Hedged,
    /// Tries a node's client-side throttle rejected locally.
    RejectedLocally,
    /// Retries a node's retry policy made.
    Retries,
    /// The most calls in one tick.
    PeakCalls,
    /// The last tick with an answer, counted from the window's first tick
    /// (1 for the first); 0 when nothing was answered.
    LastAnswered,
    /// Ticks in which the node refused a call.
    SaturatedTicks,
    /// Composite responses with every field fresh.
    Full,
    /// Composite responses with a field stale or missing.
    Reduced,
    /// Fresh fields.
    Fresh,
    /// Stale fields.
    Stale,
    /// Missing fields.
    Missing,
    /// Bytes of answered composite responses.
    Bytes,
}

/// The system counters, in [`WindowCounts`]' order.
const SYSTEM: [Counter; 4] = [
    Counter::Arrivals,
    Counter::Completed,
    Counter::Dropped,
    Counter::FirstTry,
];

/// A node's counters, in [`NodeCounts`]' order.
const NODE: [Counter; 12] = [
    Counter::Calls,
    Counter::Ok,
    Counter::Failed,
    Counter::Refused,
    Counter::Blocked,
    Counter::RetriesRefused,
    Counter::Hedged,
    Counter::RejectedLocally,
    Counter::Retries,
    Counter::PeakCalls,
    Counter::LastAnswered,
    Counter::SaturatedTicks,
];

/// A composite node's counters, in [`NodeCounts`]' order.
const COMPOSITE: [Counter; 6] = [
    Counter::Full,
    Counter::Reduced,
    Counter::Fresh,
    Counter::Stale,
    Counter::Missing,
    Counter::Bytes,
];

/// Every counter of one window: what a reduced run keeps of it.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowCounts {
    system: [u64; 4],
    nodes: Vec<NodeCounts>,
}

/// One node's counters in a window.
#[derive(Debug, Clone, PartialEq)]
struct NodeCounts {
    plain: [u64; 12],
    composite: Option<[u64; 6]>,
}

impl WindowCounts {
    /// Every counter over ticks `from..=to` of `obs`.
    pub fn of(obs: &Observations, from: u64, to: u64) -> WindowCounts {
        let at = |c, node| count(obs, c, from, to, node).unwrap_or(0);
        WindowCounts {
            system: SYSTEM.map(|c| at(c, None)),
            nodes: (0..obs.nodes.len())
                .map(|n| NodeCounts {
                    plain: NODE.map(|c| at(c, Some(n))),
                    composite: obs.nodes[n]
                        .composite
                        .as_ref()
                        .map(|_| COMPOSITE.map(|c| at(c, Some(n)))),
                })
                .collect(),
        }
    }

    /// Counter `c` (at `node` for a node counter): `None` where the series
    /// would be missing (no such node, or no composite response).
    pub fn get(&self, c: Counter, node: Option<usize>) -> Option<u64> {
        if let Some(i) = SYSTEM.iter().position(|&x| x == c) {
            return Some(self.system[i]);
        }
        let n = self.nodes.get(node?)?;
        if let Some(i) = NODE.iter().position(|&x| x == c) {
            return Some(n.plain[i]);
        }
        let i = COMPOSITE.iter().position(|&x| x == c)?;
        n.composite.map(|v| v[i])
    }

    /// Bytes this takes on the heap and inline.
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<Self>() + self.nodes.capacity() * std::mem::size_of::<NodeCounts>()
    }
}

/// Counter `c` over ticks `from..=to` of the per-tick series of `obs` (at
/// `node` for a node counter); `None` where the series is missing.
pub fn count(
    obs: &Observations,
    c: Counter,
    from: u64,
    to: u64,
    node: Option<usize>,
) -> Option<u64> {
    // Over the window's slots: ticks, or on a run that takes time bins cut
    // at the window's edges (so a window's sum is exact).
    let sum = |series: &[u32]| obs.total(series, from, to);
    match c {
        Counter::Arrivals => return Some(sum(&obs.arrivals)),
        Counter::Completed => return Some(sum(&obs.completed)),
        Counter::Dropped => return Some(sum(&obs.dropped)),
        Counter::FirstTry => return Some(sum(&obs.first_try)),
        _ => {}
    }
    let s: &NodeSeries = obs.nodes.get(node?)?;
    let (first, last) = obs.slots.range(from, to);
    Some(match c {
        Counter::Calls => sum(&s.calls),
        Counter::Ok => sum(&s.ok),
        Counter::Failed => sum(&s.failed),
        Counter::Refused => sum(&s.refused),
        Counter::Blocked => sum(&s.blocked),
        Counter::RetriesRefused => sum(&s.retries_refused),
        // Only a model with a hedge keeps the series.
        Counter::Hedged if s.hedged.is_empty() => 0,
        Counter::Hedged => sum(&s.hedged),
        // Kept from a throttle's first rejection on.
        Counter::RejectedLocally if s.rejected_locally.is_empty() => 0,
        Counter::RejectedLocally => sum(&s.rejected_locally),
        // Kept from a node's first retry on.
        Counter::Retries if s.retries.is_empty() => 0,
        Counter::Retries => sum(&s.retries),
        // Per slot: the busiest tick, or on a run that takes time the
        // busiest bin.
        Counter::PeakCalls => u64::from(
            s.calls
                .get(first..=last)
                .and_then(|c| c.iter().max().copied())
                .unwrap_or(0),
        ),
        Counter::LastAnswered => {
            let to_i = last.min(s.ok.len().saturating_sub(1));
            // The tick of the slot's last answer where bins keep it, else
            // the slot's (one tick) own.
            (first..=to_i).rev().find(|&i| s.ok[i] > 0).map_or(0, |i| {
                let tick = s
                    .last_ok
                    .get(i)
                    .copied()
                    .unwrap_or_else(|| obs.slots.last_tick(i));
                (tick.min(to) + 1).saturating_sub(from)
            })
        }
        // Slots with a refusal: ticks, or bins on a run that takes time.
        Counter::SaturatedTicks => {
            s.refused
                .get(first..=last)
                .map_or(0, |r| r.iter().filter(|&&r| r > 0).count()) as u64
        }
        Counter::Full => sum(&s.composite.as_ref()?.full),
        Counter::Reduced => sum(&s.composite.as_ref()?.reduced),
        Counter::Fresh => sum(&s.composite.as_ref()?.fresh),
        Counter::Stale => sum(&s.composite.as_ref()?.stale),
        Counter::Missing => sum(&s.composite.as_ref()?.missing),
        Counter::Bytes => {
            let b = &s.composite.as_ref()?.bytes;
            let to = last.min(b.len().saturating_sub(1));
            b[first.min(to + 1)..=to].iter().sum()
        }
        Counter::Arrivals | Counter::Completed | Counter::Dropped | Counter::FirstTry => {
            return None
        }
    })
}
