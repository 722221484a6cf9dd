//! Asking a node's breaker and telling it an answer, both engine paths:
//! [`Runner::breaker_admit`] and [`Runner::breaker_record`] call the
//! breaker and note any change of its state in the node's
//! [`BreakerLog`](crate::observe::BreakerLog), which charts of breaker
//! state over time read. A breaker left open past its cool-down turns
//! half-open only when the next call asks; the log dates that change at
//! the end of the cool-down, from when a call would have gone as a probe.
//! A run that keeps no log ([`SimulationBuilder::breaker_log`](super::SimulationBuilder::breaker_log))
//! only asks and tells.

use crate::policy::breaker::{Admission, State};

use super::runner::Runner;

impl Runner<'_, '_> {
    /// Breaker `scope` of `node` decides on a try at `tick`.
    #[inline]
    pub(super) fn breaker_admit(&mut self, node: usize, scope: usize, tick: u64) -> Admission {
        let b = &mut self.nodes[node].breakers[scope];
        let Some(log) = self.obs.breakers.get_mut(node) else {
            return b.admit(tick);
        };
        let from = b.state();
        let probe_from = (from == State::Open).then(|| b.probe_from());
        let a = b.admit(tick);
        // An open breaker turns half-open when a call asks after its
        // cool-down; it has let probes go since the cool-down ended.
        let at = match probe_from {
            Some(p) if a.before == State::HalfOpen => p.min(tick),
            _ => tick,
        };
        log.note(at, scope, from, a.before);
        a
    }

    /// Breaker `scope` of `node` hears the answer (`failed` or not) to a
    /// try it let go in `epoch`; the state after.
    #[inline]
    pub(super) fn breaker_record(
        &mut self,
        node: usize,
        scope: usize,
        failed: bool,
        duration: u64,
        tick: u64,
        epoch: u64,
    ) -> State {
        let b = &mut self.nodes[node].breakers[scope];
        let Some(log) = self.obs.breakers.get_mut(node) else {
            return b.record(failed, duration, tick, epoch);
        };
        let from = b.state();
        let after = b.record(failed, duration, tick, epoch);
        log.note(tick, scope, from, after);
        after
    }
}
