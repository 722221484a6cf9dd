//! The queue of a [`Station`](super::station::Station) that is more than
//! one FIFO or LIFO line: one line per priority class (sources of more
//! than one `priority`), adaptive LIFO, CoDel's shedding. Boxed behind the
//! station, so a plain FIFO or LIFO queue keeps its own fast path.
//!
//! # The rule
//!
//! A call joins the back of its class's line, with the time it joined. A
//! freed worker takes, from the highest class with a live call waiting:
//!
//! - `fifo` and `codel`: the oldest; `lifo`: the newest;
//! - `adaptive_lifo`: the newest while more calls wait than its threshold
//!   (counted over every class, before this one is taken), the oldest
//!   otherwise: HHVM's `JobQueue::dequeueMaybeExpiredImpl`
//!   (`facebook/hhvm:hphp/util/job-queue.h`: `m_jobCount >=
//!   m_lifoSwitchThreshold` after the taken job is counted out, the count
//!   over all priorities, the end chosen within the highest non-empty
//!   priority) and HBase's `AdaptiveLifoCoDelCallQueue.take`
//!   (`apache/hbase:hbase-server/src/main/java/org/apache/hadoop/hbase/ipc/AdaptiveLifoCoDelCallQueue.java`:
//!   `queue.size() / currentQueueLimit > lifoThreshold`). So the mode is
//!   decided afresh at every take, from the number waiting; nothing else
//!   remembers it.
//!
//! With CoDel ([`Codel`]: adaptive LIFO, and `codel`, which is FIFO with
//! it, as fbthrift's `ThreadManager` (`facebook/fbthrift:
//! thrift/lib/cpp/concurrency/ThreadManager.cpp`) asks folly's
//! `Codel::overloaded` of each task its worker takes from a FIFO queue
//! and expires it when overloaded), the call taken is asked about:
//! its wait (now minus the time it joined) goes to [`Codel::shed`], and a
//! shed call leaves without service (kept in [`Ordered::shed`] for the
//! runner, which answers it as a queue timeout) while the worker takes
//! again, by the same rule, until it keeps a call or the queue is empty
//! (HBase's `take` loop; Thrift's worker loop `continue`s). A call served
//! at once, without waiting, is asked about too with a wait of 0: in
//! folly, Thrift and HBase every call passes through the queue, so an
//! idle server's calls are what tell CoDel the queue was empty.
//!
//! Dead entries (calls that left the queue on their own) are skipped as
//! in the station, and swept once they outnumber the live ones.

use std::collections::VecDeque;

use crate::policy::codel::Codel;
use crate::time::Time;

/// Dead entries kept before the lines are swept, at the least.
const SWEEP_FLOOR: usize = 64;

/// Which end of its line a freed worker takes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Order {
    /// The oldest.
    Fifo,
    /// The newest.
    Lifo,
    /// The newest while more than this many calls wait, else the oldest.
    Adaptive { lifo_above: f64 },
}

/// Lines per class, their order, and CoDel.
#[derive(Debug, Clone)]
pub(crate) struct Ordered<T> {
    /// One line per class, the highest priority first.
    lines: Vec<VecDeque<(T, Time)>>,
    /// The class of each source's calls.
    class_of: Vec<u16>,
    order: Order,
    codel: Option<Codel>,
    /// Calls shed by the last takes, in the order shed, for the runner to
    /// answer.
    shed: VecDeque<T>,
}

impl<T: Copy> Ordered<T> {
    /// Lines for the sources' `priorities` (one class per distinct value,
    /// the highest first), taken in `order`, with `codel` if any.
    pub(crate) fn new(priorities: &[u32], order: Order, codel: Option<Codel>) -> Self {
        let mut distinct: Vec<u32> = priorities.to_vec();
        distinct.sort_unstable_by(|a, b| b.cmp(a));
        distinct.dedup();
        let class_of = priorities
            .iter()
            .map(|p| distinct.iter().position(|d| d == p).unwrap_or(0) as u16)
            .collect();
        Ordered {
            lines: vec![VecDeque::new(); distinct.len().max(1)],
            class_of,
            order,
            codel,
            shed: VecDeque::new(),
        }
    }

    /// A call of source `source` joins its line at `now`.
    pub(crate) fn push(&mut self, call: T, source: usize, now: Time) {
        let class = self.class_of.get(source).copied().unwrap_or(0) as usize;
        self.lines[class].push_back((call, now));
    }

    /// A call was served at once at `now`: CoDel hears a wait of 0.
    pub(crate) fn served_at_once(&mut self, now: Time) {
        if let Some(c) = self.codel.as_mut() {
            c.shed(now, crate::time::Duration::ZERO);
        }
    }

