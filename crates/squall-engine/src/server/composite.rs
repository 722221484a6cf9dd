//! [`Assembly`]: a composite response put together from its fields.
//!
//! A node with a composite response fetches every field from the node it
//! comes from (the event loop makes those calls). A fresh field is written
//! to the node's ledger (the tick of its last fresh value). A field that
//! failed may be served stale from the ledger under `stale fallback`, when
//! the ledger holds a value at most `stale_for` ticks old; otherwise it is
//! missing. The degradation policy then decides:
//!
//! * `all or nothing` — any field not fresh drops the response;
//! * `skip optional` and `stale fallback` — a missing core field drops it.
//!
//! A dropped response fails as incomplete; an answered one is counted as
//! full or reduced, with its fresh, stale and missing fields and its bytes
//! (each present field carries the policy's freshness marker).
//!
//! On the zero-time path every field is fetched and added in the tick of
//! the request. When calls take time, the fields are fetched in parallel
//! and a field not back by its limit is added as a timeout: [`Fetches`]
//! keeps each response's fields in flight and decides when a field is in
//! or out and when the response is assembled; the event loop makes the
//! calls, wakes the response at the limits [`Fetches::start`] returns,
//! and cancels or leaves behind the calls of fields that are out
//! (`simulation/timed/composite.rs`). The assembly rules are the same.

use squall_lang::{CompositeSpec, Degradation};

use crate::observe::series::CompositeSeries;
use crate::outcome::{Answer, FailKind, Failure};
use crate::time::{Duration, Resolution, Time, NEVER};

/// The fields of one composite response so far.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Assembly {
    fresh: u32,
    stale: u32,
    missing: u32,
    bytes: u64,
    core_missing: bool,
}

impl Assembly {
    /// Adds field `i` of `spec`, answered with `answer` at tick `t`; keeps
    /// `ledger` (the tick of each field's last fresh value).
    pub(crate) fn add(
        &mut self,
        spec: &CompositeSpec,
        i: usize,
        answer: Answer,
        t: u64,
        ledger: &mut [u64],
    ) {
        let f = &spec.fields[i];
        if answer == Answer::Ok {
            ledger[i] = t;
            self.fresh += 1;
            self.bytes += f.bytes + spec.marker;
            return;
        }
        let stale_for = spec.ledger.as_ref().map(|l| l.stale_for);
        let last = ledger[i];
        let servable = spec.policy == Degradation::StaleFallback
            && last != NEVER
            && stale_for.is_some_and(|s| t - last <= s);
        if servable {
            self.stale += 1;
            self.bytes += f.bytes + spec.marker;
        } else {
            self.missing += 1;
            self.core_missing |= f.core;
        }
    }

    /// The response's answer under `spec`'s policy; an answered response
    /// is counted in slot `ti` of `series`.
    pub(crate) fn finish(
        self,
        spec: &CompositeSpec,
        ti: usize,
        series: Option<&mut CompositeSeries>,
    ) -> Answer {
        let not_fresh = self.stale + self.missing > 0;
        let drop = match spec.policy {
            Degradation::AllOrNothing => not_fresh,
            Degradation::SkipOptional | Degradation::StaleFallback => self.core_missing,
        };
        if drop {
            return Answer::Fail(Failure {
                kind: FailKind::Incomplete,
                not_before: None,
            });
        }
        if let Some(c) = series {
            if not_fresh {
                c.reduced[ti] += 1;
            } else {
                c.full[ti] += 1;
            }
            c.fresh[ti] += self.fresh;
            c.stale[ti] += self.stale;
            c.missing[ti] += self.missing;
            c.bytes[ti] += self.bytes;
        }
        Answer::Ok
    }
}

/// A field not back by its limit.
const TIMED_OUT: Answer = Answer::Fail(Failure {
    kind: FailKind::Timeout,
    not_before: None,
});

/// The fields of one composite response being fetched.
#[derive(Debug, Clone)]
struct Fetch {
    /// Per field: the call fetching it, `None` once it is in or out.
    child: Vec<Option<u32>>,
    /// Per field: its answer once in or out.
    answer: Vec<Option<Answer>>,
    /// Per field: when the response stops waiting for it.
    until: Vec<Time>,
    /// Fields neither in nor out yet.
    left: usize,
}

/// The composite responses being fetched when calls take time, by the
/// event loop's handle on the response's call (its index).
#[derive(Debug, Default)]
pub(crate) struct Fetches {
    by_call: Vec<Option<Fetch>>,
}

impl Fetches {
    fn get_mut(&mut self, c: u32) -> Option<&mut Fetch> {
        self.by_call.get_mut(c as usize).and_then(Option::as_mut)
    }

