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
//! node states it builds agree. So is whether the node takes every call
//! it gets ([`passes`]): then the walk asks its server side for no answer
//! of its own, which on such a node is always to pass the call on (a
//! test here holds the two to the same answers).

use squall_lang::{Model, RetrySpec};

use crate::caller::CallerSide;
use crate::server::capacity::Capacity;
use crate::server::fault::Failing;

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
    /// The node's column in a request's last-seen ticks, where distinct
    /// ids are counted at it
    /// ([`SimulationBuilder::distinct_ids_at`](super::SimulationBuilder::distinct_ids_at));
    /// [`NO_COLUMN`](super::NO_COLUMN) where they are not.
    pub(super) column: u32,
    /// The node is not the last (`leaf`) and takes every call
    /// ([`passes`]): its own answer is always to pass the call down.
    pub(super) passes: bool,
    /// No position above this one (nearer the entry) has a breaker, a
    /// throttle, a retry budget or a gate: a success answered here is
    /// only counted at each of them on its way up (a failure may meet a
    /// retry policy).
    pub(super) quiet_above: bool,
    /// The node's retry policy (at the entry, position 0, the request's
    /// kind says which: `Kind::entry_retry`; `None` here).
    pub(super) retry: Option<&'m RetrySpec>,
}

/// The steps of `path` (node indices, entry first) in `model`, with each
/// node's `column` of last-seen ticks.
pub(super) fn steps<'m>(model: &'m Model, path: &[usize], column: &[u32]) -> Vec<Step<'m>> {
    let quiet = |node: usize| {
        let holds = CallerSide::holds(model, node);
        !holds.guarded && !holds.budget
    };
    path.iter()
        .enumerate()
        .map(|(pos, &node)| {
            let holds = CallerSide::holds(model, node);
            let leaf = pos + 1 == path.len();
            Step {
                node: node as u32,
                guarded: holds.guarded,
                budget: holds.budget,
                leaf,
                column: column[node],
                passes: !leaf && passes(model, node),
                quiet_above: path[..pos].iter().all(|&n| quiet(n)),
                retry: (pos > 0)
                    .then(|| model.nodes[node].retry.as_ref())
                    .flatten(),
            }
        })
        .collect()
}

/// Whether node `node` of `model` takes every call on the zero-time path:
/// it has one replica, and of the parts its server side is built from,
/// those that refuse a call there
/// ([`ServerSide::refuse`](crate::server::node::ServerSide::refuse)) have
/// nothing to refuse it for: no failing fault ([`Failing`]) and no
/// per-tick capacity, its own or a fault's ([`Capacity`]).
pub(super) fn passes(model: &Model, node: usize) -> bool {
    model.nodes[node].replicas.is_none()
        && Failing::new(model, node, 0).is_empty()
        && Capacity::new(model, node, 0).unlimited()
}

#[cfg(test)]
mod tests {
    use squall_lang::RunKey;

    use super::*;
    use crate::server::node::{Own, ServerSide};

    /// A node the plan says passes every call is one whose server side
    /// answers every call of the run by passing it on, and the others
    /// (a capacity, its own or a fault's, a failing fault, replicas) are
    /// not: the plan's rule and the server side's own answer agree.
    #[test]
    fn a_node_that_passes_answers_pass_at_every_tick() {
        let text = r#"scenario "plan" {
  clock round
  run 40 rounds
  source users { rate 3/round  enters a }
  chain a -> b -> c -> d -> e -> f
  service b { capacity 2/round }
  service d { replicas 2 }
  fault slow { on c  during 10..20  capacity 1/round }
  fault down { on e  during 5..8  fail 503 }
}"#;
        let s = squall_lang::load("plan.squall", text).unwrap_or_else(|e| panic!("{e:?}"));
        let m = s
            .model_for(RunKey::Variant(0), &[])
            .unwrap_or_else(|e| panic!("{e:?}"));
        let want = [true, false, false, false, false];
        for (node, &w) in want.iter().enumerate() {
            assert_eq!(passes(&m, node), w, "node {}", m.nodes[node].name);
            let mut side = ServerSide::new(&m, node, 0, m.seed, None);
            let request = &m.sources[0].request;
            // Many calls a tick, past any capacity: a node that passes
            // passes them all.
            let answers: Vec<Own> = (1..=m.ticks)
                .flat_map(|t| std::iter::repeat_n(t, 5))
                .map(|t| {
                    side.own_answer(|| &m.nodes[node], &m.faults, t, 0, false, || request, || {})
                })
                .collect();
            let all_pass = answers.iter().all(|&a| a == Own::Pass);
            // Node d refuses nothing either; it is kept off the plan's
            // short way for its balancer.
            assert_eq!(all_pass, w || node == 3, "node {}", m.nodes[node].name);
        }
    }
}
