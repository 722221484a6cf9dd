//! The event queue: events ordered by `(time, sequence number)`, the one
//! queue of every run (rounds, runs that take time, sending runs).
//!
//! Equal times run in the order they were scheduled (FIFO). This rule is part
//! of squall's semantics: in a round-based model, calls scheduled for the same
//! round meet a per-round capacity in the order they were scheduled, which is
//! what makes "oldest request first" come out of plain retry scheduling.
//!
//! # How it is stored
//!
//! Time is an integer and most events fall a little ahead of the current
//! time (the next source tick, a retry after its backoff, a service time),
//! so the queue is a calendar: time is cut into buckets of `2^SHIFT` units
//! (its [`BucketWidth`], a type parameter, so that the queue's code has
//! its numbers as constants), and a ring of `slots` buckets covers the
//! ones from the current time's on. A round model's ticks are coarse and
//! its events close, so a bucket there is one tick and the ring 64 ticks
//! ([`Ticks`]); a run that takes time keys events in nanoseconds, so there
//! a bucket is `2^15` units (about 33 µs) and the ring 8 192 buckets
//! (about 270 ms, which holds every service time, timeout and backoff of a
//! usual run: [`Nanoseconds`]).
//!
//! Each bucket is a list kept sorted by `(time, sequence)`: an event goes
//! behind every event of its bucket not later than it, which for the usual
//! event (scheduled last, not earlier than the bucket's last) is the back,
//! and for one-tick buckets is always the back. A bitmap of the buckets
//! that are not empty finds the next one from the current bucket on, going
//! round. Events further ahead wait in a binary heap keyed by
//! `(time, sequence)` and move into their bucket, in that order, when the
//! current bucket comes within `slots` of theirs: before anything else can
//! be scheduled there, so a bucket's order is always `(time, sequence)`.
//!
//! The buckets share one pool of cells: a bucket is a linked list (its
//! first and last cell) through the pool, and a cell freed by a pop is the
//! next one a push takes. So the ring's memory follows the most events it
//! held at once, not `slots` times the most one bucket ever held (a bucket
//! of its own per tick keeps its busiest capacity: tens of MB in a storm).
//!
//! A bucket one unit wide holds one time, so its order is its list's: the
//! first pop at that time takes the whole list out of the ring (the
//! `drain`, [`EventQueue::pop_before`]) and the pops after it take its
//! cells one by one, without looking for the bucket again, nor at the
//! event's time or the clock (a round model's retry storm pops millions
//! of events in a few hundred ticks). An event scheduled at that time
//! meanwhile goes into the bucket, emptied, behind the drain: it pops
//! after every event the drain holds, which were all scheduled before it.
//! A wider bucket's list stays in the ring, since an event scheduled into
//! it may go before some of its events.
//!
//! # Events that went stale
//!
//! A run that takes time sets a timer for each try (its timeout, the
//! request's deadline) and most tries answer long before it: the timer is
//! then stale, and would wait in the queue until its time, doing nothing
//! when popped. So that the queue's memory follows the work in flight and
//! not the events processed, the run asks [`EventQueue::needs_compaction`]
//! and, when the queue has doubled since it was last compacted, drops every
//! event it no longer wants with [`EventQueue::retain`]. The order of the
//! events kept does not change (a bucket's list is unlinked in place, the
//! heap keeps its `(time, seq)` keys), and a compaction costs the queue's
//! length, paid for by the events scheduled since the last one.
//!
//! Most stale timers never get that far: [`EventQueue::schedule_timer`]
//! returns where an event waits (a [`Timer`], its cell), and the run
//! cancels a try's timer when the try answers ([`EventQueue::cancel`]).
//! A list has no way back to a cell's predecessor, so only a bucket's
//! first event is taken out; a timer is almost always alone in its
//! ~33 µs bucket, and one that is not (or that the heap holds) stays to
//! pop at its time or go with a compaction, as before. Taking an event
//! out moves no other event, so the `(time, seq)` order of the rest is
//! the one they had.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::marker::PhantomData;

/// The calendar's shape: buckets `2^SHIFT` time units wide, `64 * WORDS`
/// of them in the ring (`SHIFT < 64`, `1 <= WORDS <= 128`).
pub trait BucketWidth {
    /// A bucket is `2^SHIFT` units wide.
    const SHIFT: u32;
    /// The ring has `64 * WORDS` buckets (one bitmap word per 64).
    const WORDS: usize;
}

/// One tick per bucket, 64 buckets: a round model (ticks are rounds or
/// milliseconds, events a few ticks apart).
#[derive(Debug, Clone, Copy)]
pub struct Ticks;

impl BucketWidth for Ticks {
    const SHIFT: u32 = 0;
    const WORDS: usize = 1;
}

