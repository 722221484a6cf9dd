//! The event queue: events ordered by `(time, sequence number)`.
//!
//! Equal times run in the order they were scheduled (FIFO). This rule is part
//! of squall's semantics: in a round-based model, calls scheduled for the same
//! round meet a per-round capacity in the order they were scheduled, which is
//! what makes "oldest request first" come out of plain retry scheduling.
//!
//! # How it is stored
//!
//! Time is an integer and most events fall a few ticks ahead (the next
//! source tick, a retry after its backoff), so the queue is a calendar: a
//! ring of [`RING`] buckets, one per tick from the current one on, each a
//! FIFO of events in the order they were scheduled. Events further ahead wait
//! in a binary heap keyed by `(time, sequence)` and move into their bucket,
//! in that order, as the clock comes within [`RING`] ticks of them: before
//! anything else can be scheduled for that tick, so a bucket's order is
//! always scheduling order. Pushing and popping within the ring is O(1).
//!
//! The buckets share one pool of cells: a bucket is a linked list (its
//! first and last cell) through the pool, and a cell freed by a pop is the
//! next one a push takes. So the ring's memory follows the most events it
//! held at once, not [`RING`] times the most one tick ever held (a bucket
//! of its own per tick keeps its busiest capacity: tens of MB in a storm).

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// Ticks the ring covers, from the current one on.
pub const RING: u64 = 64;

/// An event too far ahead for the ring: ordered by `(time, seq)` only.
#[derive(Debug, Clone, Copy)]
struct Entry<E> {
    time: u64,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.time, self.seq) == (other.time, other.seq)
    }
}

impl<E> Eq for Entry<E> {}

impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.time, self.seq).cmp(&(other.time, other.seq))
    }
}

/// No cell: the end of a list.
const NIL: u32 = u32::MAX;

/// A cell of the ring's pool: an event and the next cell of its list.
#[derive(Debug, Clone, Copy)]
struct Cell<E> {
    event: E,
    next: u32,
}

/// A priority queue of events keyed by `(time, seq)`.
#[derive(Debug)]
pub struct EventQueue<E> {
    /// Bucket `t % RING` holds the events of tick `t`, for
    /// `now <= t < now + RING`: the first and last cell of its list
    /// (`NIL` when empty).
    head: [u32; RING as usize],
    tail: [u32; RING as usize],
    /// The cells of every bucket, and the first free one.
    cells: Vec<Cell<E>>,
    free: u32,
    /// Bit `t % RING` is set when that bucket is not empty.
    occupied: u64,
    /// Events in the ring.
    in_ring: usize,
    /// Events at `now + RING` or later.
    later: BinaryHeap<Reverse<Entry<E>>>,
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

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue at time 0.
    pub fn new() -> Self {
        EventQueue {
            head: [NIL; RING as usize],
            tail: [NIL; RING as usize],
            cells: Vec::new(),
            free: NIL,
            occupied: 0,
            in_ring: 0,
            later: BinaryHeap::new(),
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
        if time - self.now < RING {
            self.push_ring(time, event);
        } else {
            self.later.push(Reverse(Entry { time, seq, event }));
        }
        Ok(())
    }

    #[inline]
    fn push_ring(&mut self, time: u64, event: E) {
        let b = (time % RING) as usize;
        let cell = Cell { event, next: NIL };
        let c = if self.free == NIL {
            self.cells.push(cell);
            (self.cells.len() - 1) as u32
        } else {
            let c = self.free;
            self.free = self.cells[c as usize].next;
            self.cells[c as usize] = cell;
            c
        };
        match self.tail[b] {
            NIL => self.head[b] = c,
            t => self.cells[t as usize].next = c,
        }
        self.tail[b] = c;
        self.occupied |= 1 << b;
        self.in_ring += 1;
    }

    /// Removes and returns the earliest event, advancing the clock to it.
    pub fn pop(&mut self) -> Option<(u64, E)> {
        let time = self.peek_time()?;
        if time != self.now {
            self.advance(time);
        }
        let b = (time % RING) as usize;
        let c = self.head[b];
        if c == NIL {
            return None;
        }
        let Cell { event, next } = self.cells[c as usize];
        self.head[b] = next;
        if next == NIL {
            self.tail[b] = NIL;
            self.occupied &= !(1 << b);
        }
        self.cells[c as usize].next = self.free;
        self.free = c;
        self.in_ring -= 1;
        Some((time, event))
    }

    /// Moves the clock to `time` and brings the events now within the ring
    /// into it, in `(time, seq)` order. Their buckets are empty: the ring
    /// held no tick that far ahead before.
    fn advance(&mut self, time: u64) {
        self.now = time;
        while let Some(Reverse(e)) = self.later.peek() {
            if e.time - time >= RING {
                break;
            }
            let (t, event) = (e.time, e.event);
            self.later.pop();
            self.push_ring(t, event);
        }
    }

    /// The time of the earliest event.
    pub fn peek_time(&self) -> Option<u64> {
        if self.in_ring > 0 {
            // Ring times are `now..now + RING`: the first occupied bucket
            // at or after `now`'s, going round, is the earliest.
            let offset = self
                .occupied
                .rotate_right((self.now % RING) as u32)
                .trailing_zeros();
            Some(self.now + u64::from(offset))
        } else {
            self.later.peek().map(|Reverse(e)| e.time)
        }
    }

    /// The current time: that of the last event popped.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Events waiting.
    pub fn len(&self) -> usize {
        self.in_ring + self.later.len()
    }

    /// True when nothing is scheduled.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
    fn far_events_keep_their_place_among_near_ones() {
        let mut q = EventQueue::new();
        // Tick 100 is beyond the ring at time 0: 'a' waits in the heap.
        q.schedule(100, 'a').unwrap();
        q.schedule(50, 'b').unwrap();
        assert_eq!(q.pop(), Some((50, 'b')));
        // Now tick 100 is within the ring: 'c' goes to its bucket, after 'a'.
        q.schedule(100, 'c').unwrap();
        q.schedule(60, 'd').unwrap();
        assert_eq!(q.len(), 3);
        assert_eq!(q.pop(), Some((60, 'd')));
        assert_eq!(q.pop(), Some((100, 'a')));
        assert_eq!(q.pop(), Some((100, 'c')));
        assert!(q.is_empty());
    }

    /// Against a plain binary heap keyed by `(time, seq)`: random delays
    /// near and far (across the ring's edge and many times round it), pops
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
        let mut q = EventQueue::new();
        let mut reference = BinaryHeap::new();
        let mut seq = 0u64;
        let mut now = 0u64;
        for step in 0..200_000u32 {
            if next(3) > 0 || reference.is_empty() {
                let delay = match next(4) {
                    0 => 0,
                    1 => next(8),
                    2 => RING - 2 + next(4),
                    _ => next(5 * RING),
                };
                q.schedule(now + delay, step).unwrap();
                reference.push(Reverse((now + delay, seq, step)));
                seq += 1;
            } else {
                let Reverse((t, _, e)) = reference.pop().unwrap();
                assert_eq!(q.peek_time(), Some(t));
                assert_eq!(q.pop(), Some((t, e)), "step {step}");
                now = t;
            }
            assert_eq!(q.len(), reference.len());
        }
        while let Some(Reverse((t, _, e))) = reference.pop() {
            assert_eq!(q.pop(), Some((t, e)));
        }
        assert_eq!(q.pop(), None);
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
