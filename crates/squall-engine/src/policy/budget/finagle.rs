//! Finagle's `RetryBudget` (the default budget of every Finagle client).
//!
//! Rule (`finagle-core/.../service/RetryBudget.scala`, `util-core/.../TokenBucket.scala`):
//!
//! * each logical request deposits 1000 tokens ([`FinagleBudget::deposit`]);
//! * a retry withdraws `1000 / percent_can_retry` tokens (5000 at 20 %),
//!   and succeeds iff `window_sum + reserve >= withdrawal`
//!   ([`FinagleBudget::try_withdraw`]); a refused withdrawal changes nothing;
//! * `reserve = min_retries_per_sec * ttl_seconds * withdrawal` is always
//!   counted, so some retries are allowed with no traffic at all;
//! * deposits and withdrawals expire after `ttl`: the window is Finagle's
//!   `WindowedAdder(ttl, 10 slices)`, ten slices of `ttl / 10`, the oldest
//!   dropped as time moves on.
//!
//! Net effect: over any trailing `ttl`, retries <= `percent_can_retry` x
//! requests + `min_retries_per_sec` x `ttl` (0.2 x requests + 100 with the
//! defaults ttl 10 s, 10 per second, 20 %). Times are in the caller's units;
//! `second` says how many make a second. Nothing here draws a random number.

/// Finagle's scale: a deposit is this many tokens.
const SCALE: i64 = 1000;
/// Slices of the window (Finagle's `WindowedAdder` uses 10).
const SLICES: usize = 10;

/// A Finagle retry budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinagleBudget {
    withdrawal: i64,
    reserve: i64,
    slice: u64,
    /// Token sum of each slice, indexed by `slice number % SLICES`.
    slots: [i64; SLICES],
    /// The slice number each slot holds.
    numbers: [u64; SLICES],
}

impl FinagleBudget {
    /// A budget with `ttl` and `second` in the caller's units, at least
    /// `min_retries_per_sec` retries a second and `percent_can_retry` of
    /// requests (0.2 = 20 %). A zero percent never withdraws.
    pub fn new(ttl: u64, second: u64, min_retries_per_sec: u32, percent_can_retry: f64) -> Self {
        let withdrawal = if percent_can_retry > 0.0 && percent_can_retry.is_finite() {
            (SCALE as f64 / percent_can_retry) as i64
        } else {
            i64::MAX
        };
        let ttl_seconds = ttl / second.max(1);
        let reserve = if withdrawal == i64::MAX {
            0
        } else {
            i64::from(min_retries_per_sec)
                .saturating_mul(ttl_seconds as i64)
                .saturating_mul(withdrawal)
        };
        FinagleBudget {
            withdrawal,
            reserve,
            slice: (ttl / SLICES as u64).max(1),
            slots: [0; SLICES],
            numbers: [0; SLICES],
        }
    }

    /// A budget whose reserve is given as a number of retries per ttl
    /// (`min_retries_per_sec x ttl seconds`, computed by the caller).
    pub fn with_reserve(ttl: u64, reserve_retries: u64, percent_can_retry: f64) -> Self {
        let mut b = Self::new(ttl, ttl.max(1), 0, percent_can_retry);
        if b.withdrawal != i64::MAX {
            b.reserve = (reserve_retries.min(i64::MAX as u64) as i64).saturating_mul(b.withdrawal);
        }
        b
    }

    /// Finagle's defaults: ttl 10 s, 10 retries a second, 20 %.
    pub fn finagle_default(second: u64) -> Self {
        Self::new(10 * second, second, 10, 0.2)
    }

    fn add(&mut self, now: u64, tokens: i64) {
        let n = now / self.slice;
        let i = (n % SLICES as u64) as usize;
        if self.numbers[i] != n {
            self.numbers[i] = n;
            self.slots[i] = 0;
        }
        self.slots[i] += tokens;
    }

    fn window_sum(&self, now: u64) -> i64 {
        let n = now / self.slice;
        (0..SLICES)
            .filter(|&i| self.numbers[i] <= n && n - self.numbers[i] < SLICES as u64)
            .map(|i| self.slots[i])
            .sum()
    }

    /// A logical request at `now`.
    pub fn deposit(&mut self, now: u64) {
        self.add(now, SCALE);
    }

    /// Asks for one retry at `now`; `true` when it may go.
    pub fn try_withdraw(&mut self, now: u64) -> bool {
        if self.withdrawal == i64::MAX {
            return false;
        }
        if self.window_sum(now) + self.reserve >= self.withdrawal {
            self.add(now, -self.withdrawal);
            true
        } else {
            false
        }
    }

    /// Retries the budget would allow now: `(window_sum + reserve) / withdrawal`.
    pub fn balance(&self, now: u64) -> i64 {
        if self.withdrawal == i64::MAX {
            return 0;
        }
        (self.window_sum(now) + self.reserve) / self.withdrawal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Milliseconds: a second is 1000 units.
    const S: u64 = 1000;

    fn withdrawals(b: &mut FinagleBudget, now: u64) -> u32 {
        let mut n = 0;
        while b.try_withdraw(now) {
            n += 1;
        }
        n
    }

    #[test]
    fn no_traffic_still_allows_the_reserve() {
        // reserve = 10 per second x 10 s = 100 retries.
        let mut b = FinagleBudget::finagle_default(S);
        assert_eq!(b.balance(0), 100);
        assert_eq!(withdrawals(&mut b, 0), 100);
        assert_eq!(b.balance(0), 0);
    }

    #[test]
    fn twenty_percent_of_requests_plus_the_reserve() {
        // 50 requests: 0.2 x 50 + 100 = 110 retries.
        let mut b = FinagleBudget::finagle_default(S);
        for _ in 0..50 {
            b.deposit(0);
        }
        let want = (0.2f64 * 50.0).floor() as u32 + 10 * 10;
        assert_eq!(withdrawals(&mut b, 0), want);
    }

    #[test]
    fn withdrawals_expire_after_the_ttl() {
        // With no floor, 10 requests at t = 0 allow 2 retries; once the
        // window has moved past them (ttl 10 s), both the deposits and the
        // withdrawals are gone and nothing is allowed.
        let mut b = FinagleBudget::new(10 * S, S, 0, 0.2);
        for _ in 0..10 {
            b.deposit(0);
        }
        assert_eq!(withdrawals(&mut b, 500), 2);
        assert_eq!(withdrawals(&mut b, 9 * S), 0);
        for _ in 0..5 {
            b.deposit(9 * S);
        }
        // At 10.5 s the t = 0 slice has expired: the withdrawals of
        // 2 x 5000 are gone too, leaving the 5 deposits at 9 s: 1 retry.
        assert_eq!(b.balance(10 * S + 500), 1);
        assert_eq!(withdrawals(&mut b, 10 * S + 500), 1);
    }

    #[test]
    fn zero_percent_never_retries() {
        let mut b = FinagleBudget::new(10 * S, S, 10, 0.0);
        b.deposit(0);
        assert!(!b.try_withdraw(0));
    }
}
