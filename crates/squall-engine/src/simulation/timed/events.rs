//! The event queue of a run that takes time: a radix heap keyed by event
//! time, FIFO among equal times.
//!
//! The order is the one of [`crate::queue::EventQueue`]: by time, equal
//! times in the order they were scheduled. That queue's ring covers 64
//! units from the current time, which at nanosecond keys holds almost
//! nothing, so there every event went through its binary heap; here the
//! keys are nanoseconds and never go back, which is what a radix heap
//! needs.
//!
//! # How it works
//!
//! `last` is the time of the earliest event, once known. Bucket 0 holds
//! the events at `last`; bucket `i` (1..=64) those whose time first
//! differs from `last` at bit `i - 1` (from the top). A push is an append
//! to its bucket. When bucket 0 runs out, the lowest non-empty bucket is
//! emptied: its earliest time becomes `last`, and its events go, in their
//! order, to lower buckets (they all agree with the new `last` above bit
//! `i - 1`). An event moves down at most 64 times in all.
//!
//! **FIFO.** A bucket's index is a function of the event's time and
//! `last` (the invariant: every event in bucket `i` differs from `last`
//! first at bit `i - 1`, kept by both steps above), so events of one time
//! are always in one bucket. Pushes append and a bucket is redistributed
//! in order into buckets that were empty, so within a bucket events of
//! one time stay in the order they were scheduled; bucket 0 is read from
//! the front.

use crate::queue::SchedulingError;

/// Buckets: 0 for `last` itself, one per bit of a `u64` time.
const BUCKETS: usize = 65;

/// A monotone priority queue of events keyed by time.
#[derive(Debug)]
pub(super) struct Events<E> {
    buckets: [Vec<(u64, E)>; BUCKETS],
    /// Next event to read in bucket 0.
    head: usize,
    /// Bit `i - 1` set when bucket `i` (1..=64) is not empty.
    occupied: u64,
    last: u64,
}

impl<E> Default for Events<E> {
    fn default() -> Self {
        Events {
            buckets: std::array::from_fn(|_| Vec::new()),
            head: 0,
            occupied: 0,
            last: 0,
        }
    }
}

impl<E: Copy> Events<E> {
    /// The bucket of an event at `time`.
    #[inline]
    fn bucket(&self, time: u64) -> usize {
        (u64::BITS - (time ^ self.last).leading_zeros()) as usize
    }

    /// Schedules `event` at `time`; it runs after every event already
    /// scheduled for the same time.
    #[inline]
    pub(super) fn schedule(&mut self, time: u64, event: E) -> Result<(), SchedulingError> {
        if time < self.last {
            return Err(SchedulingError {
                at: time,
                now: self.last,
            });
        }
        let b = self.bucket(time);
        self.buckets[b].push((time, event));
        if b > 0 {
            self.occupied |= 1 << (b - 1);
        }
        Ok(())
    }

    /// The time of the earliest event (the clock moves to it: nothing may
    /// be scheduled before it afterwards).
    #[inline]
    pub(super) fn peek_time(&mut self) -> Option<u64> {
        if self.head < self.buckets[0].len() {
            return Some(self.last);
        }
        self.refill()
    }

    /// Bucket 0 is read out: the lowest non-empty bucket is redistributed.
    fn refill(&mut self) -> Option<u64> {
        self.buckets[0].clear();
        self.head = 0;
        if self.occupied == 0 {
            return None;
        }
        let i = self.occupied.trailing_zeros() as usize + 1;
        self.occupied &= !(1 << (i - 1));
        let mut from = std::mem::take(&mut self.buckets[i]);
        self.last = from.iter().map(|&(t, _)| t).min().unwrap_or(self.last);
        for &(t, e) in &from {
            let b = self.bucket(t);
            self.buckets[b].push((t, e));
            if b > 0 {
                self.occupied |= 1 << (b - 1);
            }
        }
        from.clear();
        self.buckets[i] = from;
        Some(self.last)
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub(super) fn pop(&mut self) -> Option<(u64, E)> {
        let t = self.peek_time()?;
        let (_, e) = self.buckets[0][self.head];
        self.head += 1;
        Some((t, e))
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
    /// few units and up to 2^40, many ties, pops interleaved with pushes.
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
                let delay = match next(4) {
                    0 => 0,
                    1 => next(4),
                    2 => next(1 << 20),
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
