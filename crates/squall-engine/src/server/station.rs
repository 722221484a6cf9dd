//! A service station: a pool of workers and a bounded queue with its
//! [`Discipline`].
//!
//! A call that arrives is served at once when a worker is free
//! ([`Station::arrive`] answers [`Admission::Serve`]), waits in the queue
//! when there is room ([`Admission::Queued`]), or is refused
//! ([`Admission::Overflow`]: its own outcome, not the per-tick capacity's).
//! When a call leaves service, [`Station::finish`] hands the worker to the
//! queued call still waiting that the discipline picks (FIFO: the oldest),
//! or frees it.
//!
//! A new discipline is a variant of [`Discipline`] and its arm in
//! [`Station::next`] (entries join at the back; the discipline picks
//! which one leaves), plus its keyword in the language.
//!
//! A queued call can leave early (its queue timeout fired, its caller
//! cancelled it): the runner calls [`Station::leave_queue`] and the entry
//! stays in the queue, marked dead by the caller's generation number;
//! `finish` skips dead entries (`is_live`). Nothing is searched or removed
//! from the middle of the queue. The queue's bound counts live entries
//! only. The runner keeps the time-weighted queue length and calls in
//! service (`observe::gauge`).

use std::collections::VecDeque;

/// What happens to a call that arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// A worker took it.
    Serve,
    /// It waits in the queue.
    Queued,
    /// No worker and no room: refused.
    Overflow,
}

/// The order in which queued calls take a free worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Discipline {
    /// First in, first out: the oldest queued call (the only discipline
    /// the language has today).
    #[default]
    Fifo,
}

/// Workers and a queue of `T` (the runner's handle on a queued call).
#[derive(Debug, Clone)]
pub struct Station<T> {
    workers: u32,
    busy: u32,
    room: u64,
    queue: VecDeque<T>,
    live_queued: u64,
    discipline: Discipline,
}

impl<T: Copy> Station<T> {
    /// `workers` workers (`u32::MAX`: no limit) and room for `room` waiting
    /// calls, taken in the order of `discipline`.
    pub fn new(workers: u32, room: u64, discipline: Discipline) -> Self {
        Station {
            workers,
            busy: 0,
            room,
            queue: VecDeque::new(),
            live_queued: 0,
            discipline,
        }
    }

    /// The entry the discipline takes next, live or not.
    #[inline]
    fn next(&mut self) -> Option<T> {
        match self.discipline {
            Discipline::Fifo => self.queue.pop_front(),
        }
    }

    /// A call arrives.
    pub fn arrive(&mut self, call: T) -> Admission {
        if self.busy < self.workers {
            self.busy += 1;
            Admission::Serve
        } else if self.live_queued < self.room {
            self.queue.push_back(call);
            self.live_queued += 1;
            Admission::Queued
        } else {
            Admission::Overflow
        }
    }

    /// A queued call leaves without service (its entry is skipped later).
    pub fn leave_queue(&mut self) {
        self.live_queued = self.live_queued.saturating_sub(1);
    }

    /// A call leaves service: the next live queued call takes the worker
    /// (returned), or the worker is freed.
    pub fn finish(&mut self, mut is_live: impl FnMut(T) -> bool) -> Option<T> {
        if self.busy > self.workers {
            // Fewer workers than calls in service (a fault): this one goes.
            self.busy -= 1;
            return None;
        }
        while let Some(c) = self.next() {
            if is_live(c) {
                self.live_queued -= 1;
                return Some(c);
            }
        }
        self.busy = self.busy.saturating_sub(1);
        None
    }

    /// Changes the number of workers (a fault); calls in service keep
    /// theirs, new ones wait until `busy` falls below the new number.
    pub fn set_workers(&mut self, workers: u32) {
        self.workers = workers;
    }

    /// Calls in service.
    #[cfg(test)]
    pub fn busy(&self) -> u32 {
        self.busy
    }

    /// Calls waiting (live).
    #[cfg(test)]
    pub fn queued(&self) -> u64 {
        self.live_queued
    }

    /// A worker is free to take a queued call after `set_workers` raised
    /// the number: the next live call, which takes it.
    pub fn take_free(&mut self, mut is_live: impl FnMut(T) -> bool) -> Option<T> {
        if self.busy >= self.workers {
            return None;
        }
        while let Some(c) = self.next() {
            if is_live(c) {
                self.live_queued -= 1;
                self.busy += 1;
                return Some(c);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serve_queue_overflow_fifo() {
        let mut s = Station::new(2, 2, Discipline::Fifo);
        assert_eq!(s.arrive(1), Admission::Serve);
        assert_eq!(s.arrive(2), Admission::Serve);
        assert_eq!(s.arrive(3), Admission::Queued);
        assert_eq!(s.arrive(4), Admission::Queued);
        assert_eq!(s.arrive(5), Admission::Overflow);
        assert_eq!((s.busy(), s.queued()), (2, 2));
        assert_eq!(s.finish(|_| true), Some(3));
        assert_eq!(s.finish(|_| true), Some(4));
        assert_eq!(s.finish(|_| true), None);
        assert_eq!(s.finish(|_| true), None);
        assert_eq!((s.busy(), s.queued()), (0, 0));
    }

    #[test]
    fn dead_entries_are_skipped_and_free_their_room() {
        let mut s = Station::new(1, 2, Discipline::Fifo);
        s.arrive(1);
        s.arrive(2);
        s.arrive(3);
        // Call 2 times out in the queue: its room is free at once.
        s.leave_queue();
        assert_eq!(s.arrive(4), Admission::Queued);
        assert_eq!(s.arrive(5), Admission::Overflow);
        assert_eq!(s.finish(|c| c != 2), Some(3));
        assert_eq!(s.finish(|c| c != 2), Some(4));
        assert_eq!(s.finish(|c| c != 2), None);
        assert_eq!(s.busy(), 0);
    }

    #[test]
    fn fewer_workers_then_more() {
        let mut s = Station::new(2, 10, Discipline::Fifo);
        s.arrive(1);
        s.arrive(2);
        s.set_workers(1);
        assert_eq!(s.arrive(3), Admission::Queued);
        // One leaves: its worker goes, 3 still waits; the next one hands
        // its worker to 3.
        assert_eq!(s.finish(|_| true), None);
        assert_eq!((s.busy(), s.queued()), (1, 1));
        assert_eq!(s.finish(|_| true), Some(3));
        assert_eq!((s.busy(), s.queued()), (1, 0));
        s.arrive(4);
        s.set_workers(3);
        // Raised to 3: the queued 4 takes a free worker.
        assert_eq!(s.take_free(|_| true), Some(4));
        assert_eq!(s.busy(), 2);
        assert_eq!(s.take_free(|_| true), None);
    }

    #[test]
    fn no_room_means_refused_when_busy() {
        let mut s = Station::new(1, 0, Discipline::Fifo);
        assert_eq!(s.arrive(1), Admission::Serve);
        assert_eq!(s.arrive(2), Admission::Overflow);
    }
}
