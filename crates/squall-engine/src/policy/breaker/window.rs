//! The sliding windows a rate breaker counts calls in.
//!
//! * [`CountWindow`] — the last `size` calls (resilience4j `COUNT_BASED`,
//!   `FixedSizeSlidingWindowMetrics`): a ring.
//! * [`TimeWindow`] — the calls of the last `buckets` buckets of `width`
//!   units each (resilience4j `TIME_BASED`, `SlidingTimeWindowMetrics`:
//!   per-second buckets, the current one partial), aligned on multiples
//!   of `width`.
//! * [`RollingWindows`] — Polly's `RollingHealthMetrics`: sub-windows of
//!   `sampling / 10` (one window when the sampling duration is under
//!   200 ms), each started by the first call after the previous one ended,
//!   dropped once `sampling` has passed since it started.
//!
//! Each keeps a [`Tally`] of calls, failures and slow calls. Times are in
//! the caller's units.

use std::collections::VecDeque;

/// Calls counted in a window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Calls recorded.
    pub calls: u64,
    /// Of which failed.
    pub failures: u64,
    /// Of which slow (a slow failure is both).
    pub slow: u64,
}

impl Tally {
    fn add(&mut self, failed: bool, slow: bool) {
        self.calls += 1;
        self.failures += u64::from(failed);
        self.slow += u64::from(slow);
    }

    fn remove(&mut self, other: Tally) {
        self.calls -= other.calls;
        self.failures -= other.failures;
        self.slow -= other.slow;
    }

    /// Failed calls in percent of calls (0 with no calls).
    pub fn failure_rate(&self) -> f64 {
        percent(self.failures, self.calls)
    }

    /// Slow calls in percent of calls (0 with no calls).
    pub fn slow_rate(&self) -> f64 {
        percent(self.slow, self.calls)
    }
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

/// The last `size` calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountWindow {
    ring: Vec<(bool, bool)>,
    next: usize,
    tally: Tally,
}

impl CountWindow {
    /// An empty window of `size` calls (at least one).
    pub fn new(size: usize) -> Self {
        CountWindow {
            ring: Vec::with_capacity(size.max(1)),
            next: 0,
            tally: Tally::default(),
        }
    }

    /// Records a call; returns the window's tally after it.
    pub fn record(&mut self, failed: bool, slow: bool) -> Tally {
        let cap = self.ring.capacity().max(1);
        if self.ring.len() < cap {
            self.ring.push((failed, slow));
        } else {
            let (f, s) = self.ring[self.next];
            self.tally.remove(Tally {
                calls: 1,
                failures: u64::from(f),
                slow: u64::from(s),
            });
            self.ring[self.next] = (failed, slow);
        }
        self.next = (self.next + 1) % cap;
        self.tally.add(failed, slow);
        self.tally
    }

    /// The window's tally.
    pub fn tally(&self) -> Tally {
        self.tally
    }
}

/// The calls of the last `buckets` buckets of `width` units.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeWindow {
    width: u64,
    /// Bucket number and its tally, indexed by `number % buckets`.
    slots: Vec<(u64, Tally)>,
}

impl TimeWindow {
    /// An empty window of `buckets` buckets (at least one) of `width` units.
    pub fn new(buckets: usize, width: u64) -> Self {
        TimeWindow {
            width: width.max(1),
            slots: vec![(u64::MAX, Tally::default()); buckets.max(1)],
        }
    }

    /// Records a call at `now`; returns the window's tally after it.
    pub fn record(&mut self, now: u64, failed: bool, slow: bool) -> Tally {
        let n = now / self.width;
        let len = self.slots.len();
        let slot = &mut self.slots[(n % len as u64) as usize];
        if slot.0 != n {
            *slot = (n, Tally::default());
        }
        slot.1.add(failed, slow);
        self.tally(now)
    }

    /// The tally of the buckets still in the window at `now`.
    pub fn tally(&self, now: u64) -> Tally {
        let n = now / self.width;
        let len = self.slots.len() as u64;
        let mut t = Tally::default();
        for &(number, s) in &self.slots {
            if number <= n && n - number < len {
                t.calls += s.calls;
                t.failures += s.failures;
                t.slow += s.slow;
            }
        }
        t
    }
}

