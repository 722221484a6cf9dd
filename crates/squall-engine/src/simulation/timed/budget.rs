//! Retry budgets on a run that takes time.
//!
//! The hooks are those of the zero-time path ([`crate::policy::budget`]),
//! called at the moments a call's life gives them:
//!
//! 1. `on_request` when the node sends its first try downstream (its own
//!    service is over);
//! 2. `on_failure` for every try that failed with a failure that is not
//!    terminal;
//! 3. `try_retry` only when the retry policy has a try left; a refusal is
//!    counted in `retries_refused` and the call answers its failure;
//! 4. `on_success` when the call answers success at the node.
//!
//! Envoy's budget reads real concurrency here, where the zero-time path
//! approximates it. At the node:
//!
//! * `active + pending` is its tries in flight downstream: sent and not
//!   answered, whether they wait in the callee's queue (Envoy's pending
//!   requests) or are served (its active ones). The rule reads only the
//!   sum, so squall does not split it. The try that just failed is no
//!   longer in flight when its retry is asked for.
//! * `active_retries` is its retries open: granted and not yet answered,
//!   whether waiting out their backoff or in flight. This is Envoy's
//!   `retries` resource, taken when a retry is scheduled
//!   (`RetryStateImpl::shouldRetry`) and given back when that retry's
//!   outcome is known or the request ends (`resetRetry`).
//!
//! The counts are kept only at a node with a budget.

use squall_lang::RetrySpec;

use crate::outcome::{Answer, Failure};
use crate::policy::budget::{Grant, Load};
use crate::policy::retry::{self, BudgetSaid, RetryLoop};

use super::super::runner::Runner;

/// No grant: the call has not been retried, or not with a grant.
pub(super) const NO_GRANT: u32 = u32::MAX;

impl Runner<'_, '_> {
    /// True when `node` has a retry budget.
    pub(super) fn has_budget(&self, node: usize) -> bool {
        self.nodes[node].budget.is_some()
    }

    /// The node's first try of call `c`: the budget it spends (its
    /// client's or the node's) hears of the request.
    pub(super) fn budget_first_try(&mut self, tick: u64, c: u32, node: usize) {
        let own = self.client_budget(self.timed.calls.get(c).slot, node);
        if let Some(b) = self.nodes[node].budget_mut(own) {
            b.on_request(tick);
        }
    }

    /// A try of `node` goes downstream (`+1`) or has answered or been
    /// given up on (`-1`).
    pub(super) fn budget_in_flight(&mut self, node: usize, delta: i64) {
        if self.has_budget(node) {
            let s = &mut self.timed.servers[node];
            s.in_flight = s.in_flight.saturating_add_signed(delta);
        }
    }

    /// Call `c` at `node` leaves its retry open (its retry answered, or
    /// the call ends).
    pub(super) fn close_retry(&mut self, c: u32, node: usize) {
        let call = self.timed.calls.get_mut(c);
        if call.retry_open {
            call.retry_open = false;
            let s = &mut self.timed.servers[node];
            s.retries_open = s.retries_open.saturating_sub(1);
        }
    }

    /// Call `c` answers `answer` at `node`: its open retry closes, and a
    /// success is credited to the budget.
    pub(super) fn timed_budget_leave(&mut self, c: u32, node: usize, answer: Answer) {
        self.close_retry(c, node);
        let g = self.timed.calls.get(c).grant;
        let own = self.client_budget(self.timed.calls.get(c).slot, node);
        if let (Answer::Ok, Some(b)) = (answer, self.nodes[node].budget_mut(own)) {
            b.on_success((g != NO_GRANT).then_some(Grant { cost: g }));
        }
    }

    /// The wait before call `c`'s next try under `policy` at a node with a
    /// budget, or `None`: the retry rule of the zero-time path, gated by
    /// the budget (which reads the node's real concurrency).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn budgeted_timed_wait(
        &mut self,
        tick: u64,
        c: u32,
        node: usize,
        f: Failure,
        policy: &RetrySpec,
        kind: usize,
        state: &mut RetryLoop,
    ) -> Option<u64> {
        let request = &self.sim.kinds[kind].request;
        let server = &self.timed.servers[node];
        let load = Load {
            active: server.in_flight,
            pending: 0,
            active_retries: server.retries_open,
        };
        let own = self.client_budget(self.timed.calls.get(c).slot, node);
        let budget = self.nodes[node].budget_mut(own)?;
        let (wait, said) = retry::budgeted_next_wait(
            policy,
            request,
            f,
            tick,
            state,
            &mut self.gens,
            budget,
            load,
        );
        let granted = match said {
            BudgetSaid::Granted(Grant { cost }) => {
                self.timed.calls.get_mut(c).grant = cost;
                true
            }
            BudgetSaid::Refused => {
                let i = self.obs.slots.index(tick);
                self.obs.nodes[node].retries_refused[i] += 1;
                false
            }
            BudgetSaid::NotAsked => false,
        };
        if granted && wait.is_some() {
            self.timed.calls.get_mut(c).retry_open = true;
            self.timed.servers[node].retries_open += 1;
        }
        wait
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
