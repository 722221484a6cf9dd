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
//! Beyond one FIFO or LIFO line ([`Station::ordered`]: adaptive LIFO,
//! CoDel's shedding, priority classes) the queue is an
//! [`Ordered`](super::ordered::Ordered), boxed, which has the rule; a
//! call it sheds at a take is kept there for the runner
//! ([`Station::take_shed`]). A new discipline is an arm there (its
//! [`Order`](super::ordered::Order)) or, for a plain line, a variant of
//! [`Discipline`] with its line's arms in [`Station::finish`] and
//! [`Station::take_free`]; plus its keyword in the language
//! (`squall_lang::QueueDiscipline::KEYWORDS`, which the resolver and its
//! diagnostics read) and its construction in `node.rs`. Nothing in
//! `simulation/` changes.
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

use squall_lang::{Model, QueueDiscipline, ServerSpec};

use crate::policy::codel::Codel;
use crate::time::{Resolution, Time};

use super::ordered::{Order, Ordered};

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

/// The queue: one plain line, or an [`Ordered`] one (boxed). The line's
/// kind is the discipline, so a plain line's station is as small as it
/// was before there were other kinds (a tag beside the line).
#[derive(Debug, Clone)]
enum Line<T> {
    Fifo(VecDeque<T>),
    Lifo(VecDeque<T>),
    Ordered(Box<Ordered<T>>),
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
    line: Line<T>,
    live_queued: u64,
}

impl<T: Copy> Station<T> {
    /// `workers` workers (`u32::MAX`: no limit) and room for `room` waiting
    /// calls, taken in the order of `discipline`.
    pub fn new(workers: u32, room: u64, discipline: Discipline) -> Self {
        let line = match discipline {
            Discipline::Fifo => Line::Fifo(VecDeque::new()),
            Discipline::Lifo => Line::Lifo(VecDeque::new()),
        };
        Station {
            workers,
            busy: 0,
            room,
            line,
            live_queued: 0,
        }
    }

    /// `workers` workers and room for `room` waiting calls in an
    /// [`Ordered`] queue.
    pub fn ordered(workers: u32, room: u64, ordered: Ordered<T>) -> Self {
        Station {
            line: Line::Ordered(Box::new(ordered)),
            ..Station::new(workers, room, Discipline::Fifo)
        }
    }

    /// Drops the dead entries of a LIFO `queue` once they outnumber the
    /// `live` ones (and the floor): only a discipline that takes from the
    /// back leaves them behind, so FIFO never sweeps. Out of line, so
    /// FIFO's call path does not carry it.
    #[inline(never)]
    fn sweep_dead(queue: &mut VecDeque<T>, live: u64, is_live: &mut impl FnMut(T) -> bool) {
        let dead = queue.len().saturating_sub(live as usize);
        if dead > SWEEP_FLOOR && dead > live as usize {
            queue.retain(|&c| is_live(c));
        }
    }

    /// A call arrives at `now`; `source` is asked for its source only by
    /// an [`Ordered`] queue.
    #[inline]
    pub fn arrive(&mut self, call: T, now: Time, source: impl FnOnce() -> usize) -> Admission {
        let queue = match &mut self.line {
            Line::Fifo(q) | Line::Lifo(q) => q,
            Line::Ordered(_) => return self.arrive_ordered(call, now, source()),
        };
        if self.busy < self.workers {
            self.busy += 1;
            Admission::Serve
        } else if self.live_queued < self.room {
            queue.push_back(call);
            self.live_queued += 1;
            Admission::Queued
        } else {
            Admission::Overflow
        }
    }

    /// [`arrive`](Self::arrive) at an [`Ordered`] queue: out of line.
    #[cold]
    #[inline(never)]
    fn arrive_ordered(&mut self, call: T, now: Time, source: usize) -> Admission {
        let Line::Ordered(o) = &mut self.line else {
            return Admission::Overflow;
        };
        if self.busy < self.workers {
            self.busy += 1;
            o.served_at_once(now);
            Admission::Serve
        } else if self.live_queued < self.room {
            o.push(call, source, now);
            self.live_queued += 1;
            Admission::Queued
        } else {
            Admission::Overflow
        }
    }

