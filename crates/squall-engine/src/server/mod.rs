//! The server side of a call: how a node answers by itself, without
//! calling downstream.
//!
//! A call that reaches a node meets, in this order:
//!
//! 1. [`fault`] — a fault with `fail` active at this tick answers with its
//!    response (the last declared active one wins);
//! 2. [`capacity`] — the node's per-tick capacity (a fault may change it);
//!    with none left the call is refused;
//! 3. at the bottom of a path only: [`composite`] — a node with a composite
//!    response fans out to its fields and assembles them under its
//!    degradation policy; otherwise [`script`] — the first scripted route
//!    matching the request's method and path answers (404 when none does;
//!    success when the node has no routes).
//!
//! A node that is not at the bottom passes the call on to its downstream.
//! The event loop ([`crate::simulation`]) makes the calls and counts what
//! each node saw; these modules hold each component's state and rules.
//! Times are ticks.

pub(crate) mod capacity;
pub(crate) mod composite;
pub(crate) mod fault;
pub(crate) mod latency;
pub(crate) mod script;
pub(crate) mod station;
pub(crate) mod token_bucket;
