//! The sending run: records through the state machine, one event at a time.
//!
//! # Events
//!
//! | event      | what happens                                                     |
//! |------------|------------------------------------------------------------------|
//! | `Create`   | the next record is created and queued (records at a rate)        |
//! | `Dispatch` | idle senders take queued records while the pool's window cap and bucket allow |
//! | `Answer`   | an attempt's answer comes back; the client decides the state     |
//! | `Due`      | a pending record's `next_attempt_at`: back to the queue          |
//!
//! An attempt meets the provider when it is sent: its ceiling (a token
//! bucket) first, past which it is throttled; then a bad record answers
//! its permanent code; then an unknown code with the provider's share
//! (one draw); else success. The answer arrives `latency` later (inline
//! when the latency is zero). The queue is FIFO: a record back from
//! pending joins its end.
//!
//! # Random draws, in event order
//!
//! Three streams under the run's seed: `send throttle` (which throttle code
//! when there are several, one draw per throttle), `send unknown` (one
//! draw per attempt that passed the ceiling on a good record, when the
//! unknown share is positive), `send jitter` (one draw per retry without a
//! Retry-After). Bad records are spread evenly, not drawn: record `i` is
//! bad when `floor((i+1) * share) > floor(i * share)`, so a share gives an
//! exact count.
//!
//! # The send rate
//!
//! The pool's bucket runs at the pool's rate; with an adaptive rate the
//! bucket's rate is `min(pool rate, adaptive rate)` after every answer.
//! Adaptive rates think in seconds: a tick of `clock ms` is 0.001 s, of
//! `clock s` 1 s, and a round counts as a second.

use std::collections::VecDeque;

use squall_lang::Clock;

use crate::error::SimError;
use crate::queue::EventQueue;
use crate::rng::Stream;
use crate::server::token_bucket::TokenBucket;
use crate::time::{Duration, Resolution, Time};

use super::adaptive::AdaptiveRate;
use super::classify::{CodeClass, ProviderCode};
use super::next_attempt::{next_attempt_at, FullJitter, RetryAfter};
use super::observations::{AttemptRow, FinalStates, SendBin, SendObservations};
use super::spec::{ClientSpec, RetryAfterForm, SendSpec};
use super::state::SendState;

/// Records a run holds at most (each costs a few dozen bytes, and every
/// attempt is kept for the log).
pub const MAX_RECORDS: u64 = 10_000_000;

#[derive(Debug, Clone, Copy)]
enum Event {
    Create,
    Dispatch,
    Answer(u32),
    Due(u32),
}

#[derive(Debug, Clone, Copy)]
struct Answer {
    code: ProviderCode,
    retry_after: Option<RetryAfter>,
    row: usize,
}

#[derive(Debug, Clone)]
struct Record {
    created: Time,
    attempts: u32,
    unknowns: u32,
    state: SendState,
    bad: Option<ProviderCode>,
    answer: Option<Answer>,
}

/// Seconds in one tick of `clock` (a round counts as one).
pub fn tick_seconds(clock: Clock) -> f64 {
    match clock {
        Clock::Ms => 0.001,
        Clock::S | Clock::Round => 1.0,
    }
}

struct Run<'a> {
    spec: &'a SendSpec,
    res: Resolution,
    /// Seconds per engine unit.
    sec: f64,
    end: Time,
    events: EventQueue<Event>,
    records: Vec<Record>,
    queue: VecDeque<u32>,
    idle: u32,
    pool: TokenBucket,
    provider: TokenBucket,
    adaptive: Option<AdaptiveRate>,
    dispatch_at: Option<Time>,
    throttle_rng: Stream,
    unknown_rng: Stream,
    jitter_rng: Stream,
    bad_seen: u64,
    closed: usize,
    /// Records before this index are all final.
    first_open: usize,
    /// The window cap's current window (by index) and attempts in it.
    cap_window: u64,
    cap_used: u64,
    obs: SendObservations,
}

