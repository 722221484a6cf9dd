//! [`Slots`]: how a run's counters are cut in time.
//!
//! A run that takes no time counts per tick: slot `t` is tick `t` (slot 0
//! is unused), so a round model's series are what they always were. A run
//! that takes time counts in the bins of its series (`series every 1s`,
//! or the default the header prints): memory follows the bins, not the
//! ticks, so an hour at `clock ms` costs a few thousand numbers per
//! counter, not 3.6 million.
//!
//! A bin is cut where a named window starts or ends, so that every window
//! is a whole number of slots and its totals are exact sums of slots (not
//! of bins that stick out of it). A bin is therefore one slot, or a few
//! when a window edge falls inside it; [`Slots::bin_slots`] says which.
//! Bins start at the run's first tick; the last may be shorter.

use serde::Serialize;

/// [`Slots::index`] with a memo of the last slot it found: a run's
/// events come in time order, so most fall in the slot before them and
/// cost two comparisons instead of a division and a scan (the timed path
/// counts every call's answer in a slot: about 50 M instructions of
/// `bench/continuous.squall`'s 1.93 G at five minutes went to the lookup).
/// Its answer is [`Slots::index`]'s for every tick, in any order.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SlotCursor {
    /// Ticks `lo..hi` (exclusive) are slot `slot`; empty at first.
    lo: u64,
    hi: u64,
    slot: usize,
}

impl SlotCursor {
    /// The slot of `slots` that holds tick `t`.
    #[inline(always)]
    pub(crate) fn index(&mut self, slots: &Slots, t: u64) -> usize {
        if slots.is_per_tick() {
            return t as usize;
        }
        if self.lo <= t && t < self.hi {
            return self.slot;
        }
        self.seek(slots, t)
    }

    #[inline(never)]
    fn seek(&mut self, slots: &Slots, t: u64) -> usize {
        let s = slots.index_binned(t);
        // Before the first tick (slot 0) and past the last, nothing is
        // remembered: those ticks share a slot with no range of its own.
        if s >= 1 && t >= slots.origin && t <= slots.last {
            (self.lo, self.hi) = slots.ticks_of(s);
            self.slot = s;
        }
        s
    }
}

/// The slots of a run: one per tick, or the bins of its series cut at the
/// window edges.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Slots {
    /// Ticks per bin (1: one slot per tick).
    pub bin: u64,
    /// First tick of the first bin.
    pub origin: u64,
    /// Last tick of the run.
    pub last: u64,
    /// First tick of every slot from slot 1 on (`starts[i - 1]` is slot
    /// `i`'s), increasing; empty for one slot per tick.
    #[serde(skip)]
    starts: Vec<u64>,
    /// Per bin, its first slot.
    #[serde(skip)]
    bin_first: Vec<u32>,
}

impl Slots {
    /// One slot per tick for a run of `ticks` ticks.
    pub fn per_tick(ticks: u64) -> Self {
        Slots {
            bin: 1,
            origin: 1,
            last: ticks,
            starts: Vec::new(),
            bin_first: Vec::new(),
        }
    }

    /// Bins of `bin` ticks over `origin..=last`, cut at every edge in
    /// `edges` (the first tick of a window, and the tick after its last).
    /// Bins of one tick are one slot per tick.
    pub fn binned(origin: u64, last: u64, bin: u64, edges: &[u64]) -> Self {
        let bin = bin.max(1);
        // One slot per tick counts from tick 1 (slot 0 unused): a run
        // that starts at tick 0 is cut like any other, so that tick 0 is
        // in its first bin.
        if bin == 1 && origin >= 1 {
            return Slots::per_tick(last);
        }
        let last = last.max(origin);
        let bins = (last - origin + 1).div_ceil(bin);
        let mut starts: Vec<u64> = (0..bins).map(|b| origin + b * bin).collect();
        starts.extend(edges.iter().copied().filter(|&e| e > origin && e <= last));
        starts.sort_unstable();
        starts.dedup();
        let mut bin_first = Vec::with_capacity(bins as usize);
        for (i, &s) in starts.iter().enumerate() {
            if (s - origin).is_multiple_of(bin) {
                bin_first.push(i as u32);
            }
        }
        Slots {
            bin,
            origin,
            last,
            starts,
            bin_first,
        }
    }

    /// True when every slot is one tick (slot `t` is tick `t`).
    #[inline]
    pub fn is_per_tick(&self) -> bool {
        self.starts.is_empty()
    }

    /// Entries a counter needs (slot 0 included).
    pub fn len(&self) -> usize {
        if self.is_per_tick() {
            self.last as usize + 1
        } else {
            self.starts.len() + 1
        }
    }

    /// True when there is no slot at all.
    pub fn is_empty(&self) -> bool {
        self.len() <= 1
    }

    /// The slot that holds tick `t` (0 before the first tick, the last
    /// slot after the last tick).
    #[inline]
    pub fn index(&self, t: u64) -> usize {
        if self.is_per_tick() {
            return t as usize;
        }
        self.index_binned(t)
    }

