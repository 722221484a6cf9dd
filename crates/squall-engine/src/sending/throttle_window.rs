//! The throttle ratio over a sliding window: throttled answers / answers.
//!
//! The window of `width` seconds is kept as [`SLICES`] slices of
//! `width / SLICES` each, so its memory is fixed whatever the send rate;
//! a slice leaves the window whole once its end is `width` behind. The
//! ratio of an empty window is 0 (nothing sent, nothing throttled).

use std::collections::VecDeque;

/// Slices a window is cut into.
pub const SLICES: usize = 10;

/// Answers and throttles over the last `width` seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct ThrottleWindow {
    slice: f64,
    /// `(slice index, answers, throttled)`, oldest first.
    slices: VecDeque<(i64, u64, u64)>,
}

impl ThrottleWindow {
    /// A window `width` seconds wide.
    pub fn new(width: f64) -> Self {
        ThrottleWindow {
            slice: (width / SLICES as f64).max(f64::MIN_POSITIVE),
            slices: VecDeque::with_capacity(SLICES + 1),
        }
    }

    fn index(&self, now: f64) -> i64 {
        (now / self.slice).floor() as i64
    }

    fn expire(&mut self, now: f64) {
        let current = self.index(now);
        while let Some(&(i, _, _)) = self.slices.front() {
            if current - i >= SLICES as i64 {
                self.slices.pop_front();
            } else {
                break;
            }
        }
    }

    /// Counts one answer at `now` \[s\].
    pub fn record(&mut self, now: f64, throttled: bool) {
        self.expire(now);
        let i = self.index(now);
        match self.slices.back_mut() {
            Some(last) if last.0 == i => {
                last.1 += 1;
                last.2 += u64::from(throttled);
            }
            _ => self.slices.push_back((i, 1, u64::from(throttled))),
        }
    }

    /// `(answers, throttled)` in the window at `now`.
    pub fn counts(&mut self, now: f64) -> (u64, u64) {
        self.expire(now);
        self.slices
            .iter()
            .fold((0, 0), |(a, t), &(_, sa, st)| (a + sa, t + st))
    }

    /// Throttled / answers in the window at `now` (0 when empty).
    pub fn ratio(&mut self, now: f64) -> f64 {
        match self.counts(now) {
            (0, _) => 0.0,
            (a, t) => t as f64 / a as f64,
        }
    }

    /// Forgets everything (after a rate change, so the next judgement is
    /// made on answers to the new rate).
    pub fn clear(&mut self) {
        self.slices.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_over_the_last_width() {
        // 10 s window in 1 s slices.
        let mut w = ThrottleWindow::new(10.0);
        assert_eq!(w.ratio(0.0), 0.0);
        for i in 0..10 {
            w.record(i as f64, i % 5 == 0); // throttled at 0 s and 5 s
        }
        assert_eq!(w.counts(9.5), (10, 2));
        assert_eq!(w.ratio(9.5), 0.2);
        // At 10.0 the slice [0, 1) has left: 9 answers, 1 throttled.
        assert_eq!(w.counts(10.0), (9, 1));
        // At 15.0 the slice [5, 6) has left too.
        assert_eq!(w.counts(15.0), (4, 0));
        assert_eq!(w.counts(100.0), (0, 0));
        w.record(100.0, true);
        assert_eq!(w.ratio(100.0), 1.0);
        w.clear();
        assert_eq!(w.counts(100.0), (0, 0));
    }

    #[test]
    fn memory_is_bounded_by_the_slices() {
        let mut w = ThrottleWindow::new(1.0);
        for i in 0..10_000 {
            w.record(i as f64 * 0.001, false);
        }
        assert!(w.slices.len() <= SLICES);
        assert_eq!(w.counts(9.999).0, 1000);
    }
}
