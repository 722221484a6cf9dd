//! Time-weighted gauges (queue length, calls in service) and the bins that
//! series are kept in.
//!
//! A [`Bins`] layout cuts a run into bins of one width (`series every 1s`),
//! so a one-hour run at nanosecond time costs thousands of numbers, not
//! billions. A [`Gauge`] follows a level that changes at event times: it
//! adds `level x time` for every stretch the level held, to the bins and
//! to each named window, and keeps the highest level seen in each. Bin
//! means are `area / width`; window means are exact (from event times,
//! never from bins).

use crate::time::{Duration, Time};

/// Bins of one width from a start time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bins {
    /// Start of the first bin.
    pub start: Time,
    /// Width of a bin.
    pub width: Duration,
    /// How many bins.
    pub count: usize,
}

impl Bins {
    /// Bins of `width` covering `start..end`.
    pub fn new(start: Time, end: Time, width: Duration) -> Self {
        let width = Duration::from_units(width.units().max(1));
        let span = end.since(start).units();
        let count = span.div_ceil(width.units()).max(1);
        Bins {
            start,
            width,
            count: usize::try_from(count).unwrap_or(usize::MAX),
        }
    }

    /// The bin that holds `t` (clamped into the layout).
    pub fn index(&self, t: Time) -> usize {
        let i = t.since(self.start).units() / self.width.units();
        usize::try_from(i).map_or(self.count - 1, |i| i.min(self.count - 1))
    }

    /// Start of bin `i`.
    pub fn bin_start(&self, i: usize) -> Time {
        self.start.after(Duration::from_units(
            self.width.units().saturating_mul(i as u64),
        ))
    }
}

/// A bin in which the level was not set.
const NOT_SET: u64 = u64::MAX;

/// A window a gauge keeps an exact mean for: `from..to` (end excluded).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Window {
    from: Time,
    to: Time,
    area: u128,
    max: u64,
    /// The level at `to`: the last one set before it.
    end: u64,
}

/// A level followed over time.
#[derive(Debug, Clone)]
pub struct Gauge {
    bins: Bins,
    level: u64,
    since: Time,
    area: Vec<u128>,
    max: Vec<u64>,
    /// Per bin, the last level set in it, or [`NOT_SET`].
    last: Vec<u64>,
    windows: Vec<Window>,
    total: u128,
    peak: u64,
    /// Most changes fall in the bin of the one before.
    cursor: BinCursor,
}

/// The bin of a [`Bins`] layout last looked up and its span `[from, to)`
/// in units (`to` is `u64::MAX` for the last bin, 0 before the first
/// look-up: an empty span): a look-up in the bin of the one before (almost every
/// one, since events come in time order) is two comparisons, not a
/// division. [`BinCursor::index`] always equals [`Bins::index`].
#[derive(Debug, Clone, Copy, Default)]
pub struct BinCursor {
    cur: usize,
    from: u64,
    to: u64,
}

impl BinCursor {
    /// The bin of `bins` that holds `t` ([`Bins::index`]), remembered for
    /// the next look-up.
    #[inline(always)]
    pub fn index(&mut self, bins: &Bins, t: Time) -> usize {
        let u = t.units();
        if self.from <= u && u < self.to {
            return self.cur;
        }
        self.seek(bins, u)
    }

    /// [`Self::index`] outside the bin last looked up.
    #[inline(never)]
    fn seek(&mut self, bins: &Bins, u: u64) -> usize {
        let i = bins.index(Time::from_units(u));
        self.cur = i;
        self.from = bins.bin_start(i).units();
        self.to = if i + 1 == bins.count {
            u64::MAX
        } else {
            bins.bin_start(i + 1).units()
        };
        // A time before the first bin is counted in it without being in
        // its span: look it up again next time.
        if u < self.from {
            self.to = 0;
        }
        i
    }

    /// Whether `a..b` (units) lies within the bin last looked up.
    #[inline]
    fn spans(&self, a: u64, b: u64) -> bool {
        self.from <= a && b <= self.to
    }
}

