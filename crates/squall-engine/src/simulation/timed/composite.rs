//! Composite responses with time: a node with a `response` fetches its
//! fields in parallel, waits for each at most its timeout, and assembles
//! what came back under its degradation policy
//! ([`crate::server::composite::Assembly`], the zero-time path's rules).
//!
//! # The rule
//!
//! A call at a composite node first does the node's own work (its queue,
//! worker and service time, as any call). Then, at moment `s`, it sends
//! one call per field, all at `s`, each to the field's node, where it
//! meets that node's server as any call does (faults, error shares, rate
//! limit, workers and queue, service time). Field `i` waits until
//! `s + timeout_i` at most: the field's own `timeout`, else the node's
//! `timeout`, else no limit; cut at the deadline the node knows. A field
//! that answers by then is *in* with its answer; one still out at its
//! limit is *out* — it counts as a timeout at the composite node and as a
//! failed field (stale from the ledger or missing, by the policy), and its
//! call is left behind as an orphan (wasted work at the field's node), or
//! cancelled when the node says `cancel` or a propagated deadline passed.
//!
//! The response is assembled when the last field is in or out: at the
//! latest of the answers that made it and the limits of those that did
//! not. A field with a 50 ms timeout that answers at 30 ms is in; one that
//! would answer at 70 ms is out at 50 ms, and the response leaves at
//! `max(30, 50) = 50` ms after `s`. The ledger hears each fresh field at
//! the tick the response is assembled, and a stale value's age is counted
//! at that tick too. The composite node holds its worker while it waits.
//!
//! Fields at nodes that take no time answer inline, so a response whose
//! fields all take no time is assembled in the moment it is asked, as on
//! the zero-time path.

use crate::outcome::{Answer, FailKind, Failure};
use crate::server::composite::Assembly;
use crate::time::Time;

use super::super::{event::Event, runner::Runner, SimError};
use super::calls::{Phase, NONE};
use super::recorder::Count;

/// The fields of one composite response being fetched.
#[derive(Debug, Clone)]
pub(super) struct Fetch {
    /// Per field: the call fetching it, `NONE` once it is in or out.
    child: Vec<u32>,
    /// Per field: its answer once in or out.
    answer: Vec<Option<Answer>>,
    /// Per field: when the response stops waiting for it.
    until: Vec<Time>,
    /// Fields neither in nor out yet.
    left: usize,
}

/// The fetches in flight, by the composite call's index.
#[derive(Debug, Default)]
pub(super) struct Fetches {
    by_call: Vec<Option<Fetch>>,
}

impl Fetches {
    fn get_mut(&mut self, c: u32) -> Option<&mut Fetch> {
        self.by_call.get_mut(c as usize).and_then(Option::as_mut)
    }

    fn put(&mut self, c: u32, f: Fetch) {
        let i = c as usize;
        if self.by_call.len() <= i {
            self.by_call.resize(i + 1, None);
        }
        self.by_call[i] = Some(f);
    }

    fn take(&mut self, c: u32) -> Option<Fetch> {
        self.by_call.get_mut(c as usize).and_then(Option::take)
    }

    /// True when call `c` waits for its fields.
    pub(super) fn fetching(&self, c: u32) -> bool {
        self.by_call.get(c as usize).is_some_and(Option::is_some)
    }

    /// The calls still fetching fields for `c`.
    fn pending(&self, c: u32) -> Vec<u32> {
        self.by_call
            .get(c as usize)
            .and_then(Option::as_ref)
            .map(|f| f.child.iter().copied().filter(|&x| x != NONE).collect())
            .unwrap_or_default()
    }
}

impl Runner<'_, '_> {
    /// Call `c` at composite node `node` is done with its own work at
    /// `now`: it sends one call per field and waits.
    pub(super) fn fetch_fields(&mut self, now: Time, c: u32, node: usize) -> Result<(), SimError> {
        let sim = self.sim;
        let Some(spec) = &sim.model.nodes[node].composite else {
            return Ok(());
        };
        let n = spec.fields.len();
        let res = self.timed.res;
        let own = self.nodes[node].caller.timeout();
        let deadline = self.known_deadline(c);
        let until: Vec<Time> = spec
            .fields
            .iter()
            .map(|f| {
                let limit = f.timeout.map(|t| res.duration(t)).or(own);
                let at = limit.map_or(Time::NEVER, |d| now.after(d));
                deadline.map_or(at, |d| at.min(d))
            })
            .collect();
        let gen = self.timed.calls.enter(c, Phase::Waiting);
        self.timed.fetches.put(
            c,
            Fetch {
                child: vec![NONE; n],
                answer: vec![None; n],
                until: until.clone(),
                left: n,
            },
        );
        let mut wakes: Vec<Time> = until.into_iter().filter(|&t| t != Time::NEVER).collect();
        wakes.sort_unstable();
        wakes.dedup();
        for at in wakes {
            self.timed
                .events
                .schedule(at.units(), Event::Wake { call: c, gen })?;
        }
        if n == 0 {
            return self.assemble_fetch(now, c, node);
        }
        let (slot, pos) = {
            let call = self.timed.calls.get(c);
            (call.slot, call.pos)
        };
        for (i, f) in spec.fields.iter().enumerate() {
            // Every field before the last is still out here: the response
            // cannot be complete before its last field was asked.
            let child = self.new_call(slot, pos + 1, c, now);
            let call = self.timed.calls.get_mut(child);
            call.field = i as u32;
            call.field_node = f.source as u32;
            if let Some(fetch) = self.timed.fetches.get_mut(c) {
                fetch.child[i] = child;
            }
            self.arrive_timed(now, child)?;
        }
        Ok(())
    }

