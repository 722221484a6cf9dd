//! [`Failing`]: the faults that make a node answer with a failure.
//!
//! A fault with `fail RESPONSE` on a node answers every call the node gets
//! from tick `from` to tick `to` (inclusive) with that response, before the
//! node looks at its capacity or script. A periodic fault strikes only at
//! some of those ticks ([`squall_lang::Periodic`]); for a composite
//! response's fields the field's index shifts the pattern. When several are
//! active, the last declared wins. (Capacity faults live in
//! [`super::capacity`].)
//!
//! When calls take time, the latency faults in force scale and add to a
//! call's service time ([`latency_faulted`]).

use squall_lang::{FaultSpec, Model};

use super::keyed::jittered;
use crate::outcome::{answer_of, Answer};
use crate::rng::{Purpose, Stream};
use crate::time::{Duration, Resolution};

/// The failing faults on one node.
#[derive(Debug, Clone)]
pub(crate) struct Failing {
    /// Their indices among the model's faults, in declaration order (each
    /// in force by the rule every fault follows: [`FaultSpec::in_force_for`]).
    faults: Vec<usize>,
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
                .map(|(k, _)| k)
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
        if self.faults.is_empty() {
            return None;
        }
        self.answer_of(faults, t, field)
    }

    /// [`Failing::answer`] at a node with failing faults: out of line, so
    /// that the walk past a node without one keeps its registers.
    #[inline(never)]
    fn answer_of(&self, faults: &[FaultSpec], t: u64, field: usize) -> Option<Answer> {
        let &k = self
            .faults
            .iter()
            .rev()
            .find(|&&k| faults[k].in_force_for(t, field))?;
        faults[k].fail.as_ref().map(|resp| answer_of(resp, t))
    }
}

/// The service time of a call from its draw `d` (in units) at a node with
/// latency faults (`timed`: the node's faults that change time, each with
/// its stream): times the factors and plus the additions of those in force
/// at tick `tick`, the additions' jitter drawn from the fault's stream or,
/// under `draws common`, from the call's `key`. Out of line: most nodes
/// have none ([`ServerSide::service_time`](super::node::ServerSide::service_time)).
#[inline(never)]
pub(super) fn latency_faulted(
    mut d: f64,
    timed: &mut [(usize, Stream)],
    faults: &[FaultSpec],
    tick: u64,
    res: Resolution,
    key: Option<u64>,
) -> Duration {
    // The draw is rounded to a unit before a fault scales or adds to it;
    // with no fault in force the one rounding below gives the same.
    let mut rounded = false;
    for (k, stream) in timed {
        let f = &faults[*k];
        if f.in_force(tick) {
            if !rounded {
                d = Resolution::TICKS.duration(d).units() as f64;
                rounded = true;
            }
            if let Some(x) = f.timed.latency_factor {
                d *= x;
            }
            if let Some(a) = f.timed.latency_add {
                let j = f.timed.latency_jitter.unwrap_or(0.0);
                let a = jittered(a, j, stream, key, Purpose::Delay(*k));
                d += res.duration(a).units() as f64;
            }
        }
    }
    Resolution::TICKS.duration(d)
}