    /// Call `c` sends the fields of `spec` at `now`: field `i` waits until
    /// `now` plus its own timeout, else `own` (the node's), else forever,
    /// cut at `deadline` (the one the node knows). The distinct limits,
    /// earliest first: the loop wakes `c` at each.
    pub(crate) fn start(
        &mut self,
        c: u32,
        spec: &CompositeSpec,
        now: Time,
        res: Resolution,
        own: Option<Duration>,
        deadline: Option<Time>,
    ) -> Vec<Time> {
        let n = spec.fields.len();
        let until: Vec<Time> = spec
            .fields
            .iter()
            .map(|f| {
                let limit = f.timeout.map(|t| res.duration(t)).or(own);
                let at = limit.map_or(Time::NEVER, |d| now.after(d));
                deadline.map_or(at, |d| at.min(d))
            })
            .collect();
        let mut wakes: Vec<Time> = until
            .iter()
            .copied()
            .filter(|&t| t != Time::NEVER)
            .collect();
        wakes.sort_unstable();
        wakes.dedup();
        let i = c as usize;
        if self.by_call.len() <= i {
            self.by_call.resize(i + 1, None);
        }
        self.by_call[i] = Some(Fetch {
            child: vec![None; n],
            answer: vec![None; n],
            until,
            left: n,
        });
        wakes
    }

    /// Call `child` fetches field `i` of response `c`.
    pub(crate) fn sent(&mut self, c: u32, i: usize, child: u32) {
        if let Some(f) = self.get_mut(c) {
            f.child[i] = Some(child);
        }
    }

    /// Field `i` of response `c` answered `answer`: it is in, unless it
    /// was already out. True when it was the last field neither in nor
    /// out: the response is assembled now.
    pub(crate) fn answered(&mut self, c: u32, i: usize, answer: Answer) -> bool {
        let Some(f) = self.get_mut(c) else {
            return false;
        };
        if f.answer[i].is_some() {
            return false;
        }
        f.answer[i] = Some(answer);
        f.child[i] = None;
        f.left -= 1;
        f.left == 0
    }

    /// Response `c` is woken at `now`: every field neither in nor out
    /// whose limit has come is out, a timeout. Per such field, the call
    /// that fetched it (the loop cancels it or leaves it behind), and
    /// whether every field is now in or out (the response is assembled
    /// now); nothing when `c` fetches no fields.
    pub(crate) fn time_out(&mut self, c: u32, now: Time) -> (Vec<Option<u32>>, bool) {
        let Some(f) = self.get_mut(c) else {
            return (Vec::new(), false);
        };
        let mut out = Vec::new();
        for i in 0..f.answer.len() {
            if f.answer[i].is_none() && f.until[i] <= now {
                f.answer[i] = Some(TIMED_OUT);
                out.push(f.child[i].take());
                f.left -= 1;
            }
        }
        (out, f.left == 0)
    }

    /// Response `c` has every field in or out: its answer under `spec`'s
    /// policy ([`Assembly`]), with the fields added at tick `t` (the
    /// ledger hears the fresh ones then) and the response counted in slot
    /// `ti` of `series`. `None` when `c` fetches no fields.
    pub(crate) fn assemble(
        &mut self,
        c: u32,
        spec: &CompositeSpec,
        t: u64,
        ledger: &mut [u64],
        ti: usize,
        series: Option<&mut CompositeSeries>,
    ) -> Option<Answer> {
        let f = self.by_call.get_mut(c as usize).and_then(Option::take)?;
        let mut assembly = Assembly::default();
        for (i, a) in f.answer.iter().enumerate() {
            assembly.add(spec, i, a.unwrap_or(TIMED_OUT), t, ledger);
        }
        Some(assembly.finish(spec, ti, series))
    }

    /// True when call `c` waits for its fields.
    pub(crate) fn fetching(&self, c: u32) -> bool {
        self.by_call.get(c as usize).is_some_and(Option::is_some)
    }

    /// The calls still fetching fields for `c`.
    pub(crate) fn pending(&self, c: u32) -> Vec<u32> {
        self.by_call
            .get(c as usize)
            .and_then(Option::as_ref)
            .map(|f| f.child.iter().flatten().copied().collect())
            .unwrap_or_default()
    }