    /// A call its [`Ordered`] queue shed at the last take, left to answer.
    #[inline]
    pub fn take_shed(&mut self) -> Option<T> {
        match &mut self.line {
            Line::Ordered(o) => o.take_shed(),
            _ => None,
        }
    }

    /// A queued call leaves without service (its entry is skipped later).
    pub fn leave_queue(&mut self) {
        self.live_queued = self.live_queued.saturating_sub(1);
    }

    /// A call leaves service at `now`: the next live queued call takes the
    /// worker (returned), or the worker is freed. The line's kind is read
    /// here, inlined where the runner frees a worker, and each kind has a
    /// function of its own: FIFO's makes no call, so it saves no
    /// registers (a `match` inside one function made every kind pay for
    /// LIFO's sweep, about a dozen instructions a call).
    ///
    /// An empty plain line (the usual case where workers keep up) frees
    /// the worker here, with no call: what [`finish_line`] does when it
    /// finds no entry, whether or not a fault left fewer workers than
    /// calls in service (`empty_line_frees_as_finish_line_does` holds
    /// the two ways together).
    ///
    /// [`finish_line`]: Self::finish_line
    #[inline]
    pub fn finish(&mut self, now: Time, is_live: impl FnMut(T) -> bool) -> Option<T> {
        match &self.line {
            Line::Fifo(q) | Line::Lifo(q) if q.is_empty() => {
                self.busy = self.busy.saturating_sub(1);
                None
            }
            Line::Fifo(_) => self.finish_line::<false>(is_live),
            Line::Lifo(_) => self.finish_line::<true>(is_live),
            Line::Ordered(_) => self.finish_ordered(now, is_live),
        }
    }

    /// [`finish`](Self::finish) on a plain line: from its newest end
    /// (LIFO, which sweeps its dead entries first) or its oldest: one
    /// function for each.
    #[inline(never)]
    fn finish_line<const NEWEST: bool>(&mut self, mut is_live: impl FnMut(T) -> bool) -> Option<T> {
        if self.busy > self.workers {
            // Fewer workers than calls in service (a fault): this one goes.
            self.busy -= 1;
            return None;
        }
        let live = self.live_queued;
        let next = match &mut self.line {
            Line::Fifo(q) => pop_live(q, VecDeque::pop_front, &mut is_live),
            Line::Lifo(q) if NEWEST => {
                Self::sweep_dead(q, live, &mut is_live);
                pop_live(q, VecDeque::pop_back, &mut is_live)
            }
            _ => None,
        };
        match next {
            Some(_) => self.live_queued -= 1,
            None => self.busy = self.busy.saturating_sub(1),
        }
        next
    }

    /// [`finish`](Self::finish) at an [`Ordered`] queue: out of line.
    #[cold]
    #[inline(never)]
    fn finish_ordered(&mut self, now: Time, mut is_live: impl FnMut(T) -> bool) -> Option<T> {
        if self.busy > self.workers {
            self.busy -= 1;
            return None;
        }
        let next = self.take_ordered(now, &mut is_live);
        if next.is_none() {
            self.busy = self.busy.saturating_sub(1);
        }
        next
    }