/// Polly's rolling health metrics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RollingWindows {
    window: u64,
    sampling: u64,
    windows: VecDeque<(u64, Tally)>,
}

impl RollingWindows {
    /// Sub-windows of `sampling / 10` units, or a single window when
    /// `sampling < short` (Polly: 200 ms, in the caller's units).
    pub fn new(sampling: u64, short: u64) -> Self {
        let window = if sampling < short {
            sampling
        } else {
            sampling / 10
        };
        RollingWindows {
            window: window.max(1),
            sampling: sampling.max(1),
            windows: VecDeque::new(),
        }
    }

    fn roll(&mut self, now: u64) {
        let fresh = self
            .windows
            .back()
            .is_none_or(|&(start, _)| now.saturating_sub(start) >= self.window);
        if fresh {
            self.windows.push_back((now, Tally::default()));
        }
        while self
            .windows
            .front()
            .is_some_and(|&(start, _)| now.saturating_sub(start) >= self.sampling)
        {
            self.windows.pop_front();
        }
    }

    /// Records a call at `now`; returns the tally after it.
    pub fn record(&mut self, now: u64, failed: bool) -> Tally {
        self.roll(now);
        if let Some(w) = self.windows.back_mut() {
            w.1.add(failed, false);
        }
        self.sum()
    }

    fn sum(&self) -> Tally {
        let mut t = Tally::default();
        for (_, s) in &self.windows {
            t.calls += s.calls;
            t.failures += s.failures;
        }
        t
    }

    /// Forgets every call (the breaker closed).
    pub fn reset(&mut self) {
        self.windows.clear();
    }
}

/// An open time stretched by jitter factor `f` in `[0, 1]`:
/// `wait x (1 - f + 2f·r)` (resilience4j's `IntervalFunction.ofRandomized`),
/// rounded to a whole unit; `draw` gives `r` and is called only when `f > 0`.
pub fn jittered_open(wait: u64, f: f64, draw: impl FnOnce() -> f64) -> u64 {
    let f = f.clamp(0.0, 1.0);
    if f > 0.0 {
        (wait as f64 * (1.0 - f + 2.0 * f * draw())).round() as u64
    } else {
        wait
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_window_forgets_its_oldest_call() {
        let mut w = CountWindow::new(4);
        for failed in [true, true, false, false] {
            w.record(failed, false);
        }
        assert_eq!(w.tally().failure_rate(), 50.0);
        // The fifth call pushes out the first failure: 1 of 4.
        let t = w.record(false, false);
        assert_eq!((t.calls, t.failures), (4, 1));
        assert_eq!(t.failure_rate(), 25.0);
    }

    #[test]
    fn a_time_window_drops_buckets_older_than_its_length() {
        // 10 buckets of 1000 units (a 10 s window in ms).
        let mut w = TimeWindow::new(10, 1000);
        w.record(0, true, false);
        w.record(9_999, false, true);
        assert_eq!(w.tally(9_999).calls, 2);
        // At 10 000 the bucket of second 0 has left the window.
        let t = w.tally(10_000);
        assert_eq!((t.calls, t.failures, t.slow), (1, 0, 1));
        // A long pause empties it.
        assert_eq!(w.tally(50_000).calls, 0);
    }

    #[test]
    fn polly_windows_start_at_a_call_and_expire_after_the_sampling_duration() {
        // Sampling 30 s in ms: windows of 3 s.
        let mut w = RollingWindows::new(30_000, 200);
        w.record(1_000, true);
        w.record(3_999, false); // same window (started at 1 000)
        w.record(4_000, false); // a new one
        assert_eq!(w.windows.len(), 2);
        // At 31 000 the window started at 1 000 is 30 s old: dropped.
        let t = w.record(31_000, false);
        assert_eq!((t.calls, t.failures), (2, 0));
        // Under 200 ms of sampling: one window.
        assert_eq!(RollingWindows::new(150, 200).window, 150);
    }
}
