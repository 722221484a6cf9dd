//! The event queue of a run that takes time: a calendar of time buckets,
//! FIFO among equal times.
//!
//! The order is the one of [`crate::queue::EventQueue`]: by time, equal
//! times in the order they were scheduled (a sequence number). That
//! queue's ring covers 64 units from the current time, which at
//! nanosecond keys holds almost nothing, so there every event went
//! through its binary heap.
//!
//! # How it works
//!
//! Time is cut into buckets of `2^SHIFT` units (about 33 µs at
//! nanoseconds); a ring of [`SLOTS`] buckets covers the ones from the
//! current time's on (about 270 ms), which holds every service time,
//! timeout and backoff of a usual run. Each bucket is a short list kept
//! sorted by `(time, sequence)`, read from a cursor at its front: an event
//! is inserted behind every event not later than it (at the back, for the
//! usual event scheduled last), and the list is emptied when the cursor
//! reaches its end. A bitmap of the buckets that are not
//! empty finds the next one from the current bucket on, going round.
//! Events further ahead wait, unsorted, in a side list, and move into the
//! ring when the current bucket comes within [`SLOTS`] of theirs; as
//! buckets sort by sequence too, the moment they move does not change
//! the order.
//!
//! Every event in the ring is in a bucket from the current one to
//! [`SLOTS`] - 1 ahead, every event in the side list further, so the
//! front of the first bucket that is not empty is the earliest event.

use crate::queue::SchedulingError;

/// A bucket is `2^SHIFT` units wide.
const SHIFT: u32 = 15;
/// Buckets in the ring.
pub(super) const SLOTS: usize = 1 << 13;
/// Words of the bitmap.
const WORDS: usize = SLOTS / 64;

/// An event and its place in the order.
#[derive(Debug, Clone, Copy)]
struct Entry<E> {
    time: u64,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    fn key(&self) -> (u64, u64) {
        (self.time, self.seq)
    }
}

/// A priority queue of events keyed by time, for times that never go
/// back.
#[derive(Debug)]
pub(super) struct Events<E> {
    /// Bucket `b % SLOTS` holds the events of bucket `b`, for
    /// `base <= b < base + SLOTS` (allocated at the first event), from
    /// its cursor in `read` on.
    ring: Vec<Vec<Entry<E>>>,
    read: Vec<u32>,
    /// Bit `i` set when ring bucket `i` is not empty.
    occupied: Vec<u64>,
    in_ring: usize,
    /// Events of bucket `base + SLOTS` or later, and the lowest bucket
    /// among them (`u64::MAX` when there is none).
    later: Vec<Entry<E>>,
    later_min: u64,
    /// The bucket of `now`.
    base: u64,
    /// The time of the last event popped.
    now: u64,
    next_seq: u64,
}

impl<E> Default for Events<E> {
    fn default() -> Self {
        Events {
            ring: Vec::new(),
            read: Vec::new(),
            occupied: Vec::new(),
            in_ring: 0,
            later: Vec::new(),
            later_min: u64::MAX,
            base: 0,
            now: 0,
            next_seq: 0,
        }
    }
}

