//! Recovery and peak on the bins of a run's series.
//!
//! A run that takes time counts in the bins of its series (`series every
//! 1s`, or the default the header prints; see [`Slots`]), not per tick of
//! the file's clock, where one tick holds zero or a few calls: the first
//! tick after a fault with few calls says nothing about recovery, and the
//! busiest tick says nothing about a peak rate. So both read the engine's
//! bins: a bin's value is its mean calls per tick. A run with no timed
//! part has bins of one tick, which is the per-tick rule exactly.
//!
//! Recovery reads the bins that start after the fault's end. A node is
//! back to normal in a bin when its calls are at or below the threshold
//! *and* the requests through it that end in the bin complete at their
//! normal share (within [`TOLERANCE`] of the share before the fault; a bin
//! in which no request ends is judged by its calls; the caller picks the
//! requests through the node, see [`crate::recovery::goodput_through`]): a node
//! whose calls are low because a breaker keeps them away is *starved*, not
//! recovered. The answer is the start of the first normal bin, counted in
//! ticks from the fault's last tick, so it is exact to one bin (on bins of
//! one tick, the tick itself).

use squall_engine::Slots;

/// A change larger than this fraction counts as a rise.
pub const TOLERANCE: f64 = 0.10;

/// Every bin of `series` (a counter of a run cut by `slots`): its first
/// and last tick and its mean per tick (a short last bin is divided by its
/// own length).
pub fn bin_means(slots: &Slots, series: &[u32]) -> Vec<(u64, u64, f64)> {
    (0..slots.bins())
        .map(|b| {
            let (first, last) = slots.bin_slots(b);
            let sum: u64 = series
                .get(first..=last.min(series.len().saturating_sub(1)))
                .map_or(0, |s| s.iter().map(|&c| u64::from(c)).sum());
            let (from, to) = slots.bin_ticks(b);
            (from, to, sum as f64 / (to + 1 - from) as f64)
        })
        .collect()
}

/// The bins that start after tick `fault_end`.
pub fn bins_after(slots: &Slots, series: &[u32], fault_end: u64) -> Vec<(u64, u64, f64)> {
    bin_means(slots, series)
        .into_iter()
        .filter(|&(from, _, _)| from > fault_end)
        .collect()
}

/// The requests of a run by the slot they ended in: completed and dropped.
#[derive(Debug, Clone, Copy)]
pub struct Goodput<'a> {
    /// Requests completed, per slot.
    pub completed: &'a [u32],
    /// Requests dropped, per slot.
    pub dropped: &'a [u32],
}

/// What became of a node after a fault.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Recovery {
    /// Back to normal: ticks from the fault's last tick to the start of the
    /// first normal bin.
    After(u64),
    /// Never back to normal, and still above the threshold in the run's
    /// last bin: `bins` bins after the fault, overloaded.
    Overloaded {
        /// Bins after the fault's end.
        bins: usize,
    },
    /// Never back to normal, although its calls are within the threshold
    /// from `calm` ticks after the fault's end (the start of that bin): the
    /// requests that end from then complete at `share`, below their
    /// `normal` share before the fault.
    Starved {
        /// Ticks from the fault's end to the first bin with calls within
        /// the threshold.
        calm: u64,
        /// Completed over ended requests from that bin to the run's end.
        share: f64,
        /// The same before the fault.
        normal: f64,
    },
}

/// The share of the requests ending in bins `bins` of `g` that completed,
/// with how many ended.
fn completed_share(slots: &Slots, g: &Goodput, bins: impl Iterator<Item = usize>) -> (f64, u64) {
    let (mut done, mut ended) = (0u64, 0u64);
    for b in bins {
        let (first, last) = slots.bin_slots(b);
        let sum = |s: &[u32]| -> u64 {
            s.get(first..=last.min(s.len().saturating_sub(1)))
                .map_or(0, |s| s.iter().map(|&c| u64::from(c)).sum())
        };
        let c = sum(g.completed);
        done += c;
        ended += c + sum(g.dropped);
    }
    (
        if ended == 0 {
            0.0
        } else {
            done as f64 / ended as f64
        },
        ended,
    )
}

/// The verdict on a node whose calls are `series` after a fault over ticks
/// `fault.0..=fault.1`: back to normal in the first bin after the fault
/// whose mean calls per tick are at or below `threshold` and in which the
/// requests that end (`goodput`) complete at their share before the fault,
/// less [`TOLERANCE`] of it. Without `goodput`,
/// or with no request ended before the fault, calls alone decide.
pub fn recovery_verdict(
    slots: &Slots,
    series: &[u32],
    goodput: Option<&Goodput>,
    fault: (u64, u64),
    threshold: f64,
) -> Recovery {
    let (fault_start, fault_end) = fault;
    let means = bin_means(slots, series);
    let index: Vec<usize> = (0..means.len()).collect();
    let before = index.iter().copied().filter(|&b| means[b].1 < fault_start);
    let normal = goodput.and_then(|g| {
        let (share, ended) = completed_share(slots, g, before);
        (ended > 0).then_some(share)
    });
    let after: Vec<usize> = index
        .into_iter()
        .filter(|&b| means[b].0 > fault_end)
        .collect();
    let calm = |b: usize| means[b].2 <= threshold;
    let normal_share = |b: usize| match (goodput, normal) {
        (Some(g), Some(n)) => {
            let (share, ended) = completed_share(slots, g, std::iter::once(b));
            ended == 0 || share >= (1.0 - TOLERANCE) * n
        }
        _ => true,
    };
    if let Some(&b) = after.iter().find(|&&b| calm(b) && normal_share(b)) {
        return Recovery::After(means[b].0 - fault_end);
    }
    match (after.iter().position(|&b| calm(b)), goodput, normal) {
        (Some(i), Some(g), Some(normal)) if after.last().is_some_and(|&b| calm(b)) => {
            let (share, _) = completed_share(slots, g, after[i..].iter().copied());
            Recovery::Starved {
                calm: means[after[i]].0 - fault_end,
                share,
                normal,
            }
        }
        _ => Recovery::Overloaded { bins: after.len() },
    }
}

