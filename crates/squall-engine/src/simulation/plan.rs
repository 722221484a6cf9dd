//! [`Step`]: a request path's position as the zero-time walk reads it.
//!
//! The walk down a path ([`Runner::arrive`](super::runner::Runner)) and
//! back up (`deliver`) asks at every position which components the node
//! there holds: a breaker or a throttle to ask before a try and tell
//! after it, a retry budget or gate to tell when a request opens and
//! leaves its retry loop, and the retry policy a failed answer meets. A
//! model fixes all of it, so the builder works it out once per path
//! position, next to the node's index, and a node without a component
//! pays one test of a flag it has already loaded for it (issue 23: a
//! node pays only for what it has). Which components a node holds is the
//! caller side's rule ([`CallerSide::holds`]); the runner checks that the
//! node states it builds agree.

use squall_lang::{Model, RetrySpec};

use crate::caller::CallerSide;

/// One path position: its node and what the walk asks there.
#[derive(Debug, Clone, Copy)]
pub(super) struct Step<'m> {
    /// The node at this position.
    pub(super) node: u32,
    /// The node has a breaker or a throttle ([`CallerSide::guarded`]).
    pub(super) guarded: bool,
    /// The node has a retry budget or gate ([`CallerSide::has_budget`]).
    pub(super) budget: bool,
    /// The last position of the path (its node calls no one).
    pub(super) leaf: bool,
    /// The node's retry policy (at the entry, position 0, the request's
    /// kind says which: `Kind::entry_retry`; `None` here).
    pub(super) retry: Option<&'m RetrySpec>,
}

/// The steps of `path` (node indices, entry first) in `model`.
pub(super) fn steps<'m>(model: &'m Model, path: &[usize]) -> Vec<Step<'m>> {
    path.iter()
        .enumerate()
        .map(|(pos, &node)| {
            let holds = CallerSide::holds(model, node);
            Step {
                node: node as u32,
                guarded: holds.guarded,
                budget: holds.budget,
                leaf: pos + 1 == path.len(),
                retry: (pos > 0)
                    .then(|| model.nodes[node].retry.as_ref())
                    .flatten(),
            }
        })
        .collect()
}
