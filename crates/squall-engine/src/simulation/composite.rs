//! Composite responses: a node that fans out fetches its fields, keeps them
//! in its ledger where the policy allows, and answers or drops by the policy.

use squall_lang::Degradation;

use crate::outcome::{Answer, FailKind, Failure};

use super::{runner::Runner, NEVER};

impl Runner<'_, '_> {
    /// A composite response: fetch every field from its node, fall back on
    /// the ledger where the policy allows, and answer or drop by the policy.
    pub(super) fn assemble(&mut self, t: u64, slot: u32, node: usize) -> Answer {
        let sim = self.sim;
        let Some(spec) = &sim.model.nodes[node].composite else {
            return Answer::Ok;
        };
        let stale_for = spec.ledger.as_ref().map(|l| l.stale_for);
        let (mut fresh, mut stale, mut missing, mut bytes) = (0u32, 0u32, 0u32, 0u64);
        let mut core_missing = false;
        for (i, f) in spec.fields.iter().enumerate() {
            self.observe(t, slot, f.source);
            let answer = self
                .own_answer(t, slot, f.source, true, i)
                .unwrap_or(Answer::Ok);
            self.count_answer(t, f.source, answer);
            if answer == Answer::Ok {
                self.nodes[node].ledger[i] = t;
                fresh += 1;
                bytes += f.bytes + spec.marker;
                continue;
            }
            let last = self.nodes[node].ledger[i];
            let servable = spec.policy == Degradation::StaleFallback
                && last != NEVER
                && stale_for.is_some_and(|s| t - last <= s);
            if servable {
                stale += 1;
                bytes += f.bytes + spec.marker;
            } else {
                missing += 1;
                core_missing |= f.core;
            }
        }
        let not_fresh = stale + missing > 0;
        let drop = match spec.policy {
            Degradation::AllOrNothing => not_fresh,
            Degradation::SkipOptional | Degradation::StaleFallback => core_missing,
        };
        if drop {
            return Answer::Fail(Failure {
                kind: FailKind::Incomplete,
                not_before: None,
            });
        }
        if let Some(c) = self.obs.nodes[node].composite.as_mut() {
            let ti = t as usize;
            if not_fresh {
                c.reduced[ti] += 1;
            } else {
                c.full[ti] += 1;
            }
            c.fresh[ti] += fresh;
            c.stale[ti] += stale;
            c.missing[ti] += missing;
            c.bytes[ti] += bytes;
        }
        Answer::Ok
    }
}
