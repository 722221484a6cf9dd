//! Client-side adaptive throttling: a caller rejects a try locally, before
//! sending it, with a probability that grows as its dependency accepts
//! fewer of its tries.
//!
//! The rule is the Google SRE book's (chapter 21 "Handling Overload",
//! section "Client-side throttling", Equation 21-1). Over a trailing
//! window each client keeps
//!
//! * `requests`: the tries its application layer attempted, those the
//!   throttle rejected included;
//! * `accepts`: the tries the backend accepted;
//!
//! and rejects a new try locally with probability
//! `max(0, (requests - K * accepts) / (requests + 1))`, with `K = 2` and a
//! window of two minutes by default. While the dependency accepts at least
//! one try in `K` the probability is 0; once it accepts fewer, the client
//! sends about `K` tries per accepted one and rejects the rest itself.
//!
//! How squall reads the rule, and where it follows an implementation:
//!
//! * **The window** is kept in buckets, as go-kratos/aegis
//!   (`circuitbreaker/sre/sre.go` over `internal/window`'s rolling counter,
//!   10 buckets by default) and go-zero (`core/breaker/googlebreaker.go`
//!   over `core/collection/rollingwindow.go`, 40) keep it; squall follows
//!   aegis: `buckets` buckets of `window / buckets` ticks (rounded down),
//!   aligned to the start of the run, the window being the bucket that
//!   holds the current tick and the `buckets - 1` before it. A bucket is
//!   emptied when the clock enters it again.
//! * **When a try is counted**: when its outcome is known, in the bucket
//!   of that tick, as both libraries count (aegis's `MarkSuccess` and
//!   `MarkFailed`, go-zero's `markSuccess`, `markFailure` and `markDrop`
//!   run after the call, or at the local rejection): a rejected try at
//!   once, a sent try when it is answered or times out. A try cancelled
//!   before its answer (its request given up above) has no outcome and is
//!   not counted. On the zero-time path a try is answered in the tick it
//!   is sent, so both readings agree.
//! * **What is an accept**: any answer that does not count against the
//!   dependency in squall's breakers
//!   ([`super::breaker::counts_against_dependency`]): a success, a client
//!   error (4xx other than 429), a conflict, a body error; a refusal, an
//!   overflow, a queue timeout, a 429 or 5xx, a timeout and a network
//!   error are not. go-kratos's client middleware
//!   (`go-kratos/kratos:middleware/circuitbreaker/circuitbreaker.go`) marks
//!   a call failed on a 500, 503 or 504 and accepted otherwise; go-zero's
//!   (`zrpc/internal/codes/accept.go`, `Acceptable`) on deadline exceeded,
//!   internal, unavailable, data loss, unimplemented and resource
//!   exhausted: a client error is an accept in both, as the backend
//!   answered it.
//! * **The draw**: the probability is computed from the counts before the
//!   try is counted, and a uniform draw from the throttle's own stream
//!   rejects the try when it falls below it (aegis's `trueOnProba`). No
//!   draw is made while the probability is 0, so a throttle on a healthy
//!   dependency changes no other stream.
//!
//! Neither library's additions to the rule are taken: aegis's minimum of
//! 100 requests before it throttles (`WithRequest`), go-zero's
//! `protection` of 5, its weight between `minK` and `k` by failing buckets
//! and its forced pass every second. The book has none of them.

/// One client's (or one node's) throttle counts and rule.
#[derive(Debug, Clone, PartialEq)]
pub struct SreThrottle {
    /// The multiplier `K`.
    k: f64,
    /// The width of one bucket \[ticks\].
    width: u64,
    /// Per bucket (requests, accepts), indexed by bucket number modulo
    /// their count.
    buckets: Vec<(u64, u64)>,
    /// The bucket number of the last count (`tick / width`).
    last: u64,
    /// The sums over the window.
    requests: u64,
    accepts: u64,
}

