//! A service station: a pool of workers and a bounded queue with its
//! [`Discipline`].
//!
//! A call that arrives is served at once when a worker is free
//! ([`Station::arrive`] answers [`Admission::Serve`]), waits in the queue
//! when there is room ([`Admission::Queued`]), or is refused
//! ([`Admission::Overflow`]: its own outcome, not the per-tick capacity's).
//! When a call leaves service, [`Station::finish`] hands the worker to the
//! queued call still waiting that the discipline picks (FIFO: the oldest;
//! LIFO: the newest), or frees it. Every discipline is non-preemptive: a
//! call in service keeps its worker until it leaves.
//!
//! A new discipline is a variant of [`Discipline`], its arms in
//! [`Station::next`] and [`Station::finish`] (entries join at the back; the discipline picks
//! which one leaves) and in `From<QueueDiscipline>`, plus its variant
//! and keyword in the language (`squall_lang::QueueDiscipline` and its
//! `ALL` list, which the resolver and its diagnostics read; the grammar
//! takes any word after `discipline`). Nothing in `simulation/` changes.
//!
//! A queued call can leave early (its queue timeout fired, its caller
//! cancelled it): the runner calls [`Station::leave_queue`] and the entry
//! stays in the queue, marked dead by the caller's generation number;
//! `finish` skips dead entries (`is_live`). Nothing is searched or removed
//! from the middle of the queue on a leave. The queue's bound counts live
//! entries only. Under LIFO the oldest entries may wait at the front for
//! as long as the queue never empties, so dead ones could pile up there:
//! when dead entries outnumber live ones (and there are more than a few),
//! `finish` drops them all in one pass, keeping the order of the live
//! ones (amortized constant time per call). The runner keeps the
//! time-weighted queue length and calls in service (`observe::gauge`).

use std::collections::VecDeque;

use squall_lang::QueueDiscipline;

/// Dead entries kept before a LIFO queue is swept, at the least.
const SWEEP_FLOOR: usize = 64;

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
    /// First in, first out: the oldest queued call (`discipline fifo`, the
    /// default).
    #[default]
    Fifo,
    /// Last in, first out: the newest queued call (`discipline lifo`).
    Lifo,
}

impl From<QueueDiscipline> for Discipline {
    fn from(d: QueueDiscipline) -> Self {
        match d {
            QueueDiscipline::Fifo => Discipline::Fifo,
            QueueDiscipline::Lifo => Discipline::Lifo,
        }
    }
}

/// The first live entry `pop` takes from `queue` (dead ones are dropped
/// on the way).
#[inline(always)]
fn pop_live<T: Copy>(
    queue: &mut VecDeque<T>,
    pop: impl Fn(&mut VecDeque<T>) -> Option<T>,
    is_live: &mut impl FnMut(T) -> bool,
) -> Option<T> {
    while let Some(c) = pop(queue) {
        if is_live(c) {
            return Some(c);
        }
    }
    None
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
            Discipline::Lifo => self.queue.pop_back(),
        }
    }

    /// Drops the dead entries once they outnumber the live ones (and the
    /// floor): only a discipline that takes from the back leaves them
    /// behind, so FIFO never sweeps. Out of line, so FIFO's call path
    /// does not carry it.
    #[inline(never)]
    fn sweep_dead(&mut self, is_live: &mut impl FnMut(T) -> bool) {
        let dead = self.queue.len().saturating_sub(self.live_queued as usize);
        if dead > SWEEP_FLOOR && dead > self.live_queued as usize {
            self.queue.retain(|&c| is_live(c));
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
        // One loop per discipline, chosen once: a `match` inside the loop
        // (`next`) cost FIFO's call path about a dozen instructions a call.
        let next = match self.discipline {
            Discipline::Fifo => pop_live(&mut self.queue, VecDeque::pop_front, &mut is_live),
            Discipline::Lifo => {
                self.sweep_dead(&mut is_live);
                pop_live(&mut self.queue, VecDeque::pop_back, &mut is_live)
            }
        };
        match next {
            Some(_) => self.live_queued -= 1,
            None => self.busy = self.busy.saturating_sub(1),
        }
        next
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

    /// LIFO, by hand: one worker busy with 1, then 2, 3, 4 queue; each
    /// freed worker takes the newest live entry: 4, then 3, then 2.
    #[test]
    fn lifo_takes_the_newest() {
        let mut s = Station::new(1, 10, Discipline::Lifo);
        assert_eq!(s.arrive(1), Admission::Serve);
        for c in [2, 3, 4] {
            assert_eq!(s.arrive(c), Admission::Queued);
        }
        assert_eq!(s.finish(|_| true), Some(4));
        // 5 joins while 4 is served: it is now the newest.
        assert_eq!(s.arrive(5), Admission::Queued);
        assert_eq!(s.finish(|_| true), Some(5));
        assert_eq!(s.finish(|_| true), Some(3));
        assert_eq!(s.finish(|_| true), Some(2));
        assert_eq!(s.finish(|_| true), None);
        assert_eq!((s.busy(), s.queued()), (0, 0));
    }

    /// LIFO skips a dead entry on top (3 left the queue) and takes the
    /// live one under it.
    #[test]
    fn lifo_skips_dead_entries() {
        let mut s = Station::new(1, 10, Discipline::Lifo);
        s.arrive(1);
        s.arrive(2);
        s.arrive(3);
        s.leave_queue();
        assert_eq!(s.finish(|c| c != 3), Some(2));
        assert_eq!(s.finish(|c| c != 3), None);
        assert_eq!((s.busy(), s.queued()), (0, 0));
    }

    /// Under LIFO the oldest entries stay at the front while newer ones
    /// keep coming; dead ones there are swept once they outnumber the
    /// live ones past the floor, so the queue's length stays within
    /// about twice the live entries plus the floor (here: 1 000 calls
    /// that each leave the queue, one served per arrival pair).
    #[test]
    fn lifo_sweeps_dead_entries_at_the_front() {
        let mut s = Station::new(1, u64::MAX, Discipline::Lifo);
        s.arrive(0u32);
        // Odd calls leave the queue at once (dead); even ones are served.
        for c in 1..=1000u32 {
            s.arrive(c);
            if c % 2 == 1 {
                s.leave_queue();
            } else {
                assert_eq!(s.finish(|c| c % 2 == 0), Some(c));
            }
            let bound = 2 * s.queued() as usize + SWEEP_FLOOR + 2;
            assert!(s.queue.len() <= bound, "{} > {bound}", s.queue.len());
        }
    }

    #[test]
    fn no_room_means_refused_when_busy() {
        let mut s = Station::new(1, 0, Discipline::Fifo);
        assert_eq!(s.arrive(1), Admission::Serve);
        assert_eq!(s.arrive(2), Admission::Overflow);
    }
}