impl Gauge {
    /// A gauge at level 0 from `bins.start`, with exact means for
    /// `windows` (`from..to`, end excluded).
    pub fn new(bins: Bins, windows: &[(Time, Time)]) -> Self {
        Gauge {
            bins,
            level: 0,
            since: bins.start,
            area: vec![0; bins.count],
            max: vec![0; bins.count],
            last: vec![NOT_SET; bins.count],
            windows: windows
                .iter()
                .map(|&(from, to)| Window {
                    from,
                    to,
                    area: 0,
                    max: 0,
                    end: 0,
                })
                .collect(),
            total: 0,
            peak: 0,
            cursor: BinCursor::default(),
        }
    }

    /// The bin that holds `t` ([`Bins::index`]).
    #[inline]
    fn bin_of(&mut self, t: Time) -> usize {
        self.cursor.index(&self.bins, t)
    }

    /// The level becomes `level` at `now` (times never go back).
    pub fn set(&mut self, now: Time, level: u64) {
        self.hold_until(now);
        self.level = level;
        self.peak = self.peak.max(level);
        let i = self.bin_of(now);
        self.max[i] = self.max[i].max(level);
        self.last[i] = level;
        for w in &mut self.windows {
            if now < w.to {
                w.end = level;
                if w.from <= now {
                    w.max = w.max.max(level);
                }
            }
        }
    }

    /// Adds `delta` (may be negative) to the level at `now`.
    pub fn add(&mut self, now: Time, delta: i64) {
        let level = self.level.saturating_add_signed(delta);
        self.set(now, level);
    }

    /// The current level.
    pub fn level(&self) -> u64 {
        self.level
    }

    /// Counts the current level up to `now`.
    pub fn hold_until(&mut self, now: Time) {
        if now <= self.since {
            return;
        }
        let (a, b, level) = (self.since, now, self.level);
        self.since = now;
        if level == 0 {
            return;
        }
        let l = u128::from(level);
        self.total += l * u128::from(b.since(a).units());
        let first = self.bin_of(a);
        if self.cursor.spans(a.units(), b.units()) {
            // Within one bin (the last one reaches to the end of time).
            self.area[first] += l * u128::from(b.since(a).units());
            self.max[first] = self.max[first].max(level);
        } else {
            self.hold_across(first, a, b, l, level);
        }
        for w in &mut self.windows {
            let lo = a.max(w.from);
            let hi = b.min(w.to);
            if lo < hi {
                w.area += l * u128::from(hi.since(lo).units());
                w.max = w.max.max(level);
            }
        }
    }

    /// [`Gauge::hold_until`] over `a..b` from bin `first` on, across bins.
    fn hold_across(&mut self, first: usize, a: Time, b: Time, l: u128, level: u64) {
        let last = self.bins.index(Time::from_units(b.units() - 1));
        for i in first..=last {
            let lo = a.max(self.bins.bin_start(i));
            let hi = if i + 1 == self.bins.count {
                b
            } else {
                b.min(self.bins.bin_start(i + 1))
            };
            self.area[i] += l * u128::from(hi.since(lo).units());
            self.max[i] = self.max[i].max(level);
        }
    }

    /// Mean level in bin `i` (over its full width).
    pub fn bin_mean(&self, i: usize) -> f64 {
        self.area
            .get(i)
            .map_or(0.0, |&a| a as f64 / self.bins.width.units() as f64)
    }

    /// Highest level in bin `i`.
    pub fn bin_max(&self, i: usize) -> u64 {
        self.max.get(i).copied().unwrap_or(0)
    }

    /// The level at the end of each bin, in order: the last one set in it
    /// or, with no change in it, the level carried from before (a change
    /// at a bin's first instant is in that bin, not the one before).
    pub fn bin_ends(&self) -> Vec<u64> {
        let mut level = 0;
        self.last
            .iter()
            .map(|&l| {
                if l != NOT_SET {
                    level = l;
                }
                level
            })
            .collect()
    }

    /// The level at the end of window `w`.
    pub fn window_end(&self, w: usize) -> u64 {
        self.windows.get(w).map_or(0, |w| w.end)
    }

