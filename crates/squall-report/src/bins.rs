//! Recovery and peak on the bins of a run's series.
//!
//! A run that takes time keeps its per-tick counters at the file's clock
//! (a millisecond, say), where one tick holds zero or a few calls: the
//! first tick after a fault with few calls says nothing about recovery, and
//! the busiest tick says nothing about a peak rate. So both are read on
//! bins of the run's series width (`series every 1s`, or the default the
//! header prints): a bin's value is its mean calls per tick. A run with no
//! timed part has bins of one tick, which is the per-tick rule exactly.
//!
//! Recovery bins start at the first tick after the fault; the answer is the
//! end of the first bin at or below the threshold, counted in ticks from
//! the fault's end, so it is exact to one bin.

/// Mean of `series[from..=to]` per tick in bins of `bin` ticks starting at
/// `from`; the last bin may be shorter and is divided by its own length.
pub fn bin_means(series: &[u32], from: usize, to: usize, bin: usize) -> Vec<(usize, f64)> {
    let bin = bin.max(1);
    let mut out = Vec::new();
    let mut start = from;
    while start <= to && start < series.len() {
        let end = (start + bin - 1).min(to).min(series.len() - 1);
        let sum: u64 = series[start..=end].iter().map(|&c| u64::from(c)).sum();
        out.push((end, sum as f64 / (end + 1 - start) as f64));
        start = end + 1;
    }
    out
}

/// Ticks from `fault_end` to the end of the first bin after it whose mean
/// calls per tick are at or below `threshold`; `None` if none is.
pub fn recovery(
    series: &[u32],
    fault_end: u64,
    ticks: u64,
    bin: u64,
    threshold: f64,
) -> Option<u64> {
    bin_means(series, fault_end as usize + 1, ticks as usize, bin as usize)
        .into_iter()
        .find(|&(_, mean)| mean <= threshold)
        .map(|(end, _)| end as u64 - fault_end)
}

/// The highest bin mean of calls per tick over the run (tick 0 is not a
/// tick of the run).
pub fn peak(series: &[u32], ticks: u64, bin: u64) -> Option<f64> {
    bin_means(series, 1, ticks as usize, bin as usize)
        .into_iter()
        .map(|(_, m)| m)
        .reduce(f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_tick_bins_are_the_per_tick_rule() {
        // ticks 1..=6; fault ends at tick 2
        let s = [0, 9, 9, 8, 5, 2, 1];
        assert_eq!(recovery(&s, 2, 6, 1, 2.0), Some(3));
        assert_eq!(peak(&s, 6, 1), Some(9.0));
    }

    #[test]
    fn bins_smooth_single_quiet_ticks() {
        // after tick 2: 8,0 | 8,0 | 1,1 — a quiet single tick does not count
        let s = [0, 9, 9, 8, 0, 8, 0, 1, 1];
        assert_eq!(recovery(&s, 2, 8, 1, 1.0), Some(2));
        assert_eq!(recovery(&s, 2, 8, 2, 1.0), Some(6));
        // bins from tick 1: (9,9) (8,0) (8,0) (1,1)
        assert_eq!(peak(&s, 8, 2), Some(9.0));
        // a short last bin is divided by its own length
        assert_eq!(bin_means(&s, 1, 3, 2), vec![(2, 9.0), (3, 8.0)]);
    }
}
