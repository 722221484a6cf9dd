//! A node of the call graph, and the scripted routes of its endpoints.

use serde::Serialize;

use super::{
    BreakerSpec, BudgetSpec, CompositeSpec, LibraryBreakerSpec, Method, ResponseSpec, RetrySpec,
};

/// A step of a response script.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepSpec {
    /// What it answers.
    pub response: ResponseSpec,
    /// For so many calls.
    pub times: Option<u64>,
    /// Until this tick (inclusive of earlier ticks only).
    pub until: Option<u64>,
}

/// A route of a scripted endpoint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RouteSpec {
    /// Name.
    pub name: String,
    /// Method matched; `None` for any.
    pub method: Option<Method>,
    /// Path matched; `None` for any (the default route).
    pub path: Option<String>,
    /// Its script; the last step holds for ever.
    pub script: Vec<StepSpec>,
}

/// A node of the call graph: a service that calls another node, or a
/// dependency at the bottom of a chain.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct NodeSpec {
    /// The node's name.
    pub name: String,
    /// The node it calls, if any.
    pub downstream: Option<usize>,
    /// Calls accepted per tick; `None` for unlimited.
    pub capacity: Option<u64>,
    /// How it retries a failed call to its downstream node.
    pub retry: Option<RetrySpec>,
    /// A circuit breaker on its calls to its downstream node.
    pub breaker: Option<BreakerSpec>,
    /// A library's rate-window breaker on its calls to its downstream
    /// node (instead of `breaker`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library_breaker: Option<LibraryBreakerSpec>,
    /// A retry budget on its retries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetSpec>,
    /// Hedged tries on its calls downstream, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hedge: Option<super::HedgeSpec>,
    /// An adaptive concurrency limit on its tries downstream, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limiter: Option<super::LimiterSpec>,
    /// Client-side adaptive throttling of its tries downstream, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throttle: Option<super::ThrottleSpec>,
    /// Scripted answers, for a node at the bottom of a chain.
    pub routes: Vec<RouteSpec>,
    /// A response assembled from fields fetched from other nodes.
    pub composite: Option<CompositeSpec>,
    /// Its work as a server: latency, workers, queue, rate limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<super::ServerSpec>,
    /// Its side of the calls it makes: per-try timeout, cancellation.
    #[serde(skip_serializing_if = "super::CallerSpec::is_empty")]
    pub caller: super::CallerSpec,
    /// Its work as a queue of messages worked by consumers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work_queue: Option<super::WorkQueueSpec>,
    /// `replicas N` and its balancer; none: one node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicas: Option<super::ReplicaSpec>,
}

impl NodeSpec {
    /// How many replicas the node stands for (1 without `replicas`).
    pub fn replica_count(&self) -> usize {
        self.replicas.map_or(1, |r| r.count.max(1) as usize)
    }
}