    /// Ticks `lo..hi` of slot `s` (`s >= 1`), `hi` exclusive.
    fn ticks_of(&self, s: usize) -> (u64, u64) {
        (
            self.first_tick(s),
            self.starts.get(s).copied().unwrap_or(self.last + 1),
        )
    }

    fn index_binned(&self, t: u64) -> usize {
        if t < self.origin {
            return 0;
        }
        let b = ((t.min(self.last) - self.origin) / self.bin) as usize;
        let mut s = self.bin_first[b.min(self.bin_first.len() - 1)] as usize;
        while s + 1 < self.starts.len() && self.starts[s + 1] <= t {
            s += 1;
        }
        s + 1
    }

    /// First tick of slot `i` (`i >= 1`).
    pub fn first_tick(&self, i: usize) -> u64 {
        if self.is_per_tick() {
            return i as u64;
        }
        self.starts
            .get(i.saturating_sub(1))
            .copied()
            .unwrap_or(self.last + 1)
    }

    /// Last tick of slot `i` (`i >= 1`).
    pub fn last_tick(&self, i: usize) -> u64 {
        if self.is_per_tick() {
            return i as u64;
        }
        self.starts.get(i).map_or(self.last, |&s| s - 1)
    }

    /// The slots that ticks `from..=to` touch, as `first..=last` (exact
    /// when `from` and `to + 1` are slot edges: a window's, a bin's).
    /// Empty (`first > last`) when the ticks are all after the run.
    pub fn range(&self, from: u64, to: u64) -> (usize, usize) {
        let last = self.len().saturating_sub(1);
        if self.is_per_tick() {
            return (from as usize, (to as usize).min(last));
        }
        if from > self.last {
            return (last + 1, last);
        }
        (self.index(from), self.index(to).min(last))
    }

    /// How many bins of the series there are (ticks for one slot per tick).
    pub fn bins(&self) -> usize {
        if self.is_per_tick() {
            self.last as usize
        } else {
            self.bin_first.len()
        }
    }

    /// The slots of bin `b` (0-based), as `first..=last`.
    pub fn bin_slots(&self, b: usize) -> (usize, usize) {
        if self.is_per_tick() {
            return (b + 1, b + 1);
        }
        let first = self.bin_first[b] as usize + 1;
        let last = self
            .bin_first
            .get(b + 1)
            .map_or(self.starts.len(), |&n| n as usize);
        (first, last)
    }

    /// The ticks of bin `b` (0-based), as `first..=last`.
    pub fn bin_ticks(&self, b: usize) -> (u64, u64) {
        let (first, last) = self.bin_slots(b);
        (self.first_tick(first), self.last_tick(last))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_slot_per_tick() {
        let s = Slots::binned(1, 6, 1, &[3]);
        assert!(s.is_per_tick());
        assert_eq!((s.len(), s.index(4), s.bins()), (7, 4, 6));
        assert_eq!(s.bin_ticks(2), (3, 3));
        assert_eq!(s.range(2, 5), (2, 5));
    }

    /// Ticks 1..=25 in bins of 10, a window 5..=12 (edges 5 and 13).
    #[test]
    fn bins_cut_at_window_edges() {
        let s = Slots::binned(1, 25, 10, &[5, 13]);
        // slots: 1..4, 5..10, 11..12, 13..20, 21..25
        assert_eq!(s.len(), 6);
        assert_eq!(s.bins(), 3);
        assert_eq!(
            (1..=25).map(|t| s.index(t)).collect::<Vec<_>>(),
            [1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5]
        );
        assert_eq!((s.index(0), s.index(99)), (0, 5));
        assert_eq!((s.first_tick(3), s.last_tick(3)), (11, 12));
        assert_eq!(s.bin_slots(0), (1, 2));
        assert_eq!(s.bin_slots(1), (3, 4));
        assert_eq!(s.bin_slots(2), (5, 5));
        assert_eq!(s.bin_ticks(1), (11, 20));
        assert_eq!(s.bin_ticks(2), (21, 25));
        assert_eq!(s.range(5, 12), (2, 3));
    }

    /// The cursor answers as [`Slots::index`] for every tick, whatever
    /// the order it is asked in: ticks in order, back and forth, and from
    /// before the first to past the last, on bins cut at window edges.
    #[test]
    fn the_cursor_finds_the_slot_index_gives() {
        let slots = Slots::binned(3, 40, 5, &[4, 11, 12, 30, 41]);
        let mut cursor = SlotCursor::default();
        let mut ticks: Vec<u64> = (0..45).collect();
        ticks.extend((0..45).rev());
        ticks.extend([7, 3, 40, 2, 44, 12, 11, 11, 29, 30, 0, 8]);
        for t in ticks {
            assert_eq!(cursor.index(&slots, t), slots.index(t), "tick {t}");
        }
        let per_tick = Slots::per_tick(9);
        for t in [1, 5, 9, 2] {
            assert_eq!(cursor.index(&per_tick, t), t as usize);
        }
    }
}
