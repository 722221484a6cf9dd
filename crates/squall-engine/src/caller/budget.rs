//! [`Budgets`]: a node's retry budget, its clients' own, and the
//! concurrency an Envoy budget reads.
//!
//! The hooks of [`Budget`] are called at the same moments of a request's
//! life on both paths:
//!
//! 1. `on_request` when the node's retry loop opens (its first try);
//! 2. `on_failure` for every try that failed with a failure that is not
//!    terminal;
//! 3. `try_retry` only when the retry policy has a try left; a refusal is
//!    counted by the caller in `retries_refused` and the request answers
//!    its failure;
//! 4. `on_success` when the request answers success at the node.
//!
//! A source with `clients N` entering the node gives each client a budget
//! of its own (its own tokens); the counts below stay the node's.
//!
//! The node's retry gate ([`Gates`], mbrooker's `retry_sim` rule) hears
//! the same moments: a request at 1 (`calls`), a failure at 2
//! (`failures`), and at 3 it is read before the budget, so a retry it
//! refuses spends no token; its refusals are counted with the budget's.
//!
//! # What an Envoy budget reads
//!
//! * `active_retries`: retries open at the node, granted and not yet
//!   answered, whether waiting out their backoff or in flight. This is
//!   Envoy's `retries` resource, taken when a retry is scheduled
//!   (`RetryStateImpl::shouldRetry`) and given back when that retry's
//!   outcome is known or the request ends (`resetRetry`). The zero-time
//!   path closes a retry when it is sent instead: its answer comes back
//!   before the node decides again, unless a node below waits out a
//!   backoff first, and the approximation then counts it as closed.
//! * `active + pending`: on a run that takes time, the node's tries in
//!   flight downstream, sent and not answered, whether they wait in the
//!   callee's queue (Envoy's pending requests) or are served (its active
//!   ones); the rule reads only the sum, so it is not split. The try that
//!   just failed is no longer in flight when its retry is asked for. On
//!   the zero-time path every try is answered before the next decision,
//!   so no try is ever in flight then; the count read there is the
//!   requests open at the node (their loop started, not yet answered),
//!   which is what would be in flight if calls took time.

use squall_lang::{BudgetSpec, RequestSpec, RetrySpec};

use crate::outcome::{Answer, Failure};
use crate::policy::budget::{Budget, Grant, Load};
use crate::policy::retry::{self, BudgetSaid, RetryLoop};
use crate::rng::Generator;

use super::gate::Gates;
use super::per_client::PerClient;

/// No grant: the try was not a retry, or not one a budget granted.
pub(crate) const NO_GRANT: u32 = u32::MAX;

/// What the caller side decided after a failed try.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Decision {
    /// The wait \[ticks\] before the next try, or `None`: no more tries.
    pub(crate) wait: Option<u64>,
    /// The budget granted the retry at this cost ([`NO_GRANT`]: not asked,
    /// or no budget).
    pub(crate) grant: u32,
    /// The budget refused the retry the policy would have made.
    pub(crate) refused: bool,
}

/// [`Budgets::next_try`] at a node with neither a budget nor a retry gate:
/// the retry rule alone ([`retry::next_wait`]), nothing granted or
/// refused. The zero-time walk, which knows from its step that a node has
/// none, asks here without reaching the node's caller side.
#[inline(always)]
pub(crate) fn unbudgeted(
    policy: &RetrySpec,
    request: &RequestSpec,
    f: Failure,
    tick: u64,
    state: &mut RetryLoop,
    gens: &mut [Generator],
) -> Decision {
    Decision {
        wait: retry::next_wait(policy, request, f, tick, state, gens),
        grant: NO_GRANT,
        refused: false,
    }
}

/// A node's retry budgets and the counts they read.
#[derive(Debug, Clone, Default)]
pub(crate) struct Budgets {
    /// The node's budget and its clients' own.
    budget: PerClient<Budget>,
    /// The node's retry gates (none when no policy of the node has one).
    gates: Gates,
    /// Clients added so far (their budgets' and gates' indices).
    client_count: usize,
    /// The node has a budget or a gate: one test on the call path.
    any: bool,
    /// Requests open at the node, its tries in flight downstream, its
    /// granted retries not yet answered.
    open: u64,
    in_flight: u64,
    retries_open: u64,
    /// Tries can be in flight while others decide (the timed path).
    timed: bool,
}

impl Budgets {
    /// The budgets of a node with budget `spec`, on a run that takes time
    /// or not.
    pub(crate) fn new(spec: Option<&BudgetSpec>, gates: Gates, timed: bool) -> Self {
        Budgets {
            any: spec.is_some() || gates.is_some(),
            budget: PerClient::new(spec.map(Budget::from_spec)),
            gates,
            timed,
            ..Budgets::default()
        }
    }

    /// True when the node has a budget or a retry gate.
    #[inline(always)]
    pub(crate) fn is_some(&self) -> bool {
        self.any
    }

