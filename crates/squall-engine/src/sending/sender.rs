//! A sender: a record source, a pool of consumers working its record
//! queue, and a caller side that reads the provider's answers
//! (classification, Retry-After, jitter, attempt caps per record and per
//! window, the adaptive rate).
//!
//! The sender owns its state and is driven through four methods, by the
//! run's `Senders` (`engine.rs`) on the timed engine's loop:
//! [`Sender::start`] at time 0, [`Sender::handle`] for each of its events
//! off the one calendar, [`Sender::dispatch`] after each, and
//! [`Sender::finish`] at the end. It schedules its events through the
//! calendar's [`Calendar`] trait. It never owns a provider: it is handed
//! the one it names for each attempt, so senders naming one provider
//! share its ceiling.

use std::collections::VecDeque;

use squall_lang::model::sending::MAX_RECORDS;
use squall_lang::Clock;

use crate::error::SimError;
use crate::rng::Stream;
use crate::server::token_bucket::TokenBucket;
use crate::time::{Duration, Resolution, Time};

use super::adaptive::AdaptiveRate;
use super::calendar::{Calendar, Kind, SendEvent, CALENDAR_EVENT_BYTES};
use super::classify::{CodeClass, ProviderCode};
use super::feed::Feed;
use super::next_attempt::{next_attempt_at, FullJitter, RetryAfter};
use super::observations::{AttemptRow, FinalStates, SendBin, SendObservations};
use super::provider::Provider;
use super::spec::{ClientSpec, SendSpec};
use super::state::SendState;

/// Seconds in one tick of `clock` (a round counts as one).
pub fn tick_seconds(clock: Clock) -> f64 {
    match clock {
        Clock::Ms => 0.001,
        Clock::S | Clock::Round => 1.0,
    }
}

/// The answer an in-flight record waits for.
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

/// The bytes a sender of `spec` holds at its peak, at most: every record
/// (and its place in the queue, and a pending event on the calendar), and
/// every attempt the log keeps. Attempts are bounded by the pool's bucket
/// (its rate over the run, plus its burst) and by the records' attempt
/// caps (one each for the naive client); the series bins are few (at
/// most `MAX_BINS`, checked by the language).
pub(super) fn bytes(spec: &SendSpec) -> u64 {
    use std::mem::size_of;
    let records = spec.records.count;
    let per_record = match &spec.client {
        ClientSpec::Naive { .. } => 1,
        ClientSpec::Classified(c) => u64::from(c.max_attempts.max(1)),
    };
    let by_pool = spec.pool.rate * spec.ticks as f64 + spec.pool.burst.max(1.0);
    let attempts = (records.saturating_mul(per_record) as f64).min(by_pool.ceil());
    let event = CALENDAR_EVENT_BYTES as u64 + 16;
    let record = size_of::<Record>() as u64 + size_of::<u32>() as u64 + event;
    let bins = spec.ticks.div_ceil(spec.bin.max(1)).max(1);
    records
        .saturating_mul(record)
        .saturating_add((attempts as u64).saturating_mul(size_of::<AttemptRow>() as u64))
        .saturating_add(bins.saturating_mul(size_of::<SendBin>() as u64))
}

/// One sender in a run.
pub(super) struct Sender<'a> {
    spec: &'a SendSpec,
    /// Its index in the run: the `sender` of its events.
    index: u32,
    res: Resolution,
    /// Seconds per engine unit.
    sec: f64,
    records: Vec<Record>,
    queue: VecDeque<u32>,
    idle: u32,
    pool: TokenBucket,
    /// The source that feeds it, if one does.
    feed: Option<Feed<'a>>,
    /// The run's end: a feed's events after it are not scheduled.
    end: Time,
    adaptive: Option<AdaptiveRate>,
    dispatch_at: Option<Time>,
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