    /// Field `i` of the response call `p` waits for answered `answer` at
    /// `now`: it is in.
    pub(super) fn field_answered(
        &mut self,
        now: Time,
        p: u32,
        i: usize,
        answer: Answer,
    ) -> Result<(), SimError> {
        let Some(fetch) = self.timed.fetches.get_mut(p) else {
            return Ok(());
        };
        if fetch.answer[i].is_some() {
            return Ok(());
        }
        fetch.answer[i] = Some(answer);
        fetch.child[i] = NONE;
        fetch.left -= 1;
        if fetch.left > 0 {
            return Ok(());
        }
        let (node, _, _) = self.node_of(p);
        self.assemble_fetch(now, p, node)
    }

    /// A limit of response call `p` is reached at `now`: every field still
    /// out whose limit has come is out (a timeout); the last one assembles.
    pub(super) fn fetch_wake(&mut self, now: Time, p: u32) -> Result<(), SimError> {
        let (node, source, _) = self.node_of(p);
        let slot = self.timed.calls.get(p).slot;
        let Some(fetch) = self.timed.fetches.get_mut(p) else {
            return Ok(());
        };
        let mut out = Vec::new();
        for i in 0..fetch.answer.len() {
            if fetch.answer[i].is_none() && fetch.until[i] <= now {
                fetch.answer[i] = Some(Answer::Fail(Failure {
                    kind: FailKind::Timeout,
                    not_before: None,
                }));
                out.push(std::mem::replace(&mut fetch.child[i], NONE));
                fetch.left -= 1;
            }
        }
        let done = fetch.left == 0;
        let propagated_past = self.sim.model.sources[source]
            .deadline
            .as_ref()
            .is_some_and(|d| d.propagate)
            && now >= self.timed.deadline[slot as usize];
        let cancel = self.nodes[node].caller.cancels() || propagated_past;
        for child in out {
            self.timed.recorder.count(node, Count::Timeout, now, 1);
            if child == NONE {
                continue;
            }
            if cancel {
                self.cancel_chain(now, child)?;
            } else {
                self.timed.calls.get_mut(child).detached = true;
                self.orphan_from(now, child);
            }
        }
        if done {
            self.assemble_fetch(now, p, node)?;
        }
        Ok(())
    }

    /// Response call `p` has every field in or out: the policy decides at
    /// `now`, and the node answers.
    fn assemble_fetch(&mut self, now: Time, p: u32, node: usize) -> Result<(), SimError> {
        let Some(fetch) = self.timed.fetches.take(p) else {
            return Ok(());
        };
        let sim = self.sim;
        let Some(spec) = &sim.model.nodes[node].composite else {
            return Ok(());
        };
        let tick = self.timed.res.tick_of(now);
        let mut assembly = Assembly::default();
        for (i, a) in fetch.answer.iter().enumerate() {
            let a = a.unwrap_or(Answer::Fail(Failure {
                kind: FailKind::Timeout,
                not_before: None,
            }));
            assembly.add(spec, i, a, tick, self.nodes[node].server.ledger_mut());
        }
        let ti = self.obs.slots.index(tick);
        let answer = assembly.finish(spec, ti, self.obs.nodes[node].composite.as_mut());
        self.complete_call(now, p, answer)
    }

    /// Call `x` and everything below it works for a caller that gave up at
    /// `now`: the calls down its chain and the fields it fetches.
    pub(super) fn orphan_from(&mut self, now: Time, x: u32) {
        let mut stack = vec![x];
        while let Some(c) = stack.pop() {
            if c == NONE {
                continue;
            }
            let call = self.timed.calls.get_mut(c);
            call.orphan = true;
            call.orphaned_at = call.orphaned_at.min(now);
            stack.push(call.child);
            stack.extend(self.timed.fetches.pending(c));
        }
    }

    /// Call `c` is cancelled at `now`: the fields it still fetches are
    /// cancelled with it.
    pub(super) fn cancel_fields(&mut self, now: Time, c: u32) -> Result<(), SimError> {
        if !self.timed.fetches.fetching(c) {
            return Ok(());
        }
        let pending = self.timed.fetches.pending(c);
        self.timed.fetches.take(c);
        for child in pending {
            self.cancel_chain(now, child)?;
        }
        Ok(())
    }
}
