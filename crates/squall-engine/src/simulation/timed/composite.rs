//! Composite responses with time: a node with a `response` fetches its
//! fields in parallel, waits for each at most its timeout, and assembles
//! what came back under its degradation policy. The server side decides
//! ([`Fetches`](crate::server::composite::Fetches): which fields are in or out, when the response is
//! assembled; [`crate::server::composite::Assembly`], the zero-time
//! path's rules); this file keeps the calls and the wakes, and the event
//! loop (`flow/`) makes the calls and cancels or leaves behind those of
//! the fields that are out.
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

use squall_lang::{CompositeSpec, NodeSpec};

use crate::observe::Observations;
use crate::outcome::Answer;
use crate::server::node::ServerSide;
use crate::time::{Duration, Time};

use super::super::{event::Event, SimError};
use super::calls::{Phase, NONE};
use super::recorder::Count;
use super::Timed;

impl Timed {
    /// Call `c` at a composite node is done with its own work at `now`:
    /// it waits for the fields of `spec` ([`Fetches::start`]; `own`: the
    /// node's timeout, `deadline`: the one it knows), woken at each
    /// field's limit. True when there are no fields: the response is
    /// assembled at once.
    pub(super) fn start_fetch(
        &mut self,
        now: Time,
        c: u32,
        spec: &CompositeSpec,
        own: Option<Duration>,
        deadline: Option<Time>,
    ) -> Result<bool, Box<SimError>> {
        let gen = self.calls.enter(c, Phase::Waiting);
        for at in self.fetches.start(c, spec, now, self.res, own, deadline) {
            self.events
                .schedule(at.units(), Event::Wake { call: c, gen })?;
        }
        Ok(spec.fields.is_empty())
    }

    /// Call `child` fetches field `i` of response call `c` from node
    /// `source`.
    pub(super) fn field_call(&mut self, c: u32, i: usize, child: u32, source: usize) {
        if self.keys.on {
            let key = super::keys::Keys::field(self.keys.of(child), i);
            self.keys.set(child, key);
        }
        let call = self.calls.get_mut(child);
        call.field = i as u32;
        // A field's node answers by itself (`node_of`).
        call.node = source as u32;
        call.leaf = true;
        self.fetches.sent(c, i, child);
    }

    /// Response call `c` at `node` is woken at `now`: the fields whose
    /// limit came are out, each counted as a timeout at `node`. The calls
    /// that fetched them (the loop cancels them or leaves them behind),
    /// and whether the response is assembled now.
    pub(super) fn fields_out(
        &mut self,
        now: Time,
        c: u32,
        node: usize,
    ) -> (Vec<Option<u32>>, bool) {
        let (out, done) = self.fetches.time_out(c, now);
        for _ in &out {
            self.recorder.count(node, Count::Timeout, now, 1);
        }
        (out, done)
    }

    /// Response call `p` at node `node` (`spec`) has every field in or out
    /// at `now`: its answer
    /// ([`Fetches::assemble`](crate::server::composite::Fetches::assemble), with the ledger of the
    /// node's `server`, counted in `obs`), or `None` when it fetched
    /// nothing.
    pub(super) fn assemble_fetch(
        &mut self,
        now: Time,
        p: u32,
        node: usize,
        spec: &NodeSpec,
        server: &mut ServerSide,
        obs: &mut Observations,
    ) -> Option<Answer> {
        let spec = spec.composite.as_ref()?;
        let tick = self.tick_of(now);
        let ti = obs.slots.index(tick);
        let series = obs.nodes[node].composite.as_mut();
        self.fetches
            .assemble(p, spec, tick, server.ledger_mut(), ti, series)
    }

    /// Call `x` and everything below it works for a caller that gave up at
    /// `now`: the calls down its chain and the fields it fetches.
    pub(super) fn orphan_from(&mut self, now: Time, x: u32) {
        let mut stack = vec![x];
        while let Some(c) = stack.pop() {
            if c == NONE {
                continue;
            }
            let call = self.calls.get_mut(c);
            call.orphan = true;
            call.orphaned_at = call.orphaned_at.min(now);
            stack.push(call.child);
            stack.extend(self.fetches.pending(c));
        }
    }
}