impl<E: Copy> Events<E> {
    /// Schedules `event` at `time`; it runs after every event already
    /// scheduled for the same time.
    #[inline]
    pub(super) fn schedule(&mut self, time: u64, event: E) -> Result<(), SchedulingError> {
        if time < self.now {
            return Err(SchedulingError {
                at: time,
                now: self.now,
            });
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let e = Entry { time, seq, event };
        let b = time >> SHIFT;
        if b - self.base < SLOTS as u64 {
            self.insert(b, e);
        } else {
            self.later.push(e);
            self.later_min = self.later_min.min(b);
        }
        Ok(())
    }

    /// Puts `e` (of bucket `b`, within the ring) behind every event of
    /// its bucket not later than it.
    #[inline]
    fn insert(&mut self, b: u64, e: Entry<E>) {
        if self.ring.is_empty() {
            self.ring = (0..SLOTS).map(|_| Vec::new()).collect();
            self.read = vec![0; SLOTS];
            self.occupied = vec![0; WORDS];
        }
        let i = (b as usize) & (SLOTS - 1);
        let q = &mut self.ring[i];
        let first = self.read[i] as usize;
        let mut at = q.len();
        while at > first && q[at - 1].key() > e.key() {
            at -= 1;
        }
        if at == q.len() {
            q.push(e);
        } else {
            q.insert(at, e);
        }
        self.occupied[i / 64] |= 1 << (i % 64);
        self.in_ring += 1;
    }

    /// The ring bucket of the earliest event in the ring.
    #[inline]
    fn front(&self) -> Option<usize> {
        if self.in_ring == 0 {
            return None;
        }
        let p = (self.base as usize) & (SLOTS - 1);
        let (w0, bit) = (p / 64, p % 64);
        let here = self.occupied[w0] & (!0u64 << bit);
        if here != 0 {
            return Some(w0 * 64 + here.trailing_zeros() as usize);
        }
        for k in 1..=WORDS {
            let w = (w0 + k) % WORDS;
            let bits = if k == WORDS {
                self.occupied[w] & !(!0u64 << bit)
            } else {
                self.occupied[w]
            };
            if bits != 0 {
                return Some(w * 64 + bits.trailing_zeros() as usize);
            }
        }
        None
    }

    /// The time of the earliest event.
    #[cfg(test)]
    pub(super) fn peek_time(&self) -> Option<u64> {
        match self.front() {
            Some(i) => self.ring[i].get(self.read[i] as usize).map(|e| e.time),
            None => self.later.iter().map(|e| e.time).min(),
        }
    }

    /// Removes and returns the earliest event (before the end of time),
    /// moving the clock to it.
    #[cfg(test)]
    pub(super) fn pop(&mut self) -> Option<(u64, E)> {
        self.pop_before(u64::MAX)
    }

    /// Removes and returns the earliest event if it is before `limit`,
    /// moving the clock to it; `None` (and nothing moves) otherwise.
    #[inline]
    pub(super) fn pop_before(&mut self, limit: u64) -> Option<(u64, E)> {
        if self.in_ring == 0 {
            let first = self.later.iter().map(|e| e.time).min()?;
            if first >= limit {
                return None;
            }
            self.base = self.later_min;
            self.bring_in();
        }
        let i = self.front()?;
        let q = &mut self.ring[i];
        let r = self.read[i] as usize;
        let e = *q.get(r)?;
        if e.time >= limit {
            return None;
        }
        if r + 1 == q.len() {
            q.clear();
            self.read[i] = 0;
            self.occupied[i / 64] &= !(1 << (i % 64));
        } else {
            self.read[i] += 1;
        }
        self.in_ring -= 1;
        self.now = e.time;
        let b = e.time >> SHIFT;
        if b != self.base {
            self.base = b;
            if self.later_min < b + SLOTS as u64 {
                self.bring_in();
            }
        }
        Some((e.time, e.event))
    }

    /// Moves the events of the side list that are now within the ring
    /// into it.
    fn bring_in(&mut self) {
        let limit = self.base + SLOTS as u64;
        let mut min = u64::MAX;
        let mut k = 0;
        while k < self.later.len() {
            let b = self.later[k].time >> SHIFT;
            if b < limit {
                let e = self.later.swap_remove(k);
                self.insert(b, e);
            } else {
                min = min.min(b);
                k += 1;
            }
        }
        self.later_min = min;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    #[test]
    fn orders_by_time_then_fifo() {
        let mut q = Events::default();
        for (t, e) in [(5, 'a'), (3, 'b'), (5, 'c'), (3, 'd'), (4, 'e')] {
            q.schedule(t, e).unwrap();
        }
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'e', 'a', 'c']);
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn scheduling_in_the_past_is_an_error() {
        let mut q = Events::default();
        q.schedule(10, 0u8).unwrap();
        assert_eq!(q.pop(), Some((10, 0)));
        assert_eq!(q.schedule(9, 1), Err(SchedulingError { at: 9, now: 10 }));
        // The current time itself is allowed, and runs next.
        q.schedule(12, 2).unwrap();
        q.schedule(10, 3).unwrap();
        assert_eq!(q.pop(), Some((10, 3)));
        assert_eq!(q.pop(), Some((12, 2)));
    }

    /// Against a binary heap keyed by `(time, seq)`: delays of zero, a
    /// few units, across the ring's edge and up to 2^40, many ties, pops
    /// interleaved with pushes.
    #[test]
    fn agrees_with_a_binary_heap() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let mut q = Events::default();
        let mut reference = BinaryHeap::new();
        let mut now = 0u64;
        for step in 0..50_000u32 {
            if next(3) > 0 || reference.is_empty() {
                let edge = (SLOTS as u64) << SHIFT;
                let delay = match next(6) {
                    0 => 0,
                    1 => next(4),
                    2 => next(1 << 20),
                    3 => edge - (1 << 16) + next(1 << 17),
                    4 => next(8 * edge),
                    _ => next(1 << 40),
                };
                q.schedule(now + delay, step).unwrap();
                reference.push(Reverse((now + delay, step)));
            } else {
                let Reverse((t, e)) = reference.pop().unwrap();
                assert_eq!(q.peek_time(), Some(t));
                assert_eq!(q.pop(), Some((t, e)), "step {step}");
                now = t;
            }
        }
        while let Some(Reverse((t, e))) = reference.pop() {
            assert_eq!(q.pop(), Some((t, e)));
        }
        assert_eq!(q.pop(), None);
    }
}
