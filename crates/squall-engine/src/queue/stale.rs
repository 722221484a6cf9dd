//! Events that went stale (see the module's documentation): taking one
//! out ([`EventQueue::cancel`]) and dropping every one the run no longer
//! wants ([`EventQueue::retain`]).

use std::cmp::Reverse;

use super::{BucketWidth, EventQueue, List, Timer, COMPACT_FLOOR, NIL, RING};

impl<E: Copy, W: BucketWidth> EventQueue<E, W> {
    /// Takes out the event `timer` names if it is the first of its bucket
    /// and `is` says it is the one meant; true when it did. The other
    /// events keep their order; the cell goes back to the pool. An event
    /// behind another of its bucket (a list has no way back to the cell
    /// before it), or one the heap took ([`Timer::NONE`]), stays: it pops
    /// at its time. A freed cell is no bucket's first, so a timer whose
    /// event popped (or was dropped) cancels nothing, and one whose cell
    /// was taken again cancels only what `is` accepts.
    #[inline(always)]
    pub fn cancel(&mut self, timer: Timer, is: impl FnOnce(&E) -> bool) -> bool {
        let c = timer.0;
        let Some(cell) = self.cells.get(c as usize) else {
            return false;
        };
        let i = ((cell.time >> W::SHIFT) as usize) & Self::MASK & (RING - 1);
        let list = &mut self.lists[i];
        if list.head != c || !is(&cell.event) {
            return false;
        }
        let next = cell.next;
        list.head = next;
        if next == NIL {
            list.tail = NIL;
            self.occupied[i / 64] &= !(1 << (i % 64));
        }
        self.cells[c as usize].next = self.free;
        self.free = c;
        self.in_ring -= 1;
        true
    }

    /// True when the queue holds twice the events its last compaction
    /// left (and at least a few thousand): the time to drop the stale ones
    /// with [`Self::retain`].
    #[inline(always)]
    pub fn needs_compaction(&self) -> bool {
        self.len() > self.compact_at
    }

    /// Drops every waiting event for which `keep` says false; the others
    /// keep their order. Returns how many were dropped. The cells freed go
    /// back to the pool, so the next events reuse them.
    #[cold]
    pub fn retain(&mut self, mut keep: impl FnMut(&E) -> bool) -> usize {
        let before = self.len();
        let (drain, _) = self.retain_list(self.drain, &mut keep);
        self.drain = drain;
        for i in 0..=Self::MASK {
            if self.lists[i].head == NIL {
                continue;
            }
            let (head, tail) = self.retain_list(self.lists[i].head, &mut keep);
            self.lists[i] = List { head, tail };
            if head == NIL {
                self.occupied[i / 64] &= !(1 << (i % 64));
            }
        }
        self.later.retain(|Reverse(e)| keep(&e.event));
        self.later_bucket = self
            .later
            .peek()
            .map_or(u64::MAX, |Reverse(e)| e.time >> W::SHIFT);
        self.compact_at = (2 * self.len()).max(COMPACT_FLOOR);
        before - self.len()
    }

    /// Drops the cells of the list from `head` on whose event `keep`
    /// refuses, in place, and returns the list's first and last cell
    /// after it (`NIL` when none is left).
    fn retain_list(&mut self, head: u32, keep: &mut impl FnMut(&E) -> bool) -> (u32, u32) {
        let (mut first, mut prev, mut at) = (head, NIL, head);
        while at != NIL {
            let next = self.cells[at as usize].next;
            if keep(&self.cells[at as usize].event) {
                prev = at;
            } else {
                match prev {
                    NIL => first = next,
                    p => self.cells[p as usize].next = next,
                }
                self.cells[at as usize].next = self.free;
                self.free = at;
                self.in_ring -= 1;
            }
            at = next;
        }
        (first, prev)
    }
}