/// Runs a sending study to its end.
pub fn run_sending(spec: &SendSpec) -> Result<SendObservations, SimError> {
    if spec.records.count > MAX_RECORDS {
        return Err(SimError::TooManyRecords {
            records: spec.records.count,
            limit: MAX_RECORDS,
        });
    }
    let res = Resolution::fine(spec.clock);
    let sec = tick_seconds(spec.clock) / res.per_tick() as f64;
    let p = &spec.provider;
    let mut run = Run {
        spec,
        res,
        sec,
        end: res.at_tick(spec.ticks),
        events: EventQueue::new(),
        records: Vec::with_capacity(spec.records.count.min(1 << 20) as usize),
        queue: VecDeque::new(),
        idle: spec.pool.senders,
        pool: TokenBucket::new(spec.pool.rate, spec.pool.burst, res),
        provider: TokenBucket::new(p.ceiling, p.burst, res),
        adaptive: spec
            .adaptive
            .map(|a| AdaptiveRate::new(a, spec.pool.rate / tick_seconds(spec.clock), 0.0)),
        dispatch_at: None,
        throttle_rng: Stream::new(spec.seed, "send throttle"),
        unknown_rng: Stream::new(spec.seed, "send unknown"),
        jitter_rng: Stream::new(spec.seed, "send jitter"),
        bad_seen: 0,
        closed: 0,
        first_open: 0,
        cap_window: 0,
        cap_used: 0,
        obs: SendObservations {
            units_per_tick: res.per_tick(),
            bin: spec.bin.max(1),
            bins: vec![SendBin::default(); spec.ticks.div_ceil(spec.bin.max(1)).max(1) as usize],
            ..Default::default()
        },
    };
    run.start()?;
    run.main_loop()?;
    Ok(run.finish())
}