impl<'a> Sender<'a> {
    /// The sender of `spec`, the `index`th of its run, its jitter stream
    /// labelled `send jitter` followed by `suffix`.
    pub fn new(spec: &'a SendSpec, index: u32, suffix: &str, res: Resolution, sec: f64) -> Self {
        let bin = spec.bin.max(1);
        Sender {
            spec,
            index,
            res,
            sec,
            records: Vec::with_capacity(spec.records.count.min(1 << 20) as usize),
            queue: VecDeque::new(),
            idle: spec.pool.senders,
            pool: TokenBucket::new(spec.pool.rate, spec.pool.burst, res),
            feed: spec
                .feed
                .as_ref()
                .map(|f| Feed::new(f, spec.seed, suffix, res)),
            end: res.at_tick(spec.ticks),
            adaptive: spec
                .adaptive
                .map(|a| AdaptiveRate::new(a, spec.pool.rate / tick_seconds(spec.clock), 0.0)),
            dispatch_at: None,
            jitter_rng: Stream::new(spec.seed, &format!("send jitter{suffix}")),
            bad_seen: 0,
            closed: 0,
            first_open: 0,
            cap_window: 0,
            cap_used: 0,
            obs: SendObservations {
                units_per_tick: res.per_tick(),
                bin,
                bins: vec![SendBin::default(); spec.ticks.div_ceil(bin).max(1) as usize],
                ..Default::default()
            },
        }
    }

    fn event(&self, kind: Kind) -> SendEvent {
        SendEvent::new(self.index, kind)
    }

    /// Time 0: every record at once (then a dispatch), the first
    /// creation of records at a rate or of a burst, or the feed's first
    /// event.
    pub fn start(
        &mut self,
        provider: &mut Provider,
        cal: &mut impl Calendar,
    ) -> Result<(), SimError> {
        if self.feed.is_some() {
            return self.feed_next(Time::ZERO, cal);
        }
        match self.spec.records.rate {
            None if self.spec.records.batch.is_some() => {
                if self.spec.records.count > 0 {
                    cal.schedule_send(0, self.event(Kind::Create))?;
                }
            }
            None => {
                for _ in 0..self.spec.records.count {
                    self.create(Time::ZERO);
                }
                self.dispatch(Time::ZERO, provider, cal)?;
            }
            Some(_) if self.spec.records.count > 0 => {
                cal.schedule_send(0, self.event(Kind::Create))?;
            }
            Some(_) => {}
        }
        Ok(())
    }

    /// Handles one of this sender's events at `now`; `false` for a
    /// wake-up of the pool that a sooner one replaced (nothing happens,
    /// and nothing is counted). The run calls [`Sender::dispatch`] after
    /// every handled event.
    pub fn handle(
        &mut self,
        now: Time,
        kind: Kind,
        cal: &mut impl Calendar,
    ) -> Result<bool, SimError> {
        if matches!(kind, Kind::Dispatch) && self.dispatch_at != Some(now) {
            // A wake-up an earlier one replaced: the live one is due
            // sooner (or already ran), so this one has nothing to do.
            return Ok(false);
        }
        self.obs.events += 1;
        self.close_bins(now);
        match kind {
            Kind::Create if self.feed.is_some() => {
                if self.feed.as_ref().is_some_and(Feed::sends) {
                    if self.records.len() as u64 >= MAX_RECORDS {
                        return Err(SimError::TooManyRecords {
                            records: MAX_RECORDS + 1,
                            limit: MAX_RECORDS,
                        });
                    }
                    self.create(now);
                }
                self.feed_next(now, cal)?;
            }
            Kind::Create if self.spec.records.batch.is_some() => self.create_batch(now, cal)?,
            Kind::Create => {
                self.create(now);
                let n = self.records.len() as u64;
                if let (Some(rate), true) = (self.spec.records.rate, n < self.spec.records.count) {
                    let next = self
                        .res
                        .at_tick(0)
                        .after(self.res.duration(n as f64 / rate));
                    cal.schedule_send(next.units().max(now.units()), self.event(Kind::Create))?;
                }
            }
            Kind::Dispatch => self.dispatch_at = None,
            Kind::Answer(r) => {
                self.idle += 1;
                self.answer(r, now, cal)?;
            }
            Kind::Due(r) => {
                self.records[r as usize].state = SendState::Queued;
                self.queue.push_back(r);
            }
        }
        Ok(true)
    }

