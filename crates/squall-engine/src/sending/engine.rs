//! [`Senders`]: every sender and provider of a run, as the timed engine's
//! loop holds them beside its nodes, and the few methods that loop calls.
//!
//! The loop (`simulation/timed/flow/`) pops a sender's event off its one
//! calendar like any other and hands it to [`SendersRef::handle`], which
//! gives it to `Sender::handle` then `Sender::dispatch` of the sender it
//! belongs to; each attempt goes to `Provider::answer` of the provider the
//! sender names. Senders naming one provider hand their attempts to the
//! same value, so they share its ceiling. The entry that builds a run of
//! senders is `run.rs`; its module doc says what the run keeps of the
//! sending loop it replaced (its end, its budget, its order of events).

use crate::error::SimError;
use crate::time::{Resolution, Time};

use super::calendar::{Calendar, SendEvent};
use super::observations::SendObservations;
use super::provider::Provider;
use super::sender::{tick_seconds, Sender};
use super::spec::SendSpec;

/// The label suffix of the `i`th component of its kind: none for the
/// first, ` NAME` for the others (see `run.rs`).
fn suffix(i: usize, name: &str) -> String {
    if i == 0 {
        String::new()
    } else {
        format!(" {name}")
    }
}

/// The senders and providers of one run.
pub struct Senders<'a> {
    senders: Vec<Sender<'a>>,
    providers: Vec<Provider<'a>>,
    /// The provider each sender names, by index.
    provider_of: Vec<usize>,
    /// The run's end, `ticks` (the first sender's): events after it do
    /// nothing, as in the sending loop this replaced, which stopped there.
    end: Time,
}

impl<'a> Senders<'a> {
    /// The senders of `specs` (at least one) and the providers they name,
    /// by name, in the order the senders first name them. The clock, the
    /// length and the seed are the first sender's.
    pub(super) fn new(specs: &'a [SendSpec]) -> Self {
        let first = &specs[0];
        let res = Resolution::fine(first.clock);
        let sec = tick_seconds(first.clock) / res.per_tick() as f64;
        let mut providers: Vec<Provider> = Vec::new();
        let mut names: Vec<&str> = Vec::new();
        let mut provider_of = Vec::with_capacity(specs.len());
        for s in specs {
            let name = s.provider.name.as_str();
            let i = match names.iter().position(|n| *n == name) {
                Some(i) => i,
                None => {
                    let i = names.len();
                    let suffix = suffix(i, name);
                    providers.push(Provider::new(&s.provider, first.seed, &suffix, res, sec));
                    names.push(name);
                    i
                }
            };
            provider_of.push(i);
        }
        let senders = specs
            .iter()
            .enumerate()
            .map(|(i, s)| Sender::new(s, i as u32, &suffix(i, &s.name), res, sec))
            .collect();
        Senders {
            senders,
            providers,
            provider_of,
            end: res.at_tick(first.ticks),
        }
    }

    /// Time 0: every sender starts, in declaration order.
    pub fn start(&mut self, cal: &mut impl Calendar) -> Result<(), SimError> {
        for (i, s) in self.senders.iter_mut().enumerate() {
            s.start(&mut self.providers[self.provider_of[i]], cal)?;
        }
        Ok(())
    }

    /// One event at `now`: its sender handles it, then dispatches unless
    /// the event was a wake-up a sooner one replaced. Nothing happens past
    /// the run's end.
    fn handle(&mut self, now: Time, e: SendEvent, cal: &mut impl Calendar) -> Result<(), SimError> {
        if now > self.end {
            return Ok(());
        }
        let i = e.sender();
        let sender = &mut self.senders[i];
        if sender.handle(now, e.kind(), cal)? {
            sender.dispatch(now, &mut self.providers[self.provider_of[i]], cal)?;
        }
        Ok(())
    }

    /// What each sender measured at the run's end, in order.
    pub(super) fn finish(self) -> Vec<SendObservations> {
        let end = self.end;
        self.senders.into_iter().map(|s| s.finish(end)).collect()
    }
}

/// The senders a run of the timed engine holds: none for a run of
/// services, whose calendar never carries a sender's event.
#[derive(Default)]
pub struct SendersRef<'s, 'a>(Option<&'s mut Senders<'a>>);

impl<'s, 'a> SendersRef<'s, 'a> {
    /// The senders `s`, held for one run.
    pub fn new(s: &'s mut Senders<'a>) -> Self {
        SendersRef(Some(s))
    }

    /// A sender's event at `now`, off the run's calendar `cal`.
    #[inline]
    pub fn handle(
        &mut self,
        now: Time,
        e: SendEvent,
        cal: &mut impl Calendar,
    ) -> Result<(), SimError> {
        match &mut self.0 {
            Some(s) => s.handle(now, e, cal),
            None => Ok(()),
        }
    }
}
