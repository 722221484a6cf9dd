//! AIMD: additive increase, multiplicative decrease of the send rate,
//! judged on the throttle ratio over a sliding window.
//!
//! Every `every` seconds (at the first answer on or after the moment) the
//! window's throttle ratio decides:
//!
//! | ratio over the window  | new rate                         |
//! |------------------------|----------------------------------|
//! | `> threshold`          | `max(min, rate * decrease)`      |
//! | `<= threshold` (clean) | `min(max, rate + step)`          |
//!
//! Slow up, fast down. A decrease clears the window so the next judgement
//! is made on answers to the new rate, not again on the throttles that
//! caused this one. Rates are per second; the document's "halve above a
//! small threshold, raise in small steps while clean" is `decrease 0.5`.

pub use squall_lang::model::sending::AimdSpec;

use super::throttle_window::ThrottleWindow;

/// An AIMD controller.
#[derive(Debug, Clone, PartialEq)]
pub struct Aimd {
    spec: AimdSpec,
    rate: f64,
    window: ThrottleWindow,
    next: f64,
}

impl Aimd {
    /// Starts at `rate` per second; the first judgement is `every` seconds
    /// after `now`.
    pub fn new(spec: AimdSpec, rate: f64, now: f64) -> Self {
        Aimd {
            spec,
            rate: rate.clamp(spec.min, spec.max.max(spec.min)),
            window: ThrottleWindow::new(spec.window),
            next: now + spec.every,
        }
    }

    /// The send rate \[per s\].
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Counts an answer at `now` \[s\] and judges when it is time.
    pub fn on_response(&mut self, now: f64, throttled: bool) {
        self.window.record(now, throttled);
        if now < self.next {
            return;
        }
        self.next = now + self.spec.every;
        let s = self.spec;
        if self.window.ratio(now) > s.threshold {
            self.rate = (self.rate * s.decrease).max(s.min);
            self.window.clear();
        } else {
            self.rate = (self.rate + s.step).min(s.max.max(s.min));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: AimdSpec = AimdSpec {
        threshold: 0.05,
        decrease: 0.5,
        step: 1.0,
        every: 1.0,
        window: 10.0,
        min: 1.0,
        max: 100.0,
    };

    #[test]
    fn halves_above_the_threshold_and_steps_while_clean() {
        let mut a = Aimd::new(SPEC, 20.0, 0.0);
        // Before the first judgement nothing moves.
        a.on_response(0.5, true);
        assert_eq!(a.rate(), 20.0);
        // At 1.0: 1 of 2 throttled (0.5 > 0.05): halve.
        a.on_response(1.0, false);
        assert_eq!(a.rate(), 10.0);
        // The window was cleared: 19 clean answers and one throttle is
        // exactly 0.05, not above: step up at 2.0.
        for i in 0..19 {
            a.on_response(1.1 + i as f64 * 0.01, false);
        }
        a.on_response(2.0, true);
        assert_eq!(a.rate(), 11.0);
        // Clean again at 3.0: ratio 1/21 <= 0.05, step.
        a.on_response(3.0, false);
        assert_eq!(a.rate(), 12.0);
    }

    #[test]
    fn floor_and_ceiling() {
        let mut a = Aimd::new(SPEC, 1.5, 0.0);
        a.on_response(1.0, true);
        assert_eq!(a.rate(), 1.0);
        a.on_response(2.0, true);
        assert_eq!(a.rate(), 1.0);
        let mut b = Aimd::new(SPEC, 99.5, 0.0);
        b.on_response(1.0, false);
        assert_eq!(b.rate(), 100.0);
        b.on_response(2.0, false);
        assert_eq!(b.rate(), 100.0);
        assert_eq!(Aimd::new(SPEC, 500.0, 0.0).rate(), 100.0);
    }
}