/// `2^15`-unit buckets, 8 192 of them: a run that takes time, keyed in
/// nanoseconds (a bucket about 33 µs, the ring about 270 ms).
#[derive(Debug, Clone, Copy)]
pub struct Nanoseconds;

impl BucketWidth for Nanoseconds {
    const SHIFT: u32 = 15;
    const WORDS: usize = 128;
}

/// The most buckets a ring holds ([`Nanoseconds`]'s): the
/// ring's arrays have this size whatever the shape, so that an index
/// masked to it needs no bounds check; a smaller ring uses their front.
const RING: usize = 8192;

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

/// A cell of the ring's pool: an event, its time and the next cell of its
/// list. No sequence number: an event enters a bucket behind every event
/// of the same time already there, which were all scheduled before it.
#[derive(Debug, Clone, Copy)]
struct Cell<E> {
    time: u64,
    event: E,
    next: u32,
}

/// A bucket's list: its first and last cell (`NIL` when empty).
#[derive(Debug, Clone, Copy)]
struct List {
    head: u32,
    tail: u32,
}

/// Where a scheduled event waits, to cancel it with
/// [`EventQueue::cancel`]: its cell in the ring, or none
/// ([`Timer::NONE`]) for an event the heap took (too far ahead), which
/// stays until its time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timer(u32);

impl Timer {
    /// No event to cancel.
    pub const NONE: Timer = Timer(NIL);
}

/// An empty bucket.
const EMPTY: List = List {
    head: NIL,
    tail: NIL,
};

/// A priority queue of events keyed by `(time, seq)`, for times that never
/// go back, in buckets of the shape `W`.
#[derive(Debug)]
pub struct EventQueue<E, W = Ticks> {
    /// Ring bucket `b & MASK` holds the events of bucket `b`, for
    /// `base <= b < base + slots`: the first and last cell of its list
    /// (`NIL` when empty), side by side so that one look finds both.
    lists: Box<[List; RING]>,
    /// The cells of every bucket, and the first free one.
    cells: Vec<Cell<E>>,
    free: u32,
    /// One-unit buckets only: the rest of the list of the bucket of
    /// `now`, taken out of the ring, first cell first (`NIL`: none).
    drain: u32,
    /// Bit `i` set when ring bucket `i` is not empty.
    occupied: Box<[u64; RING / 64]>,
    /// Events in the ring (and the drain).
    in_ring: usize,
    /// Events of bucket `base + slots` or later, and the bucket of the
    /// earliest of them (`u64::MAX` when there is none).
    later: BinaryHeap<Reverse<Entry<E>>>,
    later_bucket: u64,
    next_seq: u64,
    /// The bucket of `now`.
    base: u64,
    /// The time of the last event popped.
    now: u64,
    /// The length past which [`Self::needs_compaction`] says yes: twice
    /// the length left by the last compaction (at least
    /// [`COMPACT_FLOOR`]).
    compact_at: usize,
    width: PhantomData<W>,
}

/// No compaction below this many waiting events: a small queue's stale
/// events cost little, and compacting it often would cost more.
const COMPACT_FLOOR: usize = 1 << 12;

/// Scheduling an event before the current time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("an event was scheduled at tick {at}, before the current tick {now}")]
pub struct SchedulingError {
    /// The requested time.
    pub at: u64,
    /// The queue's current time.
    pub now: u64,
}

impl<E: Copy, W: BucketWidth> Default for EventQueue<E, W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy, W: BucketWidth> EventQueue<E, W> {
    /// `slots - 1`: the ring index of bucket `b` is `b & MASK`.
    const MASK: usize = 64 * W::WORDS - 1;

    /// An empty queue at time 0 with buckets of the shape `W`. The ring
    /// is allocated here: a queue per run, not per event.
    pub fn new() -> Self {
        assert!(W::WORDS > 0 && W::SHIFT < 64, "an empty calendar");
        assert!(64 * W::WORDS <= RING, "a ring of more than {RING} buckets");
        EventQueue {
            lists: Box::new([EMPTY; RING]),
            cells: Vec::new(),
            free: NIL,
            drain: NIL,
            occupied: Box::new([0; RING / 64]),
            in_ring: 0,
            later: BinaryHeap::new(),
            later_bucket: u64::MAX,
            next_seq: 0,
            base: 0,
            now: 0,
            compact_at: COMPACT_FLOOR,
            width: PhantomData,
        }
    }

    /// Schedules `event` at `time`; it runs after every event already
    /// scheduled for the same time.
    #[inline(always)]
    pub fn schedule(&mut self, time: u64, event: E) -> Result<(), SchedulingError> {
        self.schedule_timer(time, event).map(|_| ())
    }