    /// A freed worker takes a call at `now` (`live`: the live calls
    /// waiting, lowered for each one taken or shed): the call it keeps.
    pub(crate) fn take(
        &mut self,
        now: Time,
        live: &mut u64,
        is_live: &mut impl FnMut(T) -> bool,
    ) -> Option<T> {
        self.sweep_dead(*live, is_live);
        loop {
            let newest = match self.order {
                Order::Fifo => false,
                Order::Lifo => true,
                Order::Adaptive { lifo_above } => *live as f64 > lifo_above,
            };
            let (call, joined) = self.pop(newest, is_live)?;
            *live -= 1;
            if let Some(c) = self.codel.as_mut() {
                if c.shed(now, now.since(joined)) {
                    self.shed.push_back(call);
                    continue;
                }
            }
            return Some(call);
        }
    }

    /// The first live entry from the highest class that has one, from its
    /// newest end or its oldest (dead ones are dropped on the way).
    fn pop(&mut self, newest: bool, is_live: &mut impl FnMut(T) -> bool) -> Option<(T, Time)> {
        for line in &mut self.lines {
            loop {
                let e = if newest {
                    line.pop_back()
                } else {
                    line.pop_front()
                };
                match e {
                    Some(e) if is_live(e.0) => return Some(e),
                    Some(_) => {}
                    None => break,
                }
            }
        }
        None
    }

    /// Drops the dead entries once they outnumber the `live` ones (and the
    /// floor).
    fn sweep_dead(&mut self, live: u64, is_live: &mut impl FnMut(T) -> bool) {
        let held: usize = self.lines.iter().map(VecDeque::len).sum();
        let dead = held.saturating_sub(live as usize);
        if dead > SWEEP_FLOOR && dead > live as usize {
            for line in &mut self.lines {
                line.retain(|e| is_live(e.0));
            }
        }
    }

    /// The first call shed by the last takes that is left to answer.
    pub(crate) fn take_shed(&mut self) -> Option<T> {
        self.shed.pop_front()
    }

    /// Entries held, live or dead (a test's bound).
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.lines.iter().map(VecDeque::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Duration;

    fn at(x: u64) -> Time {
        Time::from_units(x)
    }

    /// Sources 0 and 2 have priority 5, source 1 priority 9: two classes,
    /// 9 first. LIFO within a class: of the waiting 10, 11 (class 5) and
    /// 20, 21 (class 9), a worker takes 21, 20, then 11, 10.
    #[test]
    fn highest_class_first_lifo_within() {
        let mut o = Ordered::new(&[5, 9, 5], Order::Lifo, None);
        let mut live = 0;
        for (call, source) in [(10, 0), (20, 1), (11, 2), (21, 1)] {
            o.push(call, source, at(0));
            live += 1;
        }
        let mut all = |_| true;
        let taken: Vec<u32> = (0..5)
            .filter_map(|_| o.take(at(1), &mut live, &mut all))
            .collect();
        assert_eq!(taken, [21, 20, 11, 10]);
        assert_eq!(live, 0);
    }

    /// Adaptive: the count that decides the end is over every class. With
    /// LIFO above 2: 10, 11 (low) and 20 (high) wait: 3 > 2, so the high
    /// class's newest (20, its only one); then 2 wait: FIFO in the low
    /// class, 10, then 11.
    #[test]
    fn adaptive_counts_every_class() {
        let mut o = Ordered::new(&[0, 1], Order::Adaptive { lifo_above: 2.0 }, None);
        let mut live = 0;
        for (call, source) in [(10, 0), (11, 0), (20, 1)] {
            o.push(call, source, at(0));
            live += 1;
        }
        let mut all = |_| true;
        assert_eq!(o.take(at(1), &mut live, &mut all), Some(20));
        assert_eq!(o.take(at(1), &mut live, &mut all), Some(10));
        assert_eq!(o.take(at(1), &mut live, &mut all), Some(11));
        assert_eq!(o.take(at(1), &mut live, &mut all), None);
    }

    /// CoDel's shed calls are kept in order and counted out of the live
    /// ones; dead entries are skipped without asking CoDel. All join at
    /// 0; target 5, interval 100: the first take (at 10, wait 10) resets
    /// and keeps 1; at 200 the interval is over with min 10 > 5
    /// (overloaded), the reset keeps 2 (wait 200); 3 (dead) is skipped; 4
    /// (wait 200 > 10) is shed, then 5 too, and nothing is left.
    #[test]
    fn shed_in_order_and_dead_skipped() {
        let codel = Codel::new(Duration::from_units(5), Duration::from_units(100));
        let mut o = Ordered::new(&[0], Order::Fifo, Some(codel));
        for call in 1..=5u32 {
            o.push(call, 0, at(0));
        }
        let mut live = 4; // 3 left the queue
        let mut is_live = |c| c != 3;
        assert_eq!(o.take(at(10), &mut live, &mut is_live), Some(1));
        assert_eq!(o.take(at(200), &mut live, &mut is_live), Some(2));
        assert_eq!(o.take(at(200), &mut live, &mut is_live), None);
        assert_eq!(
            (o.take_shed(), o.take_shed(), o.take_shed()),
            (Some(4), Some(5), None)
        );
        assert_eq!((live, o.held()), (0, 0));
    }
}
