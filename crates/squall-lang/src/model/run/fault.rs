//! Faults: a change to a node during a range of ticks, possibly periodic.

use serde::Serialize;

use super::ResponseSpec;

/// A fault: a change to a node during an inclusive range of ticks.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct FaultSpec {
    /// The fault's name.
    pub name: String,
    /// The node it affects.
    pub node: usize,
    /// The one replica of a replicated node it affects (`on api[1]`);
    /// none: every replica (`on api`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replica: Option<u32>,
    /// A link fault (`on api -> db`): the caller, `node` being the callee.
    /// It acts on the tries the caller sends the callee and on the answers
    /// that come back, never at either node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<usize>,
    /// First tick.
    pub from: u64,
    /// Last tick.
    pub to: u64,
    /// The node's capacity while the fault lasts \[calls/tick\].
    pub capacity: Option<u64>,
    /// The answer the node gives to every call while the fault lasts.
    pub fail: Option<ResponseSpec>,
    /// Only at some ticks: `(t + phase + step * field) % every == 0`.
    pub periodic: Option<Periodic>,
    /// What it does to calls that take time (latency, error share, workers).
    #[serde(skip_serializing_if = "super::TimedFault::is_empty")]
    pub timed: super::TimedFault,
}

/// A fault that strikes periodically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Periodic {
    /// The period \[ticks\].
    pub every: u64,
    /// The phase \[ticks\].
    pub phase: u64,
    /// The phase step per field of a composite response \[ticks\].
    pub step: u64,
}

impl FaultSpec {
    /// True when it strikes replica `r` of its node (a link fault strikes
    /// no node).
    pub fn strikes_replica(&self, r: usize) -> bool {
        self.link.is_none() && self.replica.is_none_or(|x| x as usize == r)
    }

    /// True when it is in force at tick `t` (for a call made for no
    /// composite field).
    pub fn in_force(&self, t: u64) -> bool {
        self.in_force_for(t, 0)
    }

    /// True when it is in force at tick `t` for a call made for composite
    /// field `field` (0 for other calls): inside its range, and at a tick
    /// it strikes when it is periodic.
    pub fn in_force_for(&self, t: u64, field: usize) -> bool {
        self.from <= t && t <= self.to && self.periodic.is_none_or(|p| p.strikes(t, field))
    }
}

impl Periodic {
    /// True when it strikes at tick `t` for field `field` (0 for calls not
    /// made for a field).
    pub fn strikes(&self, t: u64, field: usize) -> bool {
        let shifted = t as u128 + self.phase as u128 + self.step as u128 * field as u128;
        self.every > 0 && shifted.is_multiple_of(self.every as u128)
    }
}
