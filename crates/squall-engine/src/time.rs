//! Time in the engine: an integer count of ticks.
//!
//! A run covers ticks `start..=ticks` (by default `1..=ticks`); what a tick
//! is in the real world (a millisecond, a second) is the scenario's clock,
//! which only reports read. Series are indexed by tick. There is no float
//! time and no epsilon: two events at the same tick run in the order they
//! were scheduled ([`crate::queue`]).

/// Tick sentinel: never (a request never seen at a node, a ledger field
/// never fresh, a capacity never used).
pub(crate) const NEVER: u64 = u64::MAX;
