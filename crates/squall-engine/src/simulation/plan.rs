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
//! test here holds the two to the same answers). A node that passes
//! every call, holds none of the components and counts no distinct ids
//! is bare: the walk only counts the call there and opens the node's
//! retry loop, so it passes a stretch of bare positions at once
//! (`Step::bare`) and counts its calls once for the stretch (a test in
//! `tests/distinct.rs` holds this to the walk node by node, which a run
//! that counts distinct ids at every node takes).

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
    /// This position's index among the positions of every path, path
    /// after path: where the tick's counts keep what a walk counts for
    /// it ([`TickCounts`](super::tick::TickCounts)).
    pub(super) at: u32,
    /// How many positions from this one on are bare, 0 when this one is
    /// not: its node passes every call (`passes`), has no breaker,
    /// throttle, budget or gate, and counts no distinct ids (no
    /// `column`), so all the walk does there is count the call and open
    /// the node's retry loop. A walk passes the whole stretch at once,
    /// its calls counted once for the stretch (in the tick's counts).
    pub(super) bare: u32,
}

/// The steps of `path` (node indices, entry first) in `model`, with each
/// node's `column` of last-seen ticks; `first`: the index of the path's
/// entry among the positions of every path (`Step::at`).
pub(super) fn steps<'m>(
    model: &'m Model,
    path: &[usize],
    column: &[u32],
    first: usize,
) -> Vec<Step<'m>> {
    let quiet = |node: usize| {
        let holds = CallerSide::holds(model, node);
        !holds.guarded && !holds.budget
    };
    let mut steps: Vec<Step<'m>> = path
        .iter()
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
                at: (first + pos) as u32,
                bare: 0,
            }
        })
        .collect();
    // Each bare position's stretch, from the bottom up.
    let mut below = 0;
    for s in steps.iter_mut().rev() {
        let bare = s.passes && !s.guarded && !s.budget && s.column == super::NO_COLUMN;
        below = if bare { below + 1 } else { 0 };
        s.bare = below;
    }
    steps
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

    /// Each position's stretch of bare positions, by hand: a node with a
    /// breaker, one with a budget, one that counts distinct ids (a
    /// column) and the leaf end a stretch; the others pass every call.
    #[test]
    fn a_stretch_runs_to_the_next_position_that_is_not_bare() {
        let text = r#"scenario "stretch" {
  clock round
  run 10 rounds
  source users { rate 1/round  enters a }
  chain a -> b -> c -> d -> e -> f -> g -> h
  service c { breaker { after 5 failures  cooldown 3 rounds } }
  service f { retry { attempts 2  backoff fixed 1 round }  budget aws }
}"#;
        let s = squall_lang::load("stretch.squall", text).unwrap_or_else(|e| panic!("{e:?}"));
        let m = s
            .model_for(RunKey::Variant(0), &[])
            .unwrap_or_else(|e| panic!("{e:?}"));
        let path: Vec<usize> = (0..8).collect();
        let bare = |column: &[u32]| -> Vec<u32> {
            let s = steps(&m, &path, column, 5);
            assert!(s.iter().enumerate().all(|(pos, s)| s.at == 5 + pos as u32));
            s.iter().map(|s| s.bare).collect()
        };
        let no = super::super::NO_COLUMN;
        // a b | c | d e | f | g | h: stretches of 2, 2 and 1.
        assert_eq!(bare(&[no; 8]), [2, 1, 0, 2, 1, 0, 1, 0]);
        // Distinct ids counted at b and e, every node's own: their
        // positions are no longer bare.
        let column = [no, 0, no, no, 1, no, no, no];
        assert_eq!(bare(&column), [1, 0, 0, 1, 0, 0, 1, 0]);
    }

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
