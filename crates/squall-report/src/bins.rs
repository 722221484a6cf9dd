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
//! Recovery reads the bins that start after the fault's end; the answer is
//! the end of the first of them at or below the threshold, counted in
//! ticks from the fault's end, so it is exact to one bin.

use squall_engine::Slots;

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

/// Ticks from `fault_end` to the end of the first bin after it whose mean
/// calls per tick are at or below `threshold`; `None` if none is.
pub fn recovery(slots: &Slots, series: &[u32], fault_end: u64, threshold: f64) -> Option<u64> {
    bins_after(slots, series, fault_end)
        .into_iter()
        .find(|&(_, _, mean)| mean <= threshold)
        .map(|(_, end, _)| end - fault_end)
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
        assert_eq!(recovery(&slots, &s, 2, 1.0), Some(6));
        assert_eq!(peak(&slots, &s), Some(9.0));
        // a fault that ends inside a bin: the next whole bin starts after it
        assert_eq!(recovery(&slots, &s, 3, 4.0), Some(3));
        // a short last bin is divided by its own length
        let short = Slots::binned(1, 3, 2, &[]);
        assert_eq!(
            bin_means(&short, &[0, 18, 8]),
            vec![(1, 2, 9.0), (3, 3, 8.0)]
        );
    }
}
