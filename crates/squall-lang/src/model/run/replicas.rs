//! Replicas behind a balancer: `replicas N` and `balance ...` on a
//! service. Semantics: the module doc of the engine's `server/replicas.rs`
//! and the reference's "Replicas" section.

use serde::Serialize;

/// A service that stands for `count` nodes of the same spec, its calls
/// spread over them by `balance`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ReplicaSpec {
    /// How many replicas (at least 1).
    pub count: u32,
    /// Which replica each call (each try) goes to.
    pub balance: Balance,
}

/// The most replicas a service may have (a replica's index is kept in a
/// call record as 16 bits).
pub const MAX_REPLICAS: u32 = 1 << 16;

/// How a balancer picks a replica for a call, named after Envoy's load
/// balancers (`source/extensions/load_balancing_policies/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Balance {
    /// `round_robin` (the default, as in Envoy): replica 0, 1, ..., N-1,
    /// 0, ... in the order calls arrive.
    #[default]
    RoundRobin,
    /// `random`: one uniform draw per call.
    Random,
    /// `least_outstanding`: the replica with the fewest calls that have
    /// arrived and not yet answered, ties broken uniformly (Envoy's
    /// `least_request` with `FULL_SCAN`: reservoir sampling over ties).
    LeastOutstanding,
    /// `p2c`: two uniform draws (with replacement), the second kept only
    /// when it has strictly fewer outstanding calls (Envoy's
    /// `least_request` with `N_CHOICES` and its default `choice_count` 2).
    P2c,
}

impl Balance {
    /// Every balancer with its keyword, in the order the reference lists
    /// them.
    pub const ALL: [(&'static str, Balance); 4] = [
        ("round_robin", Balance::RoundRobin),
        ("random", Balance::Random),
        ("least_outstanding", Balance::LeastOutstanding),
        ("p2c", Balance::P2c),
    ];

    /// The balancer a keyword names, if any.
    pub fn named(word: &str) -> Option<Balance> {
        Self::ALL.iter().find(|(w, _)| *w == word).map(|&(_, b)| b)
    }

    /// True when it reads the replicas' outstanding calls (meaningful only
    /// where calls take time).
    pub fn reads_load(&self) -> bool {
        matches!(self, Balance::LeastOutstanding | Balance::P2c)
    }
}