    /// The call an [`Ordered`] queue keeps at `now` (it counts the calls
    /// it takes and sheds out of the live ones).
    fn take_ordered(&mut self, now: Time, is_live: &mut impl FnMut(T) -> bool) -> Option<T> {
        match &mut self.line {
            Line::Ordered(o) => o.take(now, &mut self.live_queued, is_live),
            _ => None,
        }
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
    /// the number at `now`: the next live call, which takes it.
    pub fn take_free(&mut self, now: Time, mut is_live: impl FnMut(T) -> bool) -> Option<T> {
        if self.busy >= self.workers {
            return None;
        }
        let (queue, newest) = match &mut self.line {
            Line::Fifo(q) => (q, false),
            Line::Lifo(q) => (q, true),
            Line::Ordered(_) => {
                let next = self.take_ordered(now, &mut is_live);
                if next.is_some() {
                    self.busy += 1;
                }
                return next;
            }
        };
        while let Some(c) = if newest {
            queue.pop_back()
        } else {
            queue.pop_front()
        } {
            if is_live(c) {
                self.live_queued -= 1;
                self.busy += 1;
                return Some(c);
            }
        }
        None
    }
}

impl<T: Copy> Station<T> {
    /// The workers and queue of a node with `w` workers and server spec
    /// `s`: one plain line for FIFO or LIFO when the model's sources have
    /// one priority among them, else an [`Ordered`] queue (a class per
    /// priority, the discipline's order in each, CoDel with adaptive LIFO
    /// or `codel`).
    pub(crate) fn for_server(w: u32, s: &ServerSpec, model: &Model, res: Resolution) -> Station<T> {
        let room = s.queue.unwrap_or(0);
        let priorities: Vec<u32> = model.sources.iter().map(|src| src.priority).collect();
        let classes = priorities.iter().any(|&p| p != priorities[0]);
        let (order, codel) = match &s.discipline {
            QueueDiscipline::Fifo if !classes => return Station::new(w, room, Discipline::Fifo),
            QueueDiscipline::Lifo if !classes => return Station::new(w, room, Discipline::Lifo),
            QueueDiscipline::Fifo => (Order::Fifo, None),
            QueueDiscipline::Lifo => (Order::Lifo, None),
            QueueDiscipline::AdaptiveLifo(a) => (
                Order::Adaptive {
                    lifo_above: a.lifo_above,
                },
                Some(Codel::new(
                    res.duration(a.target_delay),
                    res.duration(a.interval),
                )),
            ),
            // fbthrift's ThreadManager: FIFO, CoDel asked of each call taken.
            QueueDiscipline::Codel(c) => (
                Order::Fifo,
                Some(Codel::new(
                    res.duration(c.target_delay),
                    res.duration(c.interval),
                )),
            ),
        };
        Station::ordered(w, room, Ordered::new(&priorities, order, codel))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: Time = Time::ZERO;

    #[test]
    fn serve_queue_overflow_fifo() {
        let mut s = Station::new(2, 2, Discipline::Fifo);
        assert_eq!(s.arrive(1, T0, || 0), Admission::Serve);
        assert_eq!(s.arrive(2, T0, || 0), Admission::Serve);
        assert_eq!(s.arrive(3, T0, || 0), Admission::Queued);
        assert_eq!(s.arrive(4, T0, || 0), Admission::Queued);
        assert_eq!(s.arrive(5, T0, || 0), Admission::Overflow);
        assert_eq!((s.busy(), s.queued()), (2, 2));
        assert_eq!(s.finish(T0, |_| true), Some(3));
        assert_eq!(s.finish(T0, |_| true), Some(4));
        assert_eq!(s.finish(T0, |_| true), None);
        assert_eq!(s.finish(T0, |_| true), None);
        assert_eq!((s.busy(), s.queued()), (0, 0));
    }

    #[test]
    fn dead_entries_are_skipped_and_free_their_room() {
        let mut s = Station::new(1, 2, Discipline::Fifo);
        s.arrive(1, T0, || 0);
        s.arrive(2, T0, || 0);
        s.arrive(3, T0, || 0);
        // Call 2 times out in the queue: its room is free at once.
        s.leave_queue();
        assert_eq!(s.arrive(4, T0, || 0), Admission::Queued);
        assert_eq!(s.arrive(5, T0, || 0), Admission::Overflow);
        assert_eq!(s.finish(T0, |c| c != 2), Some(3));
        assert_eq!(s.finish(T0, |c| c != 2), Some(4));
        assert_eq!(s.finish(T0, |c| c != 2), None);
        assert_eq!(s.busy(), 0);
    }

    #[test]
    fn fewer_workers_then_more() {
        let mut s = Station::new(2, 10, Discipline::Fifo);
        s.arrive(1, T0, || 0);
        s.arrive(2, T0, || 0);
        s.set_workers(1);
        assert_eq!(s.arrive(3, T0, || 0), Admission::Queued);
        // One leaves: its worker goes, 3 still waits; the next one hands
        // its worker to 3.
        assert_eq!(s.finish(T0, |_| true), None);
        assert_eq!((s.busy(), s.queued()), (1, 1));
        assert_eq!(s.finish(T0, |_| true), Some(3));
        assert_eq!((s.busy(), s.queued()), (1, 0));
        s.arrive(4, T0, || 0);
        s.set_workers(3);
        // Raised to 3: the queued 4 takes a free worker.
        assert_eq!(s.take_free(T0, |_| true), Some(4));
        assert_eq!(s.busy(), 2);
        assert_eq!(s.take_free(T0, |_| true), None);
    }

    /// LIFO, by hand: one worker busy with 1, then 2, 3, 4 queue; each
    /// freed worker takes the newest live entry: 4, then 3, then 2.
    #[test]
    fn lifo_takes_the_newest() {
        let mut s = Station::new(1, 10, Discipline::Lifo);
        assert_eq!(s.arrive(1, T0, || 0), Admission::Serve);
        for c in [2, 3, 4] {
            assert_eq!(s.arrive(c, T0, || 0), Admission::Queued);
        }
        assert_eq!(s.finish(T0, |_| true), Some(4));
        // 5 joins while 4 is served: it is now the newest.
        assert_eq!(s.arrive(5, T0, || 0), Admission::Queued);
        assert_eq!(s.finish(T0, |_| true), Some(5));
        assert_eq!(s.finish(T0, |_| true), Some(3));
        assert_eq!(s.finish(T0, |_| true), Some(2));
        assert_eq!(s.finish(T0, |_| true), None);
        assert_eq!((s.busy(), s.queued()), (0, 0));
    }

    /// LIFO skips a dead entry on top (3 left the queue) and takes the
    /// live one under it.
    #[test]
    fn lifo_skips_dead_entries() {
        let mut s = Station::new(1, 10, Discipline::Lifo);
        s.arrive(1, T0, || 0);
        s.arrive(2, T0, || 0);
        s.arrive(3, T0, || 0);
        s.leave_queue();
        assert_eq!(s.finish(T0, |c| c != 3), Some(2));
        assert_eq!(s.finish(T0, |c| c != 3), None);
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
        s.arrive(0u32, T0, || 0);
        // Odd calls leave the queue at once (dead); even ones are served.
        for c in 1..=1000u32 {
            s.arrive(c, T0, || 0);
            if c % 2 == 1 {
                s.leave_queue();
            } else {
                assert_eq!(s.finish(T0, |c| c % 2 == 0), Some(c));
            }
            let bound = 2 * s.queued() as usize + SWEEP_FLOOR + 2;
            let held = match &s.line {
                Line::Lifo(q) => q.len(),
                _ => unreachable!("a LIFO station"),
            };
            assert!(held <= bound, "{held} > {bound}");
        }
    }

    /// The shortcut of `finish` for an empty plain line against the
    /// general way (`finish_line`), for each plain discipline, with calls
    /// in service below, at and above the workers (a fault lowered them)
    /// and none: the same answer (no call) and the same calls in service.
    #[test]
    fn empty_line_frees_as_finish_line_does() {
        for discipline in [Discipline::Fifo, Discipline::Lifo] {
            for (workers, busy) in [(3, 2), (3, 3), (1, 3), (2, 0)] {
                let mut short = Station::<u32>::new(workers, 5, discipline);
                short.busy = busy;
                let mut general = short.clone();
                let newest = discipline == Discipline::Lifo;
                let want = if newest {
                    general.finish_line::<true>(|_| true)
                } else {
                    general.finish_line::<false>(|_| true)
                };
                assert_eq!(short.finish(T0, |_| true), want);
                assert_eq!(short.busy, general.busy, "{discipline:?} {workers} {busy}");
            }
        }
    }

    #[test]
    fn no_room_means_refused_when_busy() {
        let mut s = Station::new(1, 0, Discipline::Fifo);
        assert_eq!(s.arrive(1, T0, || 0), Admission::Serve);
        assert_eq!(s.arrive(2, T0, || 0), Admission::Overflow);
    }
}