    /// Schedules `event` at `time` as [`Self::schedule`] does, and returns
    /// where it waits, to cancel it with [`Self::cancel`] before its time.
    #[inline(always)]
    pub fn schedule_timer(&mut self, time: u64, event: E) -> Result<Timer, SchedulingError> {
        // One-unit buckets: the ring starts at `now`'s bucket, `now`
        // itself (a pop moves both), so one test finds an event not
        // before the clock and within the ring.
        debug_assert!(W::SHIFT != 0 || self.base == self.now);
        if W::SHIFT == 0 && time.wrapping_sub(self.now) <= Self::MASK as u64 {
            return Ok(Timer(self.insert(time, time, event)));
        }
        if time < self.now {
            return Err(SchedulingError {
                at: time,
                now: self.now,
            });
        }
        let b = time >> W::SHIFT;
        if b - self.base <= Self::MASK as u64 {
            Ok(Timer(self.insert(b, time, event)))
        } else {
            // Heap entries need a sequence among themselves only: the
            // ring's order comes from where an event is put.
            let seq = self.next_seq;
            self.next_seq += 1;
            self.later.push(Reverse(Entry { time, seq, event }));
            self.later_bucket = self.later_bucket.min(b);
            Ok(Timer::NONE)
        }
    }

    /// Puts the event (of bucket `b`, within the ring) behind every event
    /// of its bucket not later than it, and returns its cell. Inlined into
    /// `schedule`: most events take the first two branches, a few loads
    /// and stores.
    #[inline(always)]
    fn insert(&mut self, b: u64, time: u64, event: E) -> u32 {
        let i = (b as usize) & Self::MASK & (RING - 1);
        // `NIL` is past the pool's end (`grow`): one test finds a cell
        // there or none, here and for the list's last. The cell's fields
        // are written one by one, not through a copy on the stack.
        let c = self.free;
        let c = match self.cells.get_mut(c as usize) {
            Some(free) => {
                self.free = free.next;
                free.time = time;
                free.event = event;
                free.next = NIL;
                c
            }
            None => self.grow(Cell {
                time,
                event,
                next: NIL,
            }),
        };
        let list = &mut self.lists[i];
        match self.cells.get_mut(list.tail as usize) {
            None => {
                *list = List { head: c, tail: c };
                self.occupied[i / 64] |= 1 << (i % 64);
            }
            // One-unit buckets: the last has this time.
            Some(last) if W::SHIFT == 0 || last.time <= time => {
                last.next = c;
                list.tail = c;
            }
            Some(_) => self.insert_inside(i, c),
        }
        self.in_ring += 1;
        c
    }