    /// Records in bursts (`records N batch B per D`): the burst due at
    /// `now` makes B records (fewer for the last, so that N are made in
    /// all), then the next burst is due one period after this one's time.
    /// Burst k (from 0) is at k x D from tick 0, each burst before it
    /// having made B.
    fn create_batch(&mut self, now: Time, cal: &mut impl Calendar) -> Result<(), SimError> {
        let (Some(batch), count) = (self.spec.records.batch, self.spec.records.count) else {
            return Ok(());
        };
        let made = self.records.len() as u64;
        for _ in made..count.min(made + batch.size) {
            self.create(now);
        }
        let made = self.records.len() as u64;
        if made < count {
            let bursts = made / batch.size;
            let next = self
                .res
                .at_tick(0)
                .after(self.res.duration(bursts as f64 * batch.every));
            cal.schedule_send(next.units().max(now.units()), self.event(Kind::Create))?;
        }
        Ok(())
    }

    /// Schedules the feed's next event after `now`, if it comes by the
    /// run's end.
    fn feed_next(&mut self, now: Time, cal: &mut impl Calendar) -> Result<(), SimError> {
        let Some(feed) = &mut self.feed else {
            return Ok(());
        };
        let at = feed.next(now);
        if at <= self.end {
            cal.schedule_send(at.units(), self.event(Kind::Create))?;
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

    /// Idle consumers take queued records while the pool's window cap and
    /// its bucket allow; each attempt goes to `provider`.
    pub fn dispatch(
        &mut self,
        now: Time,
        provider: &mut Provider,
        cal: &mut impl Calendar,
    ) -> Result<(), SimError> {
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
                    return self.wake_at(at, cal);
                }
            }
            if let Err(wait) = self.pool.take(now) {
                if let Some(wait) = wait {
                    self.wake_at(now.after(wait.max(Duration::from_units(1))), cal)?;
                }
                return Ok(());
            }
            let Some(r) = self.queue.pop_front() else {
                break;
            };
            self.cap_used += 1;
            self.idle -= 1;
            self.send(r, now, provider);
            let latency = self.res.duration(self.spec.pool.latency);
            if latency.is_zero() {
                self.idle += 1;
                self.answer(r, now, cal)?;
            } else {
                cal.schedule_send(now.after(latency).units(), self.event(Kind::Answer(r)))?;
            }
        }
        Ok(())
    }

    /// Wakes the pool at `at`, unless a wake-up is due sooner.
    fn wake_at(&mut self, at: Time, cal: &mut impl Calendar) -> Result<(), SimError> {
        if self.dispatch_at.is_none_or(|d| at < d) {
            self.dispatch_at = Some(at);
            cal.schedule_send(at.units(), self.event(Kind::Dispatch))?;
        }
        Ok(())
    }

    /// Record `r` goes to the provider at `now`; the answer is logged and
    /// waits in the record until it comes back.
    fn send(&mut self, r: u32, now: Time, provider: &mut Provider) {
        let rec = &mut self.records[r as usize];
        rec.state = SendState::InFlight;
        rec.attempts += 1;
        let reply = provider.answer(now, rec.bad);
        let row = self.obs.attempts.len();
        self.obs.attempts.push(AttemptRow {
            record: r as u64,
            attempt: rec.attempts,
            at: now.units(),
            code: reply.code,
            throttled: reply.throttled,
            status: SendState::InFlight,
            next_attempt_at: None,
        });
        rec.answer = Some(Answer {
            code: reply.code,
            retry_after: reply.retry_after,
            row,
        });
        let bin = self.bin_of(now);
        self.obs.bins[bin].attempts += 1;
        self.obs.bins[bin].throttled += u64::from(reply.throttled);
    }

    /// The caller side reads the answer to record `r` at `now`.
    fn answer(&mut self, r: u32, now: Time, cal: &mut impl Calendar) -> Result<(), SimError> {
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
            cal.schedule_send(at.units(), self.event(Kind::Due(r)))?;
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

    /// What the sender measured, at the run's `end`.
    pub fn finish(mut self, end: Time) -> SendObservations {
        self.close_bins(end);
        let last = self.obs.bins.len() - 1;
        let rate = self.gate_rate();
        let oldest = self.oldest_waiting(end);
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
