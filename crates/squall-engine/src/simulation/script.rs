//! A node's own answer, given without calling downstream: a failing fault,
//! no capacity left, or (at the bottom of a path) its scripted routes.

use crate::outcome::{answer_of, Answer, FailKind, Failure};

use super::runner::Runner;

impl Runner<'_, '_> {
    /// The answer a node gives by itself, without calling downstream: a
    /// failing fault, no capacity, or (at the bottom of a path) its script.
    #[inline]
    pub(super) fn own_answer(
        &mut self,
        t: u64,
        slot: u32,
        node: usize,
        leaf: bool,
        field: usize,
    ) -> Option<Answer> {
        if let Some(a) = self.refusal(t, node, field) {
            return Some(a);
        }
        if !leaf {
            return None;
        }
        Some(self.leaf_answer(t, slot, node))
    }

    /// The answer of a node that does not serve a call at all: a failing
    /// fault in force, or no per-tick capacity left.
    #[inline]
    pub(super) fn refusal(&mut self, t: u64, node: usize, field: usize) -> Option<Answer> {
        let m = self.sim.model;
        let failing = &self.nodes[node].failing;
        let active = |&&(from, to, k): &&(u64, u64, usize)| {
            from <= t && t <= to && m.faults[k].periodic.is_none_or(|p| p.strikes(t, field))
        };
        if let Some(&(_, _, k)) = failing.iter().rev().find(active) {
            if let Some(resp) = &m.faults[k].fail {
                return Some(answer_of(resp, t));
            }
        }
        if !self.nodes[node].take(t, &m.faults) {
            self.obs.nodes[node].refused[t as usize] += 1;
            return Some(Answer::Fail(Failure {
                kind: FailKind::Refused,
                not_before: None,
            }));
        }
        None
    }

    /// The answer of a node at the bottom of a path that serves the call:
    /// its composite response, its scripted routes, or success.
    pub(super) fn leaf_answer(&mut self, t: u64, slot: u32, node: usize) -> Answer {
        let m = self.sim.model;
        if m.nodes[node].composite.is_some() {
            return self.assemble(t, slot, node);
        }
        let routes = &m.nodes[node].routes;
        if routes.is_empty() {
            return Answer::Ok;
        }
        let req = &self.sim.kinds[self.requests.kind[slot as usize] as usize].request;
        let Some(r) = routes.iter().position(|r| {
            r.method.is_none_or(|mm| mm == req.method)
                && r.path.as_ref().is_none_or(|p| *p == req.path)
        }) else {
            return Answer::Fail(Failure {
                kind: FailKind::Status(404),
                not_before: None,
            });
        };
        self.nodes[node].route_calls[r] += 1;
        // The route's script is a little state machine: the current step,
        // and the calls it has answered. A step `x N` ends after N calls, a
        // step `until T` at tick T; the last step holds for ever.
        let script = &routes[r].script;
        let (mut step, mut used) = self.nodes[node].route_steps[r];
        while step + 1 < script.len() {
            let s = &script[step];
            let over = match (s.times, s.until) {
                (Some(n), _) => used >= n,
                (None, Some(u)) => t >= u,
                (None, None) => false,
            };
            if !over {
                break;
            }
            step += 1;
            used = 0;
        }
        self.nodes[node].route_steps[r] = (step, used + 1);
        script
            .get(step)
            .map_or(Answer::Ok, |s| answer_of(&s.response, t))
    }
}
