//! A sender's feed: the source that enters it (`source new { rate 14/s
//! enters outbox }`). Each request the source makes is a record the sender
//! creates at that moment, so every source shape works for records as it
//! does for requests: a rate, steps, spikes and ramps (`rate .. during`),
//! uniform or Poisson arrivals, `at` times. The gaps are not computed here:
//! a rate source's are [`OpenLoop`]'s, the one rule the timed path's
//! sources follow too.

use squall_lang::{Schedule, SourceSpec};

use crate::arrivals::OpenLoop;
use crate::rng::Stream;
use crate::time::{Resolution, Time};

/// The source that feeds one sender, and where it is.
pub(super) struct Feed<'a> {
    spec: &'a SourceSpec,
    open: OpenLoop,
    /// A Poisson source's gaps: `send source` and the run's suffix.
    stream: Stream,
    /// The next of the source's `at` times.
    next_time: usize,
    res: Resolution,
}

impl<'a> Feed<'a> {
    /// The feed of `spec`, its stream labelled `send source` followed by
    /// `suffix` under `seed`.
    pub fn new(spec: &'a SourceSpec, seed: u64, suffix: &str, res: Resolution) -> Self {
        Feed {
            spec,
            open: OpenLoop::default(),
            stream: Stream::new(seed, &format!("send source{suffix}")),
            next_time: 0,
            res,
        }
    }

    /// True when the event [`Feed::next`] last gave makes a record (a
    /// rate source's event at a change of rate only draws a new gap).
    pub fn sends(&self) -> bool {
        match self.spec.schedule {
            Schedule::At(_) => true,
            _ => self.open.sends(),
        }
    }

    /// The feed's next event after `now` (at `now` itself for a record
    /// already made up), or [`Time::NEVER`] when it makes no more.
    pub fn next(&mut self, now: Time) -> Time {
        match &self.spec.schedule {
            Schedule::At(times) => {
                let at = times
                    .get(self.next_time)
                    .map_or(Time::NEVER, |&t| self.res.at_tick(t));
                self.next_time += 1;
                at
            }
            _ => {
                let stream = &mut self.stream;
                self.open
                    .next(self.spec, now, self.res, || stream.exponential())
            }
        }
    }
}
