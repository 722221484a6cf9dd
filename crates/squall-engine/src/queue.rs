//! The event queue: events ordered by `(time, sequence number)`.
//!
//! Equal times run in the order they were scheduled (FIFO). This rule is part
//! of squall's semantics: in a round-based model, calls scheduled for the same
//! round meet a per-round capacity in the order they were scheduled, which is
//! what makes "oldest request first" come out of plain retry scheduling.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A scheduled event: when, in what order, and what.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Entry<E: Ord> {
    time: u64,
    seq: u64,
    event: E,
}

/// A priority queue of events keyed by `(time, seq)`.
#[derive(Debug)]
pub struct EventQueue<E: Ord> {
    heap: BinaryHeap<Reverse<Entry<E>>>,
    next_seq: u64,
    now: u64,
}

/// Scheduling an event before the current time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("an event was scheduled at tick {at}, before the current tick {now}")]
pub struct SchedulingError {
    /// The requested time.
    pub at: u64,
    /// The queue's current time.
    pub now: u64,
}

impl<E: Ord + Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Ord + Copy> EventQueue<E> {
    /// An empty queue at time 0.
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            next_seq: 0,
            now: 0,
        }
    }

    /// Schedules `event` at `time`; it runs after every event already
    /// scheduled for the same time.
    pub fn schedule(&mut self, time: u64, event: E) -> Result<(), SchedulingError> {
        if time < self.now {
            return Err(SchedulingError {
                at: time,
                now: self.now,
            });
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Reverse(Entry { time, seq, event }));
        Ok(())
    }

    /// Removes and returns the earliest event, advancing the clock to it.
    pub fn pop(&mut self) -> Option<(u64, E)> {
        let Reverse(e) = self.heap.pop()?;
        self.now = e.time;
        Some((e.time, e.event))
    }

    /// The time of the earliest event.
    pub fn peek_time(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse(e)| e.time)
    }

    /// The current time: that of the last event popped.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Events waiting.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when nothing is scheduled.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_fifo() {
        let mut q = EventQueue::new();
        q.schedule(5, 'a').unwrap();
        q.schedule(3, 'b').unwrap();
        q.schedule(5, 'c').unwrap();
        q.schedule(3, 'd').unwrap();
        q.schedule(4, 'e').unwrap();
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'e', 'a', 'c']);
    }

    #[test]
    fn fifo_holds_for_events_scheduled_while_running() {
        let mut q = EventQueue::new();
        q.schedule(1, 1u32).unwrap();
        q.schedule(2, 2).unwrap();
        let (t, _) = q.pop().unwrap();
        assert_eq!(t, 1);
        // Scheduled now for tick 2: runs after the event already there.
        q.schedule(2, 3).unwrap();
        q.schedule(1, 4).unwrap(); // same tick as now: allowed, runs next
        assert_eq!(q.pop(), Some((1, 4)));
        assert_eq!(q.pop(), Some((2, 2)));
        assert_eq!(q.pop(), Some((2, 3)));
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn scheduling_in_the_past_is_an_error() {
        let mut q = EventQueue::new();
        q.schedule(10, 0u8).unwrap();
        q.pop();
        assert_eq!(q.schedule(9, 1), Err(SchedulingError { at: 9, now: 10 }));
    }

    #[test]
    fn many_equal_times_keep_insertion_order() {
        let mut q = EventQueue::new();
        for i in 0..1000u32 {
            q.schedule(7, i).unwrap();
        }
        for i in 0..1000u32 {
            assert_eq!(q.pop(), Some((7, i)));
        }
    }
}