    /// Mean level in window `w` (call [`Gauge::hold_until`] with the end
    /// of the run first).
    pub fn window_mean(&self, w: usize) -> f64 {
        self.windows.get(w).map_or(0.0, |w| {
            let len = w.to.since(w.from).units();
            if len == 0 {
                0.0
            } else {
                w.area as f64 / len as f64
            }
        })
    }

    /// Highest level in window `w`.
    pub fn window_max(&self, w: usize) -> u64 {
        self.windows.get(w).map_or(0, |w| w.max)
    }

    /// Mean level from the start to `end`.
    pub fn mean_until(&self, end: Time) -> f64 {
        let len = end.since(self.bins.start).units();
        if len == 0 {
            0.0
        } else {
            self.total as f64 / len as f64
        }
    }

    /// Highest level ever.
    pub fn peak(&self) -> u64 {
        self.peak
    }

    /// Its bins.
    pub fn bins(&self) -> Bins {
        self.bins
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(u: u64) -> Time {
        Time::from_units(u)
    }

    #[test]
    fn bins_cover_the_run() {
        let b = Bins::new(t(0), t(25), Duration::from_units(10));
        assert_eq!(b.count, 3);
        assert_eq!(b.index(t(9)), 0);
        assert_eq!(b.index(t(10)), 1);
        assert_eq!(b.index(t(99)), 2);
        assert_eq!(b.bin_start(2), t(20));
    }

    /// Level 2 over 0..5, 4 over 5..15, 0 after; bins of 10; a window 3..13.
    #[test]
    fn time_weighted_by_hand() {
        let bins = Bins::new(t(0), t(30), Duration::from_units(10));
        let mut g = Gauge::new(bins, &[(t(3), t(13))]);
        g.set(t(0), 2);
        g.set(t(5), 4);
        g.add(t(15), -4);
        g.hold_until(t(30));
        // Bin 0: 2*5 + 4*5 = 30 over 10. Bin 1: 4*5 = 20 over 10.
        assert_eq!(g.bin_mean(0), 3.0);
        assert_eq!(g.bin_mean(1), 2.0);
        assert_eq!(g.bin_mean(2), 0.0);
        assert_eq!((g.bin_max(0), g.bin_max(1), g.bin_max(2)), (4, 4, 0));
        // Window 3..13: 2*2 + 4*8 = 36 over 10.
        assert_eq!(g.window_mean(0), 3.6);
        assert_eq!(g.window_max(0), 4);
        // Ends: 4 at bin 0's end (set at 5), 0 at bin 1's (set at 15),
        // 0 carried through bin 2; the window ends at 13, before the drop.
        assert_eq!(g.bin_ends(), vec![4, 0, 0]);
        assert_eq!(g.window_end(0), 4);
        // Whole run: (10 + 40) / 30.
        assert!((g.mean_until(t(30)) - 50.0 / 30.0).abs() < 1e-12);
        assert_eq!(g.peak(), 4);
    }

    /// The cursor's bin is the layout's own, whatever the order of the
    /// look-ups: within a bin, across bins, back in time, before the
    /// first bin and past the last (clamped).
    #[test]
    fn a_cursor_finds_the_bin_the_layout_gives() {
        let bins = Bins::new(t(5), t(47), Duration::from_units(10));
        let mut cursor = BinCursor::default();
        for u in [
            5, 6, 14, 15, 3, 0, 4, 5, 24, 16, 46, 47, 100, 45, 36, 35, 34, 5, 200,
        ] {
            assert_eq!(cursor.index(&bins, t(u)), bins.index(t(u)), "at {u}");
        }
    }

    #[test]
    fn a_long_stretch_spans_many_bins() {
        let bins = Bins::new(t(0), t(100), Duration::from_units(10));
        let mut g = Gauge::new(bins, &[]);
        g.set(t(5), 1);
        g.set(t(95), 0);
        assert_eq!(g.bin_mean(0), 0.5);
        for i in 1..9 {
            assert_eq!(g.bin_mean(i), 1.0, "bin {i}");
        }
        assert_eq!(g.bin_mean(9), 0.5);
    }
}