    /// Adds `cell` to the pool when no cell is free, and returns it.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, cell: Cell<E>) -> u32 {
        assert!(self.cells.len() < NIL as usize, "a full calendar");
        self.cells.push(cell);
        (self.cells.len() - 1) as u32
    }

    /// Links cell `c` into the non-empty list `i` behind every cell not
    /// later than it, where that is not the back (only with buckets wider
    /// than one unit: an event earlier than the last of its bucket).
    #[inline(never)]
    fn insert_inside(&mut self, i: usize, c: u32) {
        let time = self.cells[c as usize].time;
        let mut prev = NIL;
        let mut at = self.lists[i].head;
        while at != NIL && self.cells[at as usize].time <= time {
            prev = at;
            at = self.cells[at as usize].next;
        }
        self.cells[c as usize].next = at;
        match prev {
            NIL => self.lists[i].head = c,
            p => self.cells[p as usize].next = c,
        }
    }

    /// The ring bucket of the earliest event in the ring.
    #[inline(always)]
    fn front(&self) -> Option<usize> {
        if self.in_ring == 0 {
            return None;
        }
        let words = W::WORDS;
        let p = (self.base as usize) & Self::MASK & (RING - 1);
        let (w0, bit) = (p / 64, p % 64);
        let here = self.occupied[w0] & (!0u64 << bit);
        if here != 0 {
            return Some(w0 * 64 + here.trailing_zeros() as usize);
        }
        for k in 1..=words {
            let w = (w0 + k) % words;
            let bits = if k == words {
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
    pub fn peek_time(&self) -> Option<u64> {
        if self.drain != NIL {
            return Some(self.now);
        }
        match self.front() {
            Some(i) => Some(self.cells[self.lists[i].head as usize].time),
            None => self.later.peek().map(|Reverse(e)| e.time),
        }
    }

    /// Removes and returns the earliest event, advancing the clock to it.
    pub fn pop(&mut self) -> Option<(u64, E)> {
        self.pop_before(u64::MAX)
    }

    /// Removes and returns the earliest event if it is before `limit`,
    /// moving the clock to it; `None` (and nothing moves) otherwise.
    /// One-unit buckets pop from the drain, and take the next bucket's
    /// list out of the ring into it when it is empty.
    #[inline(always)]
    pub fn pop_before(&mut self, limit: u64) -> Option<(u64, E)> {
        if W::SHIFT == 0 {
            let t = self.next_time_before(limit)?;
            return self.pop_now().map(|e| (t, e));
        }
        if self.in_ring == 0 && !self.jump(limit) {
            return None;
        }
        let i = self.front()? & (RING - 1);
        let list = &mut self.lists[i];
        let c = list.head;
        let cell = &mut self.cells[c as usize];
        let Cell { time, event, next } = *cell;
        if time >= limit {
            return None;
        }
        cell.next = self.free;
        self.free = c;
        list.head = next;
        if next == NIL {
            list.tail = NIL;
            self.occupied[i / 64] &= !(1 << (i % 64));
        }
        self.in_ring -= 1;
        self.advance(time);
        Some((time, event))
    }

    /// Moves the clock to the time of the earliest event if that is before
    /// `limit`, and returns it (`None`, and nothing moves, otherwise):
    /// the events of that time then pop with [`Self::pop_now`], in order,
    /// and so do those scheduled at it meanwhile, unless they wait behind
    /// the drain (one-unit buckets: `pop_now` says `None` at the drain's
    /// end, and this finds the time again). A round model's loop runs a
    /// tick this way: the tick and the limit looked at once per tick.
    #[inline(always)]
    pub fn next_time_before(&mut self, limit: u64) -> Option<u64> {
        if W::SHIFT == 0 {
            if self.drain == NIL && !self.start_drain(limit) {
                return None;
            }
            return (self.now < limit).then_some(self.now);
        }
        let t = self.peek_time().filter(|&t| t < limit)?;
        // No event is earlier; `pop_before` moves the ring on.
        self.now = t;
        Some(t)
    }

    /// Removes and returns the next event of the clock's time (after
    /// [`Self::next_time_before`]), if there is one now.
    #[inline(always)]
    pub fn pop_now(&mut self) -> Option<E> {
        if W::SHIFT == 0 {
            // The drain's next cell: `NIL` is past the pool's end.
            let c = self.drain;
            let cell = self.cells.get_mut(c as usize)?;
            let (event, next) = (cell.event, cell.next);
            cell.next = self.free;
            self.free = c;
            self.drain = next;
            self.in_ring -= 1;
            return Some(event);
        }
        self.pop_before(self.now + 1).map(|(_, e)| e)
    }

    /// Moves the clock to `time`, and the ring with it to its bucket
    /// (bringing in the heap's events it now reaches).
    #[inline(always)]
    fn advance(&mut self, time: u64) {
        self.now = time;
        let b = time >> W::SHIFT;
        if b != self.base {
            self.base = b;
            if self.later_bucket <= b + Self::MASK as u64 {
                self.bring_in();
            }
        }
    }

    /// One-unit buckets, the drain empty: takes the list of the earliest
    /// bucket out of the ring into the drain and moves the clock to its
    /// time, if that is before `limit` (false, and nothing moves,
    /// otherwise). Once per time, so out of line.
    #[inline(never)]
    fn start_drain(&mut self, limit: u64) -> bool {
        if self.in_ring == 0 && !self.jump(limit) {
            return false;
        }
        let Some(i) = self.front() else {
            return false;
        };
        let i = i & (RING - 1);
        let head = self.lists[i].head;
        let time = self.cells[head as usize].time;
        if time >= limit {
            return false;
        }
        self.lists[i] = EMPTY;
        self.occupied[i / 64] &= !(1 << (i % 64));
        self.drain = head;
        self.advance(time);
        true
    }

    /// With the ring empty, moves the ring to the earliest event of the
    /// heap if it is before `limit` (false, and nothing moves, otherwise).
    #[cold]
    fn jump(&mut self, limit: u64) -> bool {
        match self.later.peek() {
            Some(Reverse(first)) if first.time < limit => {
                self.base = first.time >> W::SHIFT;
                self.bring_in();
                true
            }
            _ => false,
        }
    }

    /// Moves the events of the heap that are now within the ring into it,
    /// in `(time, seq)` order. Their buckets are empty: the ring held no
    /// bucket that far ahead before.
    #[cold]
    fn bring_in(&mut self) {
        self.later_bucket = u64::MAX;
        while let Some(Reverse(e)) = self.later.peek() {
            let b = e.time >> W::SHIFT;
            if b - self.base > Self::MASK as u64 {
                self.later_bucket = b;
                break;
            }
            let (t, event) = (e.time, e.event);
            self.later.pop();
            self.insert(b, t, event);
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

mod stale;
#[cfg(test)]
mod tests;