/// Ticks from `fault_end` to the start of the first bin after it whose mean
/// calls per tick are at or below `threshold`; `None` if none is. Calls
/// alone: [`recovery_verdict`] also reads the requests.
pub fn recovery(slots: &Slots, series: &[u32], fault_end: u64, threshold: f64) -> Option<u64> {
    match recovery_verdict(slots, series, None, (0, fault_end), threshold) {
        Recovery::After(t) => Some(t),
        _ => None,
    }
}

/// The highest bin mean of calls per tick over the run.
pub fn peak(slots: &Slots, series: &[u32]) -> Option<f64> {
    bin_means(slots, series)
        .into_iter()
        .map(|(_, _, m)| m)
        .reduce(f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_tick_bins_are_the_per_tick_rule() {
        // ticks 1..=6; fault ends at tick 2
        let s = [0, 9, 9, 8, 5, 2, 1];
        let slots = Slots::per_tick(6);
        assert_eq!(recovery(&slots, &s, 2, 2.0), Some(3));
        assert_eq!(peak(&slots, &s), Some(9.0));
    }

    #[test]
    fn bins_smooth_single_quiet_ticks() {
        // Ticks 1..=8 in bins of 2, a window edge at tick 4: the bin 3..4
        // is two slots, (8) and (0).
        let slots = Slots::binned(1, 8, 2, &[4]);
        // bins: (9,9) (8,0) (8,0) (1,1) as slots 9+9 | 8 | 0 | 8+0 | 1+1
        let s = [0, 18, 8, 0, 8, 2];
        assert_eq!(
            bin_means(&slots, &s),
            vec![(1, 2, 9.0), (3, 4, 4.0), (5, 6, 4.0), (7, 8, 1.0)]
        );
        // after tick 2: a quiet single tick does not count on bins of 2
        // (the start of the bin 7..8, 5 ticks after tick 2)
        assert_eq!(recovery(&slots, &s, 2, 1.0), Some(5));
        assert_eq!(peak(&slots, &s), Some(9.0));
        // a fault that ends inside a bin: the next whole bin starts after it
        // (the bin 5..6, which starts 2 ticks after tick 3)
        assert_eq!(recovery(&slots, &s, 3, 4.0), Some(2));
        // a short last bin is divided by its own length
        let short = Slots::binned(1, 3, 2, &[]);
        assert_eq!(
            bin_means(&short, &[0, 18, 8]),
            vec![(1, 2, 9.0), (3, 3, 8.0)]
        );
    }

    /// Ticks 1..=8, one-tick bins, a fault over ticks 3..=4. Before it 4
    /// requests end per tick, all completed (normal share 1). From tick 5
    /// the node's calls are 0, within any threshold, but the requests end
    /// dropped (a breaker fails them fast) until tick 7, where 4 of 4
    /// complete: calls alone say tick 5 (1 tick after the fault's end), the
    /// verdict says tick 7 (3 ticks). Without tick 7's recovery the node is
    /// starved from tick 5 with a completed share of 0.
    #[test]
    fn a_node_with_calls_low_and_requests_failing_is_starved() {
        let slots = Slots::per_tick(8);
        let calls = [0, 4, 4, 9, 9, 0, 0, 4, 4];
        let completed = [0, 4, 4, 0, 0, 0, 0, 4, 4];
        let dropped = [0, 0, 0, 4, 4, 4, 4, 0, 0];
        let g = Goodput {
            completed: &completed,
            dropped: &dropped,
        };
        assert_eq!(recovery(&slots, &calls, 4, 4.4), Some(1));
        assert_eq!(
            recovery_verdict(&slots, &calls, Some(&g), (3, 4), 4.4),
            Recovery::After(3)
        );
        let still = [0, 4, 4, 0, 0, 0, 0, 0, 0];
        let fast = [0, 0, 0, 4, 4, 4, 4, 4, 4];
        let g = Goodput {
            completed: &still,
            dropped: &fast,
        };
        assert_eq!(
            recovery_verdict(&slots, &calls, Some(&g), (3, 4), 4.4),
            Recovery::Starved {
                calm: 1,
                share: 0.0,
                normal: 1.0
            }
        );
        // Still above the threshold at the end: overloaded, not starved.
        assert_eq!(
            recovery_verdict(&slots, &[0, 4, 4, 9, 9, 9, 9, 9, 9], Some(&g), (3, 4), 4.4),
            Recovery::Overloaded { bins: 4 }
        );
    }
}
