//! The server side of a call: what a node does to a call by itself,
//! without calling downstream, on every path.
//!
//! # Who owns what
//!
//! | type | file | owns |
//! |---|---|---|
//! | [`replicas::Replicas`] | `replicas.rs` | one per node: its replicas' server sides (one without `replicas`) and the balancer that picks one per call |
//! | [`node::ServerSide`] | `node.rs` | one per replica: everything below, and the calls in service; the methods every path calls |
//! | [`fault::Failing`] | `fault.rs` | the faults that answer with a failure |
//! | [`capacity::Capacity`] | `capacity.rs` | the per-tick capacity window and the faults that change it |
//! | [`script::Script`] | `script.rs` | where each scripted route stands |
//! | [`composite::Assembly`] | `composite.rs` | a composite response's fields and its degradation policy (the ledger is the server side's) |
//! | [`composite::Fetches`] | `composite.rs` | when calls take time: the fields each response waits for, their limits, which are in or out, when it is assembled |
//! | [`token_bucket::TokenBucket`] | `token_bucket.rs` | the rate limit's tokens |
//! | [`station::Station`] | `station.rs` | workers and the queue, with its [`station::Discipline`] |
//! | [`ordered::Ordered`] | `ordered.rs` | a queue past one FIFO or LIFO line: priority classes, adaptive LIFO, CoDel's shedding ([`crate::policy::codel`]) |
//! | [`latency::Latency`] | `latency.rs` | a service-time distribution |
//! | — | `keyed.rs` | under `draws common`, a call's service time and error-share draws from streams keyed by the call; the jitter of a fault's added latency (`jittered`, keyed or not) |
//! | [`versioned::Versioned`] | `versioned.rs` | an `optimistic` node's item version and the version each call in service read |
//! | [`work_queue::WorkQueue`] | `work_queue.rs` | a work queue's messages, consumers, poison draws and redeliveries (`receive`, `worked`) |
//!
//! # The order a call meets them
//!
//! 0. [`replicas`]: the balancer picks the replica the call meets (every
//!    call, a retry included; no draw with one replica);
//! 1. the timed faults' error shares (one draw per fault in force, from
//!    the fault's own stream, or under `draws common` the call's);
//! 2. [`fault`]: a fault with `fail` active at this tick answers with its
//!    response (the last declared active one wins);
//! 3. [`capacity`]: the node's per-tick capacity (a fault may change it);
//!    with none left the call is refused;
//! 4. the rate limit: a token, a throttle, or a wait for a token;
//! 5. at the bottom of a path: [`composite`] — a node with a composite
//!    response fans out to its fields and assembles them under its
//!    degradation policy; otherwise [`script`] — the first scripted route
//!    matching the request's method and path answers (404 when none does;
//!    success when the node has no routes);
//! 6. the workers: served at once, queued (FIFO, LIFO or adaptive LIFO by
//!    the node's `discipline`, highest source `priority` first; see
//!    [`station::Discipline`] and [`ordered`]), or refused as overflow; a
//!    queued call adaptive LIFO's CoDel sheds when a worker takes it
//!    answers as a queue timeout;
//!    a `workers` fault changes their number at its start and at its end;
//! 7. the service time: one draw from the node's latency, with the load
//!    term and the latency faults in force;
//! 8. at an `optimistic` node, [`versioned`]: the call reads the item's
//!    version when its service starts and commits when it ends, or
//!    answers the conflict status.
//!
//! Steps 1, 4, 6, 7 and 8 exist only when calls take time; the zero-time
//! path's calls meet 2, 3 and 5 ([`node::ServerSide::own_answer`]). A node
//! that is not at the bottom passes the call on to its downstream. The
//! event loops ([`crate::simulation`]: `call.rs` on the zero-time path;
//! `timed/flow/` when calls take time, through the `Timed` methods of
//! `timed/arrival.rs` and `timed/composite.rs`, which keep the calls'
//! phases, levels and wakes) call [`node::ServerSide`] and
//! [`composite::Fetches`], keep the observations and the events, and act
//! on what these return; they decide nothing about the server. Times are
//! ticks, or engine units where calls take time.
//!
//! A new server behaviour (a queue discipline, a fault kind) is a change
//! here and in the language, not in `simulation/`.

pub(crate) mod capacity;
pub(crate) mod composite;
pub(crate) mod fault;
pub(crate) mod keyed;
pub(crate) mod latency;
pub(crate) mod node;
pub(crate) mod ordered;
pub(crate) mod replicas;
pub(crate) mod script;
pub(crate) mod station;
pub(crate) mod token_bucket;
pub(crate) mod versioned;
pub(crate) mod work_queue;