    /// Response `c` is cancelled: it fetches nothing more; the calls still
    /// fetching its fields (the loop cancels them).
    pub(crate) fn cancel(&mut self, c: u32) -> Vec<u32> {
        if !self.fetching(c) {
            return Vec::new();
        }
        let pending = self.pending(c);
        self.by_call[c as usize] = None;
        pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use squall_lang::FieldSpec;

    fn field(core: bool, timeout: Option<f64>) -> FieldSpec {
        FieldSpec {
            name: String::new(),
            source: 1,
            core,
            bytes: 10,
            timeout,
        }
    }

    fn spec(policy: Degradation, fields: Vec<FieldSpec>) -> CompositeSpec {
        CompositeSpec {
            fields,
            marker: 0,
            policy,
            ledger: None,
        }
    }

    const fn at(units: u64) -> Time {
        Time::from_units(units)
    }

    /// Hand-worked, in ticks as engine units (`Resolution::TICKS`, so a
    /// timeout of 50 ticks is 50 units exactly): response call 3 sends its
    /// fields at 100; field 0 (core, its own 50-tick timeout) answers at
    /// 130, before its limit 150; field 1 (optional, the node's 80-tick
    /// timeout) is still out at its limit 180 and is out then.
    #[test]
    fn a_field_past_its_limit_is_out_and_the_last_one_assembles() {
        let spec = spec(
            Degradation::SkipOptional,
            vec![field(true, Some(50.0)), field(false, None)],
        );
        let mut f = Fetches::default();
        let own = Some(Duration::from_units(80));
        // The limits 100 + 50 and 100 + 80, earliest first.
        let wakes = f.start(3, &spec, at(100), Resolution::TICKS, own, None);
        assert_eq!(wakes, vec![at(150), at(180)]);
        f.sent(3, 0, 7);
        f.sent(3, 1, 8);
        assert_eq!(f.pending(3), vec![7, 8]);
        // Field 0 is in; field 1 is neither in nor out.
        assert!(!f.answered(3, 0, Answer::Ok));
        assert_eq!(f.pending(3), vec![8]);
        // At 150 only field 0's limit has come, and it is in already.
        assert_eq!(f.time_out(3, at(150)), (vec![], false));
        // At 180 field 1 is out: its call goes back to the loop, and no
        // field is left.
        assert_eq!(f.time_out(3, at(180)), (vec![Some(8)], true));
        // Its late answer changes nothing.
        assert!(!f.answered(3, 1, Answer::Ok));
        // Skip optional: a missing optional field leaves a reduced
        // response, answered; the fresh field 0 enters the ledger at the
        // tick of the assembly.
        let mut ledger = [NEVER; 2];
        let answer = f.assemble(3, &spec, 180, &mut ledger, 0, None);
        assert_eq!(answer, Some(Answer::Ok));
        assert_eq!(ledger, [180, NEVER]);
        assert!(!f.fetching(3));
        assert_eq!(f.assemble(3, &spec, 180, &mut ledger, 0, None), None);
    }

    /// Hand-worked: a deadline at 120 cuts field 0's limit (100 + 50) and
    /// gives field 1, which has none, one: a single wake at 120, where
    /// both are out; all or nothing then drops the response.
    #[test]
    fn the_deadline_cuts_the_limits_and_all_or_nothing_drops() {
        let spec = spec(
            Degradation::AllOrNothing,
            vec![field(true, Some(50.0)), field(false, None)],
        );
        let mut f = Fetches::default();
        let wakes = f.start(0, &spec, at(100), Resolution::TICKS, None, Some(at(120)));
        assert_eq!(wakes, vec![at(120)]);
        f.sent(0, 0, 5);
        f.sent(0, 1, 6);
        assert_eq!(f.time_out(0, at(120)), (vec![Some(5), Some(6)], true));
        let mut ledger = [NEVER; 2];
        let answer = f.assemble(0, &spec, 120, &mut ledger, 0, None);
        assert_eq!(
            answer,
            Some(Answer::Fail(Failure {
                kind: FailKind::Incomplete,
                not_before: None,
            }))
        );
    }

    /// A cancelled response gives back the calls still fetching (field 0
    /// answered, so only field 1's) and fetches nothing more.
    #[test]
    fn a_cancelled_response_gives_back_its_pending_calls() {
        let spec = spec(
            Degradation::SkipOptional,
            vec![field(true, None), field(false, None)],
        );
        let mut f = Fetches::default();
        // No limit at all: no wake.
        assert!(f
            .start(2, &spec, at(0), Resolution::TICKS, None, None)
            .is_empty());
        f.sent(2, 0, 9);
        f.sent(2, 1, 10);
        assert!(!f.answered(2, 0, Answer::Ok));
        assert_eq!(f.cancel(2), vec![10]);
        assert!(!f.fetching(2));
        assert!(f.cancel(2).is_empty());
    }
}
