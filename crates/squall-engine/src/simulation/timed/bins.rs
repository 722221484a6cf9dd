//! The default width of a series bin on a run that takes time
//! ([`default_bin`]), when the file gives no `series every`.

/// The most bins [`default_bin`] gives a run.
pub const MOST_BINS: u64 = 600;
/// The fewest bins [`default_bin`] gives a run of at least that many ticks.
pub const FEWEST_BINS: u64 = 60;

/// The default bin width \[ticks\] of a run of `ticks` ticks that takes
/// time: 1, 2 or 5 times a power of ten, the smallest that keeps the run to
/// at most [`MOST_BINS`] bins and, on a wall clock (`tick_ms` milliseconds
/// per tick), is at least a second — a second holds enough calls for a bin
/// to tell an overload from noise (the metastable verdict reads bins).
/// Where that leaves fewer than [`FEWEST_BINS`] bins (a run shorter than a
/// minute), the widest that still gives that many; a run shorter than
/// that has bins of one tick.
pub fn default_bin(ticks: u64, tick_ms: Option<u64>) -> u64 {
    let widths =
        || (0..19u32).flat_map(|k| [1u64, 2, 5].map(move |m| m.saturating_mul(10u64.pow(k))));
    let bins = |w: u64| ticks.div_ceil(w.max(1));
    let second = tick_ms.map_or(1, |ms| 1000u64.div_ceil(ms.max(1)));
    let w = widths()
        .find(|&w| bins(w) <= MOST_BINS && w >= second)
        .unwrap_or(u64::MAX);
    if bins(w) >= FEWEST_BINS {
        return w;
    }
    widths()
        .take_while(|&w| bins(w) >= FEWEST_BINS)
        .last()
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_bins() {
        let ms = Some(1);
        // A minute at `clock ms`: bins of a second.
        assert_eq!(default_bin(60_000, ms), 1000);
        // Three minutes: a second (180 bins); an hour: 10 s (360 bins).
        assert_eq!(default_bin(180_000, ms), 1000);
        assert_eq!(default_bin(3_600_000, ms), 10_000);
        // 20 s: a second would give 20 bins; 200 ms gives 100.
        assert_eq!(default_bin(20_000, ms), 200);
        // Shorter than 60 ticks: one tick.
        assert_eq!(default_bin(30, ms), 1);
        assert_eq!(default_bin(400, ms), 5);
        // `clock s`: an hour in 10 s bins; rounds: at most 600 bins.
        assert_eq!(default_bin(3600, Some(1000)), 10);
        assert_eq!(default_bin(400, None), 1);
        assert_eq!(default_bin(10_000, None), 20);
        for t in [61, 999, 12_345, 60_001, 10_000_000] {
            let w = default_bin(t, ms);
            let n = t.div_ceil(w);
            assert!((FEWEST_BINS..=MOST_BINS).contains(&n), "{t}: {w} -> {n}");
        }
    }
}
