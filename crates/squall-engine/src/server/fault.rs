//! [`Failing`]: the faults that make a node answer with a failure.
//!
//! A fault with `fail RESPONSE` on a node answers every call the node gets
//! from tick `from` to tick `to` (inclusive) with that response, before the
//! node looks at its capacity or script. A periodic fault strikes only at
//! some of those ticks ([`squall_lang::Periodic`]); for a composite
//! response's fields the field's index shifts the pattern. When several are
//! active, the last declared wins. (Capacity faults live in
//! [`super::capacity`].)

use squall_lang::{FaultSpec, Model};

use crate::outcome::{answer_of, Answer};

/// The failing faults on one node.
#[derive(Debug, Clone)]
pub(crate) struct Failing {
    /// (from, to, fault index), in declaration order.
    faults: Vec<(u64, u64, usize)>,
}

impl Failing {
    /// The failing faults on replica `replica` of node `node` of `model`
    /// (those `on` the node, and those `on` that replica alone).
    pub(crate) fn new(model: &Model, node: usize, replica: usize) -> Self {
        Failing {
            faults: model
                .faults
                .iter()
                .enumerate()
                .filter(|(_, f)| f.node == node && f.strikes_replica(replica) && f.fail.is_some())
                .map(|(k, f)| (f.from, f.to, k))
                .collect(),
        }
    }

    /// No failing fault on this replica.
    pub(crate) fn is_empty(&self) -> bool {
        self.faults.is_empty()
    }

    /// The answer of the failing fault active at tick `t` (for composite
    /// field `field`; 0 otherwise), if any.
    #[inline]
    pub(crate) fn answer(&self, faults: &[FaultSpec], t: u64, field: usize) -> Option<Answer> {
        let active = |&&(from, to, k): &&(u64, u64, usize)| {
            from <= t && t <= to && faults[k].periodic.is_none_or(|p| p.strikes(t, field))
        };
        let &(_, _, k) = self.faults.iter().rev().find(active)?;
        faults[k].fail.as_ref().map(|resp| answer_of(resp, t))
    }
}