    /// Adds one budget and one retry gate per client (`count` clients),
    /// each a fresh copy of the node's; the index of the first, or `None`
    /// when the node has neither.
    pub(crate) fn add_clients(&mut self, spec: Option<&BudgetSpec>, count: u32) -> Option<usize> {
        if count == 0 || !self.is_some() {
            return None;
        }
        let base = self.client_count;
        // The node's budget and its gates add `count` each time they add
        // any, so a client's index is the same in both.
        if let Some(spec) = spec {
            self.budget
                .add_clients(count, |_, _| Budget::from_spec(spec));
        }
        self.gates.add_clients(count);
        self.client_count += count as usize;
        Some(base)
    }

    /// The budget a request spends: client `client`'s, or the node's.
    #[inline]
    fn pick(&mut self, client: Option<usize>) -> Option<&mut Budget> {
        self.budget.pick(client)
    }

    fn load(&self) -> Load {
        Load {
            active: if self.timed {
                self.in_flight
            } else {
                self.open
            },
            pending: 0,
            active_retries: self.retries_open,
        }
    }

    #[inline]
    pub(super) fn first_try(&mut self, tick: u64, client: Option<usize>) {
        if let Some(g) = self.gates.pick(client) {
            g.on_request(tick);
        }
        if !self.budget.is_some() {
            return;
        }
        self.open += 1;
        if let Some(b) = self.pick(client) {
            b.on_request(tick);
        }
    }

    #[inline]
    pub(super) fn sent(&mut self) {
        if self.budget.is_some() {
            self.in_flight += 1;
        }
    }

    #[inline]
    pub(super) fn back(&mut self) {
        if self.budget.is_some() {
            self.in_flight = self.in_flight.saturating_sub(1);
        }
    }

    pub(super) fn retry_closed(&mut self) {
        self.retries_open = self.retries_open.saturating_sub(1);
    }

    /// The wait before the next try after failure `f` under `policy`
    /// (the retry rule, [`retry::next_wait`]), or none; at a node with a
    /// budget, the budget (`client`'s or the node's) grants or refuses the
    /// retry.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn next_try(
        &mut self,
        policy: &RetrySpec,
        request: &RequestSpec,
        f: Failure,
        tick: u64,
        state: &mut RetryLoop,
        gens: &mut [Generator],
        client: Option<usize>,
    ) -> Decision {
        if !self.is_some() {
            return unbudgeted(policy, request, f, tick, state, gens);
        }
        self.gated(policy, request, f, tick, state, gens, client)
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn gated(
        &mut self,
        policy: &RetrySpec,
        request: &RequestSpec,
        f: Failure,
        tick: u64,
        state: &mut RetryLoop,
        gens: &mut [Generator],
        client: Option<usize>,
    ) -> Decision {
        let load = self.load();
        let budget = match (self.budget.is_some(), self.budget.pick(client)) {
            (false, _) => None,
            (true, Some(b)) => Some(b),
            (true, None) => {
                return Decision {
                    wait: None,
                    grant: NO_GRANT,
                    refused: false,
                }
            }
        };
        let gate = self.gates.pick(client);
        let (wait, said) =
            retry::budgeted_next_wait(policy, request, f, tick, state, gens, budget, gate, load);
        let (grant, refused) = match said {
            BudgetSaid::Granted(Grant { cost }) => (cost, false),
            BudgetSaid::Refused => (NO_GRANT, true),
            BudgetSaid::NotAsked => (NO_GRANT, false),
        };
        if grant != NO_GRANT && wait.is_some() {
            self.retries_open += 1;
        }
        Decision {
            wait,
            grant,
            refused,
        }
    }

    pub(super) fn leave(
        &mut self,
        opened: bool,
        answer: Option<Answer>,
        grant: u32,
        client: Option<usize>,
    ) {
        if !self.budget.is_some() {
            return;
        }
        if opened {
            self.open = self.open.saturating_sub(1);
        }
        if let (Some(Answer::Ok), Some(b)) = (answer, self.pick(client)) {
            b.on_success((grant != NO_GRANT).then_some(Grant { cost: grant }));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::policy::budget::envoy::EnvoyBudget;
    use crate::policy::budget::{Budget, Load};

    #[test]
    fn envoy_at_given_counts() {
        // Envoy's rule with the default budget (20 %, at least 3): a retry
        // starts iff active retries < max(floor(0.2 x (active + pending)), 3).
        // 40 tries in flight: floor(8.0) = 8, so the 9th open retry is refused.
        let mut b = Budget::Envoy(EnvoyBudget::default());
        let at = |retries, active| Load {
            active,
            pending: 0,
            active_retries: retries,
        };
        assert!(b.try_retry(0, false, at(7, 40)).is_some());
        assert!(b.try_retry(0, false, at(8, 40)).is_none());
        // 14 in flight: floor(2.8) = 2 < 3, so the floor of 3 holds.
        assert!(b.try_retry(0, false, at(2, 14)).is_some());
        assert!(b.try_retry(0, false, at(3, 14)).is_none());
        // Queued tries count like served ones: 10 queued + 30 served is 40.
        let split = Load {
            active: 30,
            pending: 10,
            active_retries: 7,
        };
        assert!(b.try_retry(0, false, split).is_some());
    }
}
