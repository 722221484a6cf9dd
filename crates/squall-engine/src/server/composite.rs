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
//! and a field not back by its timeout is added as a timeout
//! (`simulation/timed/composite.rs`); the rules here are the same.

use squall_lang::{CompositeSpec, Degradation};

use crate::observe::series::CompositeSeries;
use crate::outcome::{Answer, FailKind, Failure};
use crate::time::NEVER;

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