impl Run<'_> {
    fn start(&mut self) -> Result<(), SimError> {
        match self.spec.records.rate {
            None => {
                for _ in 0..self.spec.records.count {
                    self.create(Time::ZERO);
                }
                self.dispatch(Time::ZERO)?;
            }
            Some(_) if self.spec.records.count > 0 => self.events.schedule(0, Event::Create)?,
            Some(_) => {}
        }
        Ok(())
    }

    fn main_loop(&mut self) -> Result<(), SimError> {
        while let Some(t) = self.events.peek_time() {
            if t > self.end.units() {
                break;
            }
            let Some((t, event)) = self.events.pop() else {
                break;
            };
            let now = Time::from_units(t);
            if matches!(event, Event::Dispatch) && self.dispatch_at != Some(now) {
                // A wake-up an earlier one replaced: the live one is due
                // sooner (or already ran), so this one has nothing to do.
                continue;
            }
            self.obs.events += 1;
            self.close_bins(now);
            match event {
                Event::Create => {
                    self.create(now);
                    let n = self.records.len() as u64;
                    if let (Some(rate), true) =
                        (self.spec.records.rate, n < self.spec.records.count)
                    {
                        let next = self
                            .res
                            .at_tick(0)
                            .after(self.res.duration(n as f64 / rate));
                        self.events.schedule(next.units().max(t), Event::Create)?;
                    }
                }
                Event::Dispatch => self.dispatch_at = None,
                Event::Answer(r) => {
                    self.idle += 1;
                    self.answer(r, now)?;
                }
                Event::Due(r) => {
                    let rec = &mut self.records[r as usize];
                    rec.state = SendState::Queued;
                    self.queue.push_back(r);
                }
            }
            self.dispatch(now)?;
        }
        Ok(())
    }

    fn create(&mut self, now: Time) {
        let i = self.records.len() as u64;
        let share = self.spec.provider.bad_share.clamp(0.0, 1.0);
        let is_bad = ((i + 1) as f64 * share).floor() > (i as f64 * share).floor();
        let codes = &self.spec.provider.bad_codes;
        let bad = if is_bad && !codes.is_empty() {
            let c = codes[(self.bad_seen % codes.len() as u64) as usize];
            self.bad_seen += 1;
            Some(c)
        } else {
            None
        };
        self.records.push(Record {
            created: now,
            attempts: 0,
            unknowns: 0,
            state: SendState::Queued,
            bad,
            answer: None,
        });
        self.queue.push_back(i as u32);
    }

    /// Idle senders take queued records while the pool's window cap and
    /// its bucket allow.
    fn dispatch(&mut self, now: Time) -> Result<(), SimError> {
        while self.idle > 0 && !self.queue.is_empty() {
            if let Some(cap) = self.spec.pool.window_cap {
                let width = self.res.duration(cap.window).units().max(1);
                let window = now.units() / width;
                if window != self.cap_window {
                    self.cap_window = window;
                    self.cap_used = 0;
                }
                if self.cap_used >= cap.attempts {
                    let at = Time::from_units((window + 1).saturating_mul(width));
                    self.wake_at(at)?;
                    return Ok(());
                }
            }
            match self.pool.take(now) {
                Ok(()) => {}
                Err(wait) => {
                    if let Some(wait) = wait {
                        self.wake_at(now.after(wait.max(Duration::from_units(1))))?;
                    }
                    return Ok(());
                }
            }
            let Some(r) = self.queue.pop_front() else {
                break;
            };
            self.cap_used += 1;
            self.idle -= 1;
            self.send(r, now);
            let latency = self.res.duration(self.spec.pool.latency);
            if latency.is_zero() {
                self.idle += 1;
                self.answer(r, now)?;
            } else {
                self.events
                    .schedule(now.after(latency).units(), Event::Answer(r))?;
            }
        }
        Ok(())
    }

    /// Wakes the pool at `at`, unless a wake-up is due sooner.
    fn wake_at(&mut self, at: Time) -> Result<(), SimError> {
        if self.dispatch_at.is_none_or(|d| at < d) {
            self.dispatch_at = Some(at);
            self.events.schedule(at.units(), Event::Dispatch)?;
        }
        Ok(())
    }

    /// The provider's answer to an attempt sent at `now`.
    fn send(&mut self, r: u32, now: Time) {
        let p = &self.spec.provider;
        let rec = &mut self.records[r as usize];
        rec.state = SendState::InFlight;
        rec.attempts += 1;
        let (code, throttled, retry_after) = match self.provider.take(now) {
            Err(wait) => {
                let code = pick(&p.throttles, &mut self.throttle_rng).unwrap_or(p.success);
                let wait = wait.unwrap_or(Duration::from_units(u64::MAX));
                let second = (1.0 / self.sec).round().max(1.0) as u64;
                let retry_after = match (code, p.retry_after) {
                    (ProviderCode::Protocol(_), _) | (_, RetryAfterForm::None) => None,
                    (_, RetryAfterForm::Seconds) => Some(RetryAfter::Delay(Duration::from_units(
                        wait.units().div_ceil(second).saturating_mul(second),
                    ))),
                    (_, RetryAfterForm::Date) => {
                        let at = now
                            .after(wait)
                            .units()
                            .div_ceil(second)
                            .saturating_mul(second);
                        Some(RetryAfter::At(Time::from_units(at)))
                    }
                };
                (code, true, retry_after)
            }
            Ok(()) => match rec.bad {
                Some(code) => (code, false, None),
                None if p.unknown_share > 0.0 && self.unknown_rng.next_f64() < p.unknown_share => {
                    (p.unknown_code, false, None)
                }
                None => (p.success, false, None),
            },
        };
        let row = self.obs.attempts.len();
        self.obs.attempts.push(AttemptRow {
            record: r as u64,
            attempt: rec.attempts,
            at: now.units(),
            code,
            throttled,
            status: SendState::InFlight,
            next_attempt_at: None,
        });
        rec.answer = Some(Answer {
            code,
            retry_after,
            row,
        });
        let bin = self.bin_of(now);
        self.obs.bins[bin].attempts += 1;
        self.obs.bins[bin].throttled += u64::from(throttled);
    }

    /// The client reads the answer to record `r` at `now`.
    fn answer(&mut self, r: u32, now: Time) -> Result<(), SimError> {
        let Some(a) = self.records[r as usize].answer.take() else {
            return Ok(());
        };
        let mut next = None;
        let status = match &self.spec.client {
            ClientSpec::Naive { success } => {
                if success.iter().any(|m| m.contains(a.code)) {
                    SendState::Submitted
                } else {
                    SendState::Rejected
                }
            }
            ClientSpec::Classified(c) => {
                let class = c.classifier.classify(a.code);
                let said_slow_down = c.throttles.iter().any(|m| m.contains(a.code));
                if let Some(ad) = &mut self.adaptive {
                    ad.on_response(now.units() as f64 * self.sec, said_slow_down);
                    let pool_rate = self.spec.pool.rate;
                    let (rate, burst) = ad
                        .gate()
                        .map_or((pool_rate, self.spec.pool.burst), |(r, b)| {
                            ((r * tick_seconds(self.spec.clock)).min(pool_rate), b)
                        });
                    self.pool.set_rate(now, rate, burst, self.res);
                }
                let rec = &mut self.records[r as usize];
                match class {
                    CodeClass::Success => SendState::Submitted,
                    CodeClass::Terminal => SendState::Failed,
                    CodeClass::Retryable | CodeClass::Unknown => {
                        if class == CodeClass::Unknown {
                            rec.unknowns += 1;
                        }
                        let honoured = a.retry_after.filter(|_| c.honor_retry_after);
                        let jitter = FullJitter {
                            base: self.res.duration(c.jitter_base),
                            cap: self.res.duration(c.jitter_cap),
                        };
                        let rng = &mut self.jitter_rng;
                        let at =
                            next_attempt_at(now, rec.attempts, honoured, jitter, || rng.next_f64());
                        let too_old = c
                            .max_age
                            .is_some_and(|age| at > rec.created.after(self.res.duration(age)));
                        if rec.attempts >= c.max_attempts
                            || (class == CodeClass::Unknown && rec.unknowns >= c.unknown_attempts)
                            || too_old
                        {
                            SendState::Deferred
                        } else {
                            next = Some(at);
                            SendState::Pending
                        }
                    }
                }
            }
        };
        let rec = &mut self.records[r as usize];
        rec.state = status;
        let row = &mut self.obs.attempts[a.row];
        row.status = status;
        row.next_attempt_at = next.map(Time::units);
        if status == SendState::Submitted {
            let bin = self.bin_of(now);
            self.obs.bins[bin].delivered += 1;
        }
        if let Some(at) = next {
            self.events.schedule(at.units(), Event::Due(r))?;
        }
        Ok(())
    }

    fn bin_of(&self, t: Time) -> usize {
        let tick = self.res.tick_of(t);
        ((tick / self.obs.bin) as usize).min(self.obs.bins.len() - 1)
    }

    fn gate_rate(&self) -> f64 {
        let per_s = 1.0 / tick_seconds(self.spec.clock);
        let pool = self.spec.pool.rate * per_s;
        self.adaptive
            .as_ref()
            .and_then(AdaptiveRate::gate)
            .map_or(pool, |(r, _)| r.min(pool))
    }

    /// Age of the oldest record not yet final at `now` \[s\]. Records are
    /// created in index order, so the oldest open one is the first: a
    /// cursor moves past the final ones and never comes back (a final
    /// state is left by nobody), linear over the whole run.
    fn oldest_waiting(&mut self, now: Time) -> f64 {
        while self
            .records
            .get(self.first_open)
            .is_some_and(|r| r.state.is_final())
        {
            self.first_open += 1;
        }
        self.records
            .get(self.first_open)
            .map_or(0.0, |r| now.since(r.created).units() as f64 * self.sec)
    }

    /// Closes every bin that ends at or before `now`.
    fn close_bins(&mut self, now: Time) {
        let bin = self.bin_of(now);
        while self.closed < bin {
            let end = self.res.at_tick((self.closed as u64 + 1) * self.obs.bin);
            let rate = self.gate_rate();
            let oldest = self.oldest_waiting(end);
            let b = &mut self.obs.bins[self.closed];
            b.rate = rate;
            b.oldest_waiting = oldest;
            self.closed += 1;
        }
    }

    fn finish(mut self) -> SendObservations {
        self.close_bins(self.end);
        let last = self.obs.bins.len() - 1;
        let rate = self.gate_rate();
        let oldest = self.oldest_waiting(self.end);
        self.obs.bins[last].rate = rate;
        self.obs.bins[last].oldest_waiting = oldest;
        self.obs.oldest_waiting = oldest;
        let mut s = FinalStates {
            created: self.records.len() as u64,
            ..Default::default()
        };
        for r in &self.records {
            match r.state {
                SendState::Queued => s.queued += 1,
                SendState::InFlight => s.in_flight += 1,
                SendState::Submitted => s.submitted += 1,
                SendState::Pending => s.pending += 1,
                SendState::Failed => s.failed += 1,
                SendState::Deferred => s.deferred += 1,
                SendState::Rejected => s.rejected += 1,
            }
        }
        self.obs.states = s;
        self.obs
    }
}

/// One of `choices` by weight (`None` when there are none).
fn pick(choices: &[(ProviderCode, f64)], rng: &mut Stream) -> Option<ProviderCode> {
    match choices {
        [] => None,
        [(one, _)] => Some(*one),
        _ => {
            let total: f64 = choices.iter().map(|(_, w)| w.max(0.0)).sum();
            let mut x = rng.next_f64() * total;
            for &(c, w) in choices {
                x -= w.max(0.0);
                if x < 0.0 {
                    return Some(c);
                }
            }
            choices.last().map(|&(c, _)| c)
        }
    }
}