impl SreThrottle {
    /// A throttle with multiplier `k` over `buckets` buckets of `width`
    /// ticks each.
    pub fn new(k: f64, width: u64, buckets: u32) -> Self {
        SreThrottle {
            k,
            width: width.max(1),
            buckets: vec![(0, 0); buckets.max(1) as usize],
            last: 0,
            requests: 0,
            accepts: 0,
        }
    }

    /// Moves the window to tick `now`: the buckets the clock entered since
    /// the last count are emptied (all of them after a whole window).
    fn roll(&mut self, now: u64) {
        let b = now / self.width;
        if b <= self.last {
            return;
        }
        let n = self.buckets.len() as u64;
        let from = self.last + 1;
        for i in from.max(b.saturating_sub(n - 1))..=b {
            let slot = &mut self.buckets[(i % n) as usize];
            self.requests -= slot.0;
            self.accepts -= slot.1;
            *slot = (0, 0);
        }
        self.last = b;
    }

    /// The counts over the window at tick `now`: (requests, accepts).
    pub fn counts(&mut self, now: u64) -> (u64, u64) {
        self.roll(now);
        (self.requests, self.accepts)
    }

    /// The probability that a try at tick `now` is rejected locally:
    /// `max(0, (requests - K * accepts) / (requests + 1))`.
    pub fn reject_probability(&mut self, now: u64) -> f64 {
        let (r, a) = self.counts(now);
        let r = r as f64;
        ((r - self.k * a as f64) / (r + 1.0)).max(0.0)
    }

    /// A try's outcome at tick `now`: `accepted` by the backend or not (a
    /// local rejection is not).
    pub fn record(&mut self, now: u64, accepted: bool) {
        self.roll(now);
        let n = self.buckets.len() as u64;
        let slot = &mut self.buckets[(self.last % n) as usize];
        slot.0 += 1;
        self.requests += 1;
        if accepted {
            slot.1 += 1;
            self.accepts += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SreThrottle;

    #[test]
    fn the_probability_follows_equation_21_1() {
        // K = 2. 10 requests, 5 accepts: 10 - 2 x 5 = 0, probability 0.
        // One more rejected request: (11 - 10) / 12 = 1/12. 30 requests
        // and 5 accepts: (30 - 10) / 31 = 20/31.
        let mut t = SreThrottle::new(2.0, 10, 10);
        for i in 0..10 {
            t.record(0, i < 5);
        }
        assert_eq!(t.reject_probability(0), 0.0);
        t.record(0, false);
        assert_eq!(t.reject_probability(0), 1.0 / 12.0);
        for _ in 0..19 {
            t.record(0, false);
        }
        assert_eq!(t.reject_probability(0), 20.0 / 31.0);
        // K = 1.5: 30 requests, 5 accepts: (30 - 7.5) / 31.
        let mut k = SreThrottle::new(1.5, 10, 10);
        for i in 0..30 {
            k.record(0, i < 5);
        }
        assert_eq!(k.reject_probability(0), 22.5 / 31.0);
    }

    #[test]
    fn the_window_drops_whole_buckets() {
        // 3 buckets of 10 ticks: at tick t the window holds the buckets
        // floor(t / 10) - 2 ..= floor(t / 10). A failed request at ticks
        // 5, 15, 25 each: all three in the window at tick 29.
        let mut t = SreThrottle::new(2.0, 10, 3);
        for at in [5, 15, 25] {
            t.record(at, false);
        }
        assert_eq!(t.counts(29), (3, 0));
        // Tick 30 is bucket 3: bucket 0 (tick 5) leaves, 15 and 25 stay,
        // though tick 5 is only 25 ticks old.
        assert_eq!(t.counts(30), (2, 0));
        // An accept at 31; at tick 49 (bucket 4) bucket 1 (tick 15) left.
        t.record(31, true);
        assert_eq!(t.counts(49), (2, 1));
        // A jump of more than a window empties every bucket.
        assert_eq!(t.counts(1000), (0, 0));
        t.record(1000, true);
        assert_eq!(t.counts(1009), (1, 1));
    }
}
