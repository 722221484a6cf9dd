//! CoDel for a queue of calls, as folly runs it
//! (`facebook/folly:folly/executors/Codel.cpp`, `Codel::overloaded`), and
//! as Thrift's `ThreadManager` calls it: once per call a worker takes from
//! the queue, with the time that call waited
//! (`facebook/fbthrift:thrift/lib/cpp/concurrency/ThreadManager.cpp`).
//! HBase's `AdaptiveLifoCoDelCallQueue.needToDrop` is the same rule.
//!
//! State: the smallest delay seen in the current interval, the interval's
//! end, whether the next call resets the smallest delay, and whether the
//! queue is overloaded. For a call that waited `delay`, at `now`:
//!
//! 1. if `now` is past the interval's end and no reset is pending: a reset
//!    is pending, the next interval ends at `now + interval`, and the queue
//!    is overloaded exactly when the smallest delay of the interval that
//!    ended exceeded `target_delay`;
//! 2. if a reset is pending: it is done, the smallest delay is this call's,
//!    and the call is kept (folly: "more than one request must come in
//!    during an interval before codel starts dropping requests");
//!    otherwise the smallest delay takes this one if it is smaller;
//! 3. the call is shed when the queue is overloaded and it waited more than
//!    `2 * target_delay` (folly's `getSloughTimeout`).
//!
//! Every comparison is strict, as folly's. At the start a reset is pending
//! and the interval ends at once (folly starts it at construction), so the
//! first call only sets the smallest delay and the second opens the first
//! whole interval. folly reads the clock; here `now` is the event's time,
//! and Thrift's cast of the delay to whole milliseconds is not made: the
//! delay is exact in engine units.

use crate::time::{Duration, Time};

/// One queue's CoDel.
#[derive(Debug, Clone)]
pub struct Codel {
    target: Duration,
    interval: Duration,
    min_delay: Duration,
    interval_end: Time,
    reset_pending: bool,
    overloaded: bool,
}

impl Codel {
    /// CoDel with its target delay and interval, started at time 0.
    pub fn new(target: Duration, interval: Duration) -> Self {
        Codel {
            target,
            interval,
            min_delay: Duration::ZERO,
            interval_end: Time::ZERO,
            reset_pending: true,
            overloaded: false,
        }
    }

    /// A worker takes, at `now`, a call that waited `delay`: true when the
    /// call is to be shed.
    pub fn shed(&mut self, now: Time, delay: Duration) -> bool {
        if now > self.interval_end && !self.reset_pending {
            self.reset_pending = true;
            self.interval_end = now.after(self.interval);
            self.overloaded = self.min_delay > self.target;
        }
        if self.reset_pending {
            self.reset_pending = false;
            self.min_delay = delay;
            return false;
        }
        if delay < self.min_delay {
            self.min_delay = delay;
        }
        self.overloaded && delay > self.target + self.target
    }

    /// Whether the last interval that ended was overloaded.
    pub fn overloaded(&self) -> bool {
        self.overloaded
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Duration {
        Duration::from_units(x)
    }
    fn at(x: u64) -> Time {
        Time::from_units(x)
    }

    /// By hand, target 5, interval 100 (units of 1 ms here):
    /// t=0 delay 20: the pending reset takes it (min 20), kept.
    /// t=10 delay 30: 10 > end 0, no reset pending: the interval that ended
    /// had min 20 > 5, overloaded; a reset is pending, the next end is 110;
    /// the reset takes 30 (min 30), kept.
    /// t=20 delay 11: overloaded and 11 > 10: shed (min 11).
    /// t=30 delay 10: not over 10: kept (min 10).
    /// t=111 delay 4: past 110: min 10 > 5, still overloaded, end 211,
    /// the reset takes 4, kept.
    /// t=120 delay 50: overloaded, 50 > 10: shed.
    /// t=212 delay 50: past 211: min 4 is not over 5, no longer
    /// overloaded; the reset takes 50, kept. t=213 delay 50: kept.
    #[test]
    fn folly_rule_by_hand() {
        let mut c = Codel::new(ms(5), ms(100));
        let trace = [
            (0, 20, false, false),
            (10, 30, false, true),
            (20, 11, true, true),
            (30, 10, false, true),
            (111, 4, false, true),
            (120, 50, true, true),
            (212, 50, false, false),
            (213, 50, false, false),
        ];
        for (now, delay, shed, overloaded) in trace {
            assert_eq!(c.shed(at(now), ms(delay)), shed, "t={now}");
            assert_eq!(c.overloaded(), overloaded, "t={now}");
        }
    }

    /// A call exactly at twice the target is kept (strict `>`), and an
    /// interval whose smallest delay equals the target is not overloaded.
    #[test]
    fn comparisons_are_strict() {
        let mut c = Codel::new(ms(5), ms(100));
        assert!(!c.shed(at(1), ms(6)));
        assert!(!c.shed(at(2), ms(6)));
        // Overloaded (6 > 5); 10 is not over 10.
        assert!(!c.shed(at(3), ms(10)));
        assert!(c.shed(at(4), ms(11)));
        let mut c = Codel::new(ms(5), ms(100));
        assert!(!c.shed(at(1), ms(5)));
        assert!(!c.shed(at(2), ms(50)));
        assert!(!c.overloaded());
        assert!(!c.shed(at(3), ms(50)));
    }
}
